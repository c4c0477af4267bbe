import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { spawn } from 'child_process';
import { Client, SandboxError } from '../../lib/sdk';
import { processAlive, SandboxRegistry } from '../../lib/sandbox/registry';
import { REPO_ROOT, cleanupAfterFile, newClient, testState } from '../helpers/glance';
import { sleep, waitFor } from '../../lib/util/wait';
import { childrenOf } from '../../lib/sandbox/agent/program-reaper';
import { sandboxRuntimeDir } from '../../lib/sandbox/runtime-dir';

// A plain script the suite's runner also loads (scripts/test.js).
const { desktopProcesses } = require('../helpers/processes.js') as { desktopProcesses(): Record<string, string> };

const state = testState();
const registry = new SandboxRegistry(state.stateDir);
const cleanup = cleanupAfterFile(state, after);

async function connected(options: Parameters<typeof newClient>[1] = {}, keepAlive = 0): Promise<Client> {
  const client = newClient(state, options);
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive });
  return client;
}

test('a new sandbox is recorded as last-sandbox and in the registry (mode 0600)', async () => {
  const client = await connected();
  const instance = client.getInstance()!;
  assert.match(instance.instanceId, /^sbx-[0-9a-f]{12}$/);
  assert.equal(instance.rejoined, false);
  assert.equal(typeof instance.agentPort, 'number');
  assert.equal(fs.readFileSync(path.join(state.stateDir, 'last-sandbox'), 'utf8').trim(), instance.instanceId);
  const file = path.join(state.stateDir, 'sandboxes', `${instance.instanceId}.json`);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.ok(client.getSessionId()!.startsWith(instance.instanceId));
  await client.disconnect();
});

test('a sandbox with the preview and the dashcam: a real preview and VNC port, the click\'s redraw watched, a clip kept, and no warning', async () => {
  const client = newClient(state, { preview: 'ide', dashcam: true });
  cleanup.push(client);
  const warnings: string[] = [];
  const redraws: unknown[] = [];
  client.getEmitter().on('log:warn', (line: string) => warnings.push(line));
  client.getEmitter().on('command:success', (event: { command: string; redraw?: unknown }) => { if (event.command === 'click') redraws.push(event.redraw); });
  await client.auth();
  await client.connect({ keepAlive: 0 });
  assert.match(client.getPreviewUrl() ?? '', /^http:\/\/127\.0\.0\.1:\d+\/#key=/);
  assert.ok(client.getInstance()!.vncPort, 'a preview sandbox has a real VNC port');
  await client.click(5, 5);
  await client.disconnect();
  assert.equal(redraws.length, 1);
  assert.equal(typeof (redraws[0] as { waitedMs?: unknown } | undefined)?.waitedMs, 'number', 'the click waited for its redraw');
  assert.ok(client.getRecording(), 'the dashcam kept a clip');
  assert.deepEqual(warnings, []);
});

test('keepAlive: 0 stops the sandbox before disconnect returns, and leaves no temporary files behind', async () => {
  const client = await connected();
  const record = registry.read(client.getInstance()!.instanceId)!;
  const chromiumTemp = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('org.chromium.Chromium.'));
  const before = new Set(chromiumTemp());
  // A killed Chromium leaves its singleton socket's folder in TMPDIR: the sandbox gives it one of its own.
  await client.provision.chrome({ url: 'data:text/html,<h1>temporary</h1>' });
  await client.disconnect();
  // Ended by the time disconnect returns: a caller may remove the state folder at once.
  assert.equal(processAlive(record.pid), false, 'the supervisor has exited');
  assert.equal(processAlive(record.xvfbPid), false, 'the X server has exited');
  assert.match(fs.readFileSync(path.join(record.workDir, 'agent.log'), 'utf8'), / stopped: released with keepAlive 0\n$/);
  assert.equal(registry.read(record.id)!.state, 'stopped');
  assert.deepEqual(chromiumTemp().filter((name) => !before.has(name)), []);
  assert.equal(fs.existsSync(path.join(os.tmpdir(), `glance-${record.id}`)), false);
});

test('keepAlive N: rejoinable by sandboxId within N ms, stopped after, with a clear error', async () => {
  const first = await connected({}, 2500);
  await first.provision.chrome({ url: 'data:text/html,<title>kept</title><h1>kept</h1>' });
  const id = first.getInstance()!.instanceId;
  await first.disconnect();

  const again = await connected({ sandboxId: id }, 1500);
  assert.equal(again.getInstance()!.instanceId, id);
  assert.equal(again.getInstance()!.rejoined, true);
  const windows = await again.requireAgent().call<unknown[]>('GET', '/windows');
  await again.provision.chrome({ url: 'data:text/html,<h1>skipped</h1>' });
  assert.equal((await again.requireAgent().call<unknown[]>('GET', '/windows')).length, windows.length, 'provision was skipped');
  await again.disconnect();

  await sleep(2500);
  const late = newClient(state, { sandboxId: id });
  await late.auth();
  await assert.rejects(late.connect(), (e: Error) =>
    e instanceof SandboxError && e.message.includes(id) && /keepAlive of 1500 ms expired/.test(e.message) && /start a new one/.test(e.message));
  await late.disconnect();
});

test('reconnect: true rejoins the last sandbox and skips provisioning', async () => {
  const first = await connected({}, 10_000);
  const id = first.getInstance()!.instanceId;
  await first.disconnect();
  const started = Date.now();
  const again = await connected({ reconnect: true });
  assert.equal(again.getInstance()!.instanceId, id);
  assert.equal(again.getInstance()!.rejoined, true);
  const logs: string[] = [];
  again.getEmitter().on('log:info', (line: string) => logs.push(line));
  await again.provision.app({ command: 'xmessage never' });
  assert.ok(logs.some((l) => /Skipped provision.app/.test(l)));
  assert.ok(Date.now() - started < 2000);
  await again.disconnect();
});

test('a stale or unknown sandbox id fails clearly, never a blank new sandbox', async () => {
  const unknown = newClient(state, { sandboxId: 'sbx-000000000000' });
  await unknown.auth();
  await assert.rejects(unknown.connect(), /No sandbox with id 'sbx-000000000000'/);
  assert.equal(unknown.getInstance(), null);

  const victim = await connected({}, 60_000);
  const record = registry.read(victim.getInstance()!.instanceId)!;
  process.kill(record.pid, 'SIGKILL'); // the supervisor dies without cleaning up
  await waitFor('the supervisor to die', () => !processAlive(record.pid), { timeoutMs: 3000 });
  const rejoin = newClient(state, { sandboxId: record.id });
  await rejoin.auth();
  await assert.rejects(rejoin.connect(), /is gone \(its agent process is gone\)/);
  await waitFor('the orphaned X server to be reaped', () => !processAlive(record.xvfbPid), { timeoutMs: 3000 });
  await victim.disconnect(); // safe even though the sandbox is gone
});

test('a supervisor that dies outright takes its X server, window manager and browser with it, before anything reaps them; the next sandbox removes its folder', async () => {
  const victim = await connected({}, 60_000);
  await victim.provision.chrome({ url: 'about:blank' });
  const record = registry.read(victim.getInstance()!.instanceId)!;
  // The supervisor's descendants, read while it lives to be their ancestor.
  const family = new Set([record.pid]);
  for (const pid of family) for (const child of childrenOf(pid)) family.add(child);
  const desktop = Object.entries(desktopProcesses()).filter(([pid]) => family.has(Number(pid)));
  for (const name of ['Xvfb', 'openbox', 'chromium']) assert.ok(desktop.some(([, cmd]) => cmd.includes(name)), `${name} runs: ${JSON.stringify(desktop)}`);
  process.kill(record.pid, 'SIGKILL'); // no cleanup, and nobody rejoins to reap what is left
  const left = () => desktop.filter(([pid]) => processAlive(Number(pid)));
  await waitFor('the desktop to end with its supervisor', () => left().length === 0, { timeoutMs: 10_000, intervalMs: 50 })
    .catch(() => assert.fail(`still running: ${JSON.stringify(left())}`));
  // Its folder (home, browser profile) is left; the next sandbox started on this machine removes it.
  const folder = sandboxRuntimeDir(record.id);
  assert.ok(fs.existsSync(folder), 'nothing has removed the folder yet');
  const next = await connected();
  await waitFor('the next sandbox to remove the dead one\'s folder', () => !fs.existsSync(folder), { timeoutMs: 5000, intervalMs: 20 })
    .catch(() => assert.fail(`${folder} is still there`));
  assert.ok(fs.existsSync(sandboxRuntimeDir(next.getInstance()!.instanceId)), 'the live sandbox keeps its own');
  await next.disconnect();
  await victim.disconnect();
});

test('two sandboxes run at once, each on its own display and port', async () => {
  const [a, b] = await Promise.all([connected(), connected()]);
  const [ia, ib] = [a.getInstance()!, b.getInstance()!];
  assert.notEqual(ia.display, ib.display);
  assert.notEqual(ia.agentPort, ib.agentPort);
  assert.equal((await a.exec('sh', 'echo $DISPLAY')).trim(), ia.display);
  assert.equal((await b.exec('sh', 'echo $DISPLAY')).trim(), ib.display);
  await Promise.all([a.disconnect(), b.disconnect()]);
});

test('debugOnFailure keeps a failed sandbox alive and prints its id', async () => {
  const client = await connected({ debugOnFailure: true }, 0);
  const id = client.getInstance()!.instanceId;
  const printed: string[] = [];
  const original = console.log;
  console.log = (line: string) => printed.push(line);
  try {
    client.markFailed('assertion failed');
  } finally {
    console.log = original;
  }
  assert.ok(printed.some((l) => l.includes(id) && l.includes(`GLANCE_SANDBOX_ID=${id}`)));
  await client.disconnect();
  await sleep(500);
  const record = registry.read(id)!;
  assert.ok(processAlive(record.pid), 'kept alive despite keepAlive 0');
  const rejoin = await connected({ sandboxId: id }, 0);
  await rejoin.disconnect();
  await waitFor('the debug sandbox to stop', () => !processAlive(record.pid), { timeoutMs: 5000 });
});

const SELF_HOSTED_TOKEN = 'self-hosted-token-0123456789';

/** `glance agent` on `display`, resolved once it serves; `exited` resolves to its exit code. */
async function selfHostedAgent(display: string, listen = '127.0.0.1:0') {
  const agent = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/glance.js'), 'agent', '--listen', listen, '--display', display], {
    env: { ...process.env, GLANCE_AGENT_TOKEN: SELF_HOSTED_TOKEN }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => agent.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    agent.stdout!.once('data', () => resolve());
    agent.once('exit', (code) => reject(new Error(`the agent exited with ${code} before serving`)));
  });
  return { agent, exited };
}

test('connect({ip}) attaches to a self-hosted agent, which survives disconnect', async () => {
  const host = await connected();
  const display = host.getInstance()!.display!;
  const { agent, exited } = await selfHostedAgent(display, '127.0.0.1:47981');
  try {
    process.env.GLANCE_AGENT_TOKEN = SELF_HOSTED_TOKEN;
    const remote = await connected({ ip: '127.0.0.1:47981' });
    assert.equal(remote.getInstance()!.provider, 'ip');
    assert.equal((await remote.exec('sh', 'echo $DISPLAY')).trim(), display);
    // Its programs' temp files go with its work folder: none are left in the machine's temp folder.
    assert.equal((await remote.exec('sh', 'echo $TMPDIR')).trim(), path.join(agentFolders().get(agent.pid!)!, 'tmp'));
    await remote.disconnect();
    assert.equal(agent.exitCode, null, 'the self-hosted agent keeps running');
    const wrong = newClient(state, { ip: '127.0.0.1:47981' });
    process.env.GLANCE_AGENT_TOKEN = 'wrong-token-wrong-token';
    await wrong.auth();
    await assert.rejects(wrong.connect(), /Could not reach a Glance agent.*wrong agent token/);
  } finally {
    delete process.env.GLANCE_AGENT_TOKEN;
    agent.kill('SIGTERM');
    await exited; // before its display goes
    await host.disconnect();
  }
});

/** The work folders of self-hosted agents in the temp folder, by the pid their owner note names. */
function agentFolders(): Map<number, string> {
  const folders = new Map<number, string>();
  for (const name of fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('glance-agent-'))) {
    try {
      folders.set(Number(fs.readFileSync(path.join(os.tmpdir(), name, '.glance-owner'), 'utf8').split(' ')[0]), path.join(os.tmpdir(), name));
    } catch { /* no note */ }
  }
  return folders;
}

test('a self-hosted agent killed outright leaves its folder to the next agent, which removes it; one stopped after its display went removes its own', async () => {
  const host = await connected();
  const display = host.getInstance()!.display!;
  const first = await selfHostedAgent(display);
  const folder = agentFolders().get(first.agent.pid!);
  assert.ok(folder && fs.existsSync(folder), `the agent noted its folder: ${JSON.stringify([...agentFolders()])}`);
  first.agent.kill('SIGKILL');
  await first.exited;
  assert.ok(fs.existsSync(folder), 'nothing has removed the folder yet');

  const second = await selfHostedAgent(display);
  try {
    assert.equal(fs.existsSync(folder), false, 'the next agent removed the killed one\'s folder');
    const own = agentFolders().get(second.agent.pid!);
    assert.ok(own && fs.existsSync(own));
    await host.disconnect(); // its display goes first: the X server answers nothing any more
    second.agent.kill('SIGTERM');
    assert.equal(await second.exited, 0);
    assert.equal(fs.existsSync(own), false, 'the stopped agent removed its own folder');
  } finally {
    second.agent.kill('SIGKILL');
    await host.disconnect();
  }
});

test('autoScreenshots saves before and after each command with the spec file names', async () => {
  const client = await connected({ autoScreenshots: true });
  await client.provision.chrome({ url: 'data:text/html,<input autofocus>' }); // typing needs a window with the keyboard focus
  await client.click(10, 10);
  await client.type('topsecret', { secret: true });
  await client.flushScreenshots(); // encoded off the hot path: on disk once flushed (disconnect() flushes too)
  const dir = path.join(state.stateDir, 'screenshots', 'lifecycle.test');
  const files = fs.readdirSync(dir).sort();
  assert.ok(files.some((f) => /^\d{4}-click-before-L\d+-10x10\.png$/.test(f)), files.join(', '));
  assert.ok(files.some((f) => /^\d{4}-click-after-L\d+-10x10\.png$/.test(f)));
  assert.ok(files.some((f) => /^\d{4}-type-after-L\d+-secret\.png$/.test(f)));
  assert.ok(files.every((f) => !f.includes('topsecret')));
  await client.disconnect();
});
