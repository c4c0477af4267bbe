import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import { spawn, spawnSync } from 'child_process';
import path from 'path';
import { Client, ElementNotFoundError, QuotaError } from '../../lib/sdk';
import { RemoteService } from '../../lib/service/remote-service';
import { startServer, RunningServer } from '../../lib/server/serve';
import { createApiKey } from '../../lib/service/api-keys';
import { addTeam } from '../../lib/service/teams';
import { openDb } from '../../lib/store/db';
import { AgentClient } from '../../lib/sandbox/agent-client';
import { processAlive, SandboxRegistry } from '../../lib/sandbox/registry';
import type { SessionSettings } from '../../lib/service/service';
import { serviceContract } from '../contract/service-contract';
import { fixtureServer, REPO_ROOT, testState, waitForPageState } from '../helpers/glance';
import { sleep } from '../../lib/util/wait';

/** A team server on loopback over a fresh state folder, and a client's own state folder. */
async function teamServer(options: { tokenTtlMs?: number } = {}) {
  const state = testState();
  const server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir, ...options });
  const clientDir = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'client-'));
  return { ...state, server, clientDir };
}

function keyOf(stateDir: string, team: string, limit: number | null = null): string {
  const db = openDb(stateDir);
  try {
    addTeam(db, team, limit);
    return createApiKey(db, team).key;
  } finally {
    db.close();
  }
}

/** Stops every sandbox of a state folder still running (kept alive by a test on purpose). */
async function stopSandboxes(stateDir: string): Promise<void> {
  for (const record of new SandboxRegistry(stateDir).list().filter((r) => r.state === 'running' && processAlive(r.pid))) process.kill(record.pid, 'SIGTERM');
  await sleep(500);
}

const SETTINGS: SessionSettings = {
  locator: 'auto', os: 'linux', vision: null,
  cache: { enabled: true, thresholds: { find: { screen: 0.05, element: 0.8 }, assert: 0.05 }, maxEntries: 100 },
};
const SPEC = { os: 'linux' as const, width: 1024, height: 768, keepAlive: 0, environment: {}, preview: 'none' as const };

// The team server's transport against the contract the embedded Service passes.
serviceContract('RemoteService', async () => {
  const it = await teamServer();
  const fixtures = await fixtureServer();
  const service = new RemoteService(it.server.url, it.clientDir);
  return {
    service, apiKey: it.apiKey, stateDir: it.clientDir, base: fixtures.url,
    cleanup: async () => {
      service.close();
      await it.server.close();
      await fixtures.close();
    },
  };
});

describe('a team server shared by two teams', () => {
  let it: Awaited<ReturnType<typeof teamServer>>;
  let fixtures: Awaited<ReturnType<typeof fixtureServer>>;
  let server: RunningServer;
  let teamB: string;
  let sandboxId = '';
  let screenshotName = '';

  before(async () => {
    it = await teamServer();
    server = it.server;
    fixtures = await fixtureServer();
    teamB = keyOf(it.stateDir, 'b');
  });

  after(async () => {
    await server.close();
    await fixtures.close();
    await stopSandboxes(it.stateDir);
  });

  test('a Client with apiRoot drives a sandbox through the server, and fails as the embedded Client does', async () => {
    const client = new Client(it.apiKey, { apiRoot: server.url, stateDir: it.clientDir, preview: 'none', logging: false, cacheKey: 'shared' });
    await client.auth();
    const instance = await client.connect({ keepAlive: 120_000 });
    sandboxId = instance.instanceId;
    try {
      // Every call goes through the server; the agent's own token never reaches the client.
      const endpoint = client.requireAgent().endpoint;
      assert.equal(endpoint.basePath, `/v1/sandboxes/${sandboxId}/agent`);
      assert.equal(`${endpoint.host}:${endpoint.port}`, new URL(server.url).host);
      assert.notEqual(endpoint.token, new SandboxRegistry(it.stateDir).read(sandboxId)!.token);

      await client.provision.chrome({ url: `${fixtures.url}/app/studio.html` });
      const exportButton = await client.find('Export button');
      assert.equal(exportButton.cache.hit, false);
      await exportButton.click();
      await waitForPageState(client, (s) => s.clicked?.includes('export'));

      // Not found: the same error as the embedded Client's, with the screenshot in the client's own folder.
      const missing = await client.find("the 'Refund issued' button", { timeout: 0 });
      assert.equal(missing.found(), false);
      const error = await missing.click().catch((e) => e);
      assert.ok(error instanceof ElementNotFoundError, String(error));
      assert.match(error.message, /Element not found: 'the 'Refund issued' button'/);
      assert.ok(error.screenshotPath?.startsWith(path.join(it.clientDir, 'screenshots')) && fs.existsSync(error.screenshotPath), String(error.screenshotPath));
      screenshotName = path.relative(path.join(it.clientDir, 'screenshots'), error.screenshotPath!);
      assert.equal(await client.commitCache(), 2, 'the button found, and the one found absent');
    } finally {
      await client.disconnect();
    }
  });

  test("another team can neither rejoin, open, reach nor read the first team's sandbox, session, screenshots or cache", async () => {
    assert.ok(sandboxId, 'the first test left a sandbox');
    const a = new RemoteService(server.url, it.clientDir);
    const b = new RemoteService(server.url, it.clientDir);
    try {
      const tokenA = (await a.auth(it.apiKey)).token;
      const tokenB = (await b.auth(teamB)).token;
      await assert.rejects(b.rejoinSandbox(tokenB, sandboxId), /No sandbox with id '.*' is known to your team/);
      assert.equal(await b.lastSandboxId(tokenB), null);
      assert.equal(await a.lastSandboxId(tokenA), sandboxId);
      await assert.rejects(b.openSession(tokenB, sandboxId, SETTINGS), /known to your team|was not created, rejoined or attached/);

      const sandboxA = await a.rejoinSandbox(tokenA, sandboxId);
      const sessionA = (await a.openSession(tokenA, sandboxId, SETTINGS)).sessionId;
      await assert.rejects(b.locate(sessionA, { description: 'Export button', cacheKey: null, cacheThreshold: -1, timeout: 0, type: 'any', zoom: false, verify: false, ai: {} }), /No open session/);
      // The agent route: B's own token, or A's token for another path, opens nothing.
      const throughB = new AgentClient({ ...sandboxA.agent, token: tokenB });
      await assert.rejects(throughB.call('GET', '/health'), (e: Error & { status?: number }) => e.status === 401 && /does not open sandbox/.test(e.message));
      throughB.close();
      const wrongPath = new AgentClient({ ...sandboxA.agent, basePath: sandboxA.agent.basePath!.replace(sandboxId, 'sbx-000000000000') });
      await assert.rejects(wrongPath.call('GET', '/health'), (e: Error & { status?: number }) => e.status === 401);
      wrongPath.close();
      const agentA = new AgentClient(sandboxA.agent);
      assert.equal((await agentA.call<{ id: string }>('GET', '/health')).id, sandboxId);
      agentA.close();

      // A's not-found screenshot and cache entries are A's alone.
      const read = async (token: string) => (await fetch(`${server.url}/v1/screenshots/${screenshotName}`, { headers: { authorization: `Bearer ${token}` } })).status;
      assert.equal(await read(tokenA), 200);
      assert.equal(await read(tokenB), 409);
      const db = openDb(it.stateDir);
      const keys = db.prepare('SELECT DISTINCT cache_key AS key FROM cache_entries').all() as { key: string }[];
      db.close();
      assert.deepEqual(keys.map((k) => k.key), ['team-1/shared']);
      await a.stopSandbox(sessionA, { keepAlive: 120_000 });
    } finally {
      a.close();
      b.close();
    }
  });

  test("a team's cache entry is a hit for another member on another machine, and survives a server restart with the sandbox", async () => {
    const port = Number(new URL(server.url).port);
    await server.close();
    server = await startServer({ host: '127.0.0.1', port, stateDir: it.stateDir });
    assert.deepEqual(server.reconciled, { alive: [sandboxId], ended: [] });

    const otherMachine = fs.mkdtempSync(path.join(path.dirname(it.stateDir), 'member-'));
    const member = new Client(keyOf(it.stateDir, 'default'), { apiRoot: server.url, stateDir: otherMachine, preview: 'none', logging: false, cacheKey: 'shared' });
    await member.auth();
    const instance = await member.connect({ sandboxId, keepAlive: 0 });
    try {
      assert.equal(instance.rejoined, true);
      const hit = await member.find('Export button');
      assert.equal(hit.cache.hit, true);
      // Its picture is where the client can open it: the entry in the console, not a file on the server's disk.
      assert.match(hit.cache.imageUrl!, new RegExp(`^${server.url}/console/cache/\\d+/crop\\.png$`));
    } finally {
      await member.disconnect();
    }
  });

  test('a session outlives a server restart: the next find opens it again on the same sandbox', async () => {
    const service = new RemoteService(server.url, it.clientDir);
    try {
      const token = (await service.auth(it.apiKey)).token;
      const sandbox = await service.createSandbox(token, SPEC);
      const agent = new AgentClient(sandbox.agent);
      await agent.call('POST', '/session', { keepAlive: 0 });
      await agent.call('POST', '/launch/chrome', { url: `${fixtures.url}/app/studio.html`, timeout: 30_000 }, 35_000);
      const session = (await service.openSession(token, sandbox.instance.instanceId, SETTINGS)).sessionId;
      const request = { description: 'Share button', cacheKey: null, cacheThreshold: -1, timeout: 0, type: 'any' as const, zoom: false, verify: false, ai: {} };
      const before = await service.locate(session, request);

      const port = Number(new URL(server.url).port);
      await server.close();
      // While the server is down, an action is refused with what became of it; a find waits for the server within its bound.
      await assert.rejects(agent.call('POST', '/click', { x: 5, y: 5 }), /the request was not sent, so it was not carried out/);
      const restarting = sleep(700).then(async () => { server = await startServer({ host: '127.0.0.1', port, stateDir: it.stateDir }); });
      const after = await service.locate(session, request);
      await restarting;
      assert.deepEqual(after.element!.box, before.element!.box);
      await service.stopSandbox(session, { keepAlive: 0 });
      agent.close();
    } finally {
      service.close();
    }
  });
});

test('a team at its sandbox limit queues connects first come, first served, fails them at their bound, and frees the slot of a dead agent', async () => {
  const it = await teamServer();
  const key = keyOf(it.stateDir, 'small', 1);
  const service = new RemoteService(it.server.url, it.clientDir);
  try {
    const token = (await service.auth(key)).token;
    const first = await service.createSandbox(token, SPEC);
    const started = Date.now();
    const refused = await service.createSandbox(token, { ...SPEC, connectTimeout: 1500 }).catch((e) => e);
    assert.ok(refused instanceof QuotaError, String(refused));
    assert.match(refused.message, /Team 'small' is at its limit of 1 sandbox at once; this connect waited 1\.\d s in the queue \(position 1 of 1\).*connectTimeout/);
    assert.ok(Date.now() - started < 4000, 'the wait kept to its bound');

    // A waiter gets the slot once the sandbox holding it ends.
    const waiting = service.createSandbox(token, { ...SPEC, connectTimeout: 60_000 });
    await sleep(300);
    const agent = new AgentClient(first.agent);
    await agent.call('POST', '/session', { keepAlive: 0 });
    const session = (await service.openSession(token, first.instance.instanceId, SETTINGS)).sessionId;
    await service.stopSandbox(session, { keepAlive: 0 });
    agent.close();
    const second = await waiting;
    assert.notEqual(second.instance.instanceId, first.instance.instanceId);

    // Its agent killed: the session fails clearly, and the slot comes free without anyone releasing it.
    const secondAgent = new AgentClient(second.agent);
    await secondAgent.call('POST', '/session', { keepAlive: 0 });
    const secondSession = (await service.openSession(token, second.instance.instanceId, SETTINGS)).sessionId;
    secondAgent.close();
    process.kill(new SandboxRegistry(it.stateDir).read(second.instance.instanceId)!.pid, 'SIGKILL');
    const request = { description: 'Anything', cacheKey: null, cacheThreshold: -1, timeout: 0, type: 'any' as const, zoom: false, verify: false, ai: {} };
    await assert.rejects(service.locate(secondSession, request), /Sandbox '.*' is gone: its agent ended or crashed/);
    const third = await service.createSandbox(token, { ...SPEC, connectTimeout: 10_000 });
    const thirdAgent = new AgentClient(third.agent);
    await thirdAgent.call('POST', '/release', { keepAlive: 0 });
    thirdAgent.close();
  } finally {
    service.close();
    await it.server.close();
    await stopSandboxes(it.stateDir);
  }
});

test('an agent of your own, registered with glance agents add, is reached through the server without its token, by its team only', async () => {
  const it = await teamServer();
  const teamB = keyOf(it.stateDir, 'b');
  const host = new RemoteService(it.server.url, it.clientDir);
  const token = 'own-agent-token-0123456789';
  let agent: ReturnType<typeof spawn> | null = null;
  try {
    // The machine of your own: a display (here a sandbox's) served by 'glance agent'.
    const display = (await host.createSandbox((await host.auth(it.apiKey)).token, SPEC)).instance.display!;
    agent = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'agent', '--listen', '127.0.0.1:0', '--display', display],
      { env: { ...process.env, GLANCE_AGENT_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) => agent!.stdout!.on('data', (c: Buffer) => { const m = /on 127\.0\.0\.1:(\d+)/.exec(String(c)); if (m) resolve(Number(m[1])); }));
    const add = (...extra: string[]) => spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'agents', 'add', `127.0.0.1:${port}`, '--token', token, '--team', 'default', '--state', it.stateDir, ...extra], { encoding: 'utf8' });
    // The agent says which desktop it serves: a registration that names another is refused.
    const wrongOs = add('--os', 'windows');
    assert.notEqual(wrongOs.status, 0);
    assert.match(wrongOs.stderr, /The agent at 127\.0\.0\.1:\d+ serves a linux desktop, not windows\. Register it with --os linux/);
    const added = add();
    assert.match(added.stdout, /Registered linux agent .* for team default/, added.stderr);
    const db = openDb(it.stateDir);
    const row = db.prepare('SELECT * FROM agents WHERE port = ?').get(port) as Record<string, unknown> | undefined;
    db.close();
    assert.ok(row, 'the agent is registered');
    assert.doesNotMatch(Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v))).join(' '), new RegExp(token), 'the token is not stored in clear');
    // Nor anywhere else: the database's file and the write-ahead log that the server's open connection has not yet copied back.
    const stored = ['glance.db', 'glance.db-wal'].map((name) => path.join(it.stateDir, name)).filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file).toString('latin1')).join('');
    assert.doesNotMatch(stored, new RegExp(token), 'the token is in no page of the database');

    delete process.env.GLANCE_AGENT_TOKEN;
    const own = new Client(it.apiKey, { apiRoot: it.server.url, stateDir: it.clientDir, preview: 'none', logging: false, ip: `127.0.0.1:${port}` });
    await own.auth();
    const instance = await own.connect();
    assert.equal(instance.provider, 'ip');
    assert.equal((await own.exec('sh', 'echo $DISPLAY')).trim(), display);
    await own.disconnect();

    const other = new Client(teamB, { apiRoot: it.server.url, stateDir: it.clientDir, preview: 'none', logging: false, ip: `127.0.0.1:${port}` });
    await other.auth();
    await assert.rejects(other.connect(), /No agent at 127\.0\.0\.1:\d+ is registered for your team/);
  } finally {
    agent?.kill('SIGTERM');
    host.close();
    await it.server.close();
    await stopSandboxes(it.stateDir);
  }
});
