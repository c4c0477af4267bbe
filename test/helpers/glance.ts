import path from 'path';
import { Client } from '../../lib/sdk';
import type { ClientOptions } from '../../lib/config/options';
import { resolveClientOptions } from '../../lib/config/options';
import { joinFresh, sandboxKey } from '../../support/sandbox-pool';
import { openDb } from '../../lib/store/db';
import { createApiKey } from '../../lib/service/api-keys';
import { serveFolder } from '../../lib/util/static-server';
import { waitFor } from '../../lib/util/wait';
import { processAlive, SandboxRegistry } from '../../lib/sandbox/registry';
import { testFolder } from './test-root';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const FIXTURES = path.join(REPO_ROOT, 'features', 'fixtures');
/** The cucumber-js command line script, run with node by the tests and benchmarks of the step library. */
export const CUCUMBER_BIN = path.join(path.dirname(require.resolve('@cucumber/cucumber/package.json')), 'bin', 'cucumber.js');

/** A private state folder with a fresh API key, under the suite's temp root. */
export function testState(): { stateDir: string; apiKey: string } {
  const stateDir = testFolder('state-');
  const db = openDb(stateDir);
  const { key } = createApiKey(db);
  db.close();
  return { stateDir, apiKey: key };
}

/**
 * The options the tests' clients are made with: the state folder's, quiet,
 * with no preview unless asked, and in the test suite no dashcam unless asked:
 * its encoder takes a share of the two cores through every session, and
 * saving its clip about 0.4 s of each disconnect. The dashcam's own tests ask
 * for it; the step library's tests and the benchmarks run it as users do.
 */
function testClientOptions(state: { stateDir: string }, options: ClientOptions): ClientOptions {
  const dashcam = process.env.GLANCE_TEST_NO_DASHCAM ? { dashcam: false } : {};
  return { stateDir: state.stateDir, preview: 'none', logging: false, ...dashcam, ...options };
}

export function newClient(state: { stateDir: string; apiKey: string }, options: ClientOptions = {}): Client {
  return new Client(state.apiKey, testClientOptions(state, options));
}

/** Auth, connect and open a fixture page in one go. */
export async function clientOnPage(state: { stateDir: string; apiKey: string }, url: string, options: ClientOptions = {}): Promise<Client> {
  const client = newClient(state, options);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  await client.provision.chrome({ url });
  return client;
}

export function fixtureServer() {
  return serveFolder(FIXTURES);
}

/** The page's title (fixtures mirror their state into it), read from the sandbox's window list. */
export async function pageTitle(client: Client): Promise<string> {
  const windows = await client.requireAgent().call<{ title: string; className: string }[]>('GET', '/windows');
  const browser = windows.find((w) => /chromium/i.test(w.className));
  return (browser?.title ?? '').replace(/ - Chromium$/, '');
}

/** Waits until the fixture's JSON state satisfies `check`; returns it. */
export async function waitForPageState<T = Record<string, any>>(client: Client, check: (state: T) => boolean, timeoutMs = 5000): Promise<T> {
  let last: T | undefined;
  try {
    return await waitFor('the page state', async () => {
      const title = await pageTitle(client);
      try { last = JSON.parse(title); } catch { return undefined; }
      return check(last as T) ? last : undefined;
    }, { timeoutMs, intervalMs: 20 });
  } catch (error) {
    throw new Error(`${(error as Error).message} Last page state: ${JSON.stringify(last)}`);
  }
}

/**
 * The clients a test file connects, disconnected when the file ends, and any
 * sandbox of its state folder still running (kept alive on purpose) stopped.
 */
export function cleanupAfterFile(state: { stateDir: string }, after: (fn: () => Promise<void>) => void): Client[] {
  const clients: Client[] = [];
  after(async () => {
    for (const client of clients) await client.disconnect();
    const registry = new SandboxRegistry(state.stateDir);
    // Local sandboxes only: a container's or a pod's record has no process of this machine (its pid is 0, which
    // process.kill would take for this process's whole group).
    const left = registry.list().filter((r) => r.state === 'running' && (r.backend ?? 'local') === 'local' && r.pid > 0 && processAlive(r.pid)).map((r) => r.pid);
    for (const pid of left) process.kill(pid, 'SIGTERM');
    // An agent told to end stops its desktop before it exits: the next file starts on a machine without it.
    await waitFor('the sandboxes left running to end', () => left.every((pid) => !processAlive(pid)), { timeoutMs: 10_000 });
  });
  return clients;
}

/** How long a test file's shared sandbox waits for its next test before it ends itself. */
const TURN_KEEP_ALIVE_MS = 60_000;

/**
 * A sandbox that a test file's tests take turns in, as a suite's scenarios do
 * with reuseSandbox: each test's client joins it fresh (the programs the test
 * before left are closed, and provisioning runs again) instead of starting a
 * desktop and a browser of its own, which costs a loaded machine some 2 s a
 * test. For tests that need a clean screen, not a new sandbox: those about a
 * sandbox's start or end, or about what is named after the file that
 * connects (the dashcam's clip), start their own. Clients that differ in
 * what a sandbox keeps for its life (resolution, environment) get a sandbox
 * each. The clients go in `clients` (from cleanupAfterFile), which also stops
 * the shared sandboxes when the file ends. `make` builds the client, for one
 * made in an environment of its own (a vision model's).
 */
export function sandboxTurns(state: { stateDir: string; apiKey: string }, clients: Client[]) {
  const shared = new Map<string, string>();
  return async function join(options: ClientOptions = {}, make = () => newClient(state, options)): Promise<Client> {
    // The test before may have failed before it disconnected: its session ends first.
    for (const client of clients) await client.disconnect();
    const client = make();
    clients.push(client);
    await client.auth();
    const kind = sandboxKey(resolveClientOptions(testClientOptions(state, options)));
    const id = shared.get(kind);
    if (id !== undefined && await joinFresh(client, id, TURN_KEEP_ALIVE_MS)) return client;
    // None yet, or it ended (a test stopped it): a new one takes its place.
    shared.set(kind, (await client.connect({ keepAlive: TURN_KEEP_ALIVE_MS })).instanceId);
    return client;
  };
}
