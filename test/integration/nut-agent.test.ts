import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { ChildProcess, spawn } from 'child_process';
import { Client } from '../../lib/sdk';
import { fixtureServer, newClient, REPO_ROOT, testState } from '../helpers/glance';
import { openDb } from '../../lib/store/db';
import { registerAgent } from '../../lib/service/agent-registry';

// The agent's second desktop driver, nut-js (what it runs on Windows and
// macOS), for real against an X display: a sandbox's, served by
// 'glance agent --driver nut'. The client's surface works through it as
// through the X11 driver: screenshots, input, find, exec, launch, the clip.

const state = testState();
const token = 'nut-agent-token-'.padEnd(32, 'n');
let host: Client;
let agent: ChildProcess;
let port: number;
let pages: Awaited<ReturnType<typeof fixtureServer>>;

before(async () => {
  pages = await fixtureServer();
  host = newClient(state);
  await host.auth();
  await host.connect({ keepAlive: 0 });
  agent = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'agent', '--driver', 'nut', '--listen', '127.0.0.1:0', '--display', host.getInstance()!.display!], {
    env: { ...process.env, GLANCE_AGENT_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  port = await new Promise<number>((resolve, reject) => {
    let out = '';
    agent.stdout!.on('data', (d: Buffer) => { out += d; const m = / on 127\.0\.0\.1:(\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    agent.stderr!.on('data', (d: Buffer) => { out += d; });
    agent.once('exit', (code) => reject(new Error(`the agent exited with ${code}: ${out}`)));
  });
});

after(async () => {
  // Stopped before its display goes: an agent whose display went first cannot clean up (Xlib ends it).
  const exited = !agent || agent.exitCode !== null || agent.signalCode !== null ? null : new Promise((resolve) => agent.once('exit', resolve));
  agent?.kill('SIGTERM');
  await exited;
  await host?.disconnect();
  await pages?.close();
});

/** A client of the nut-driven agent, by its address and token. */
async function nutClient(): Promise<Client> {
  process.env.GLANCE_AGENT_TOKEN = token;
  try {
    const client = newClient(state, { ip: `127.0.0.1:${port}`, dashcam: true });
    await client.auth();
    await client.connect();
    return client;
  } finally {
    delete process.env.GLANCE_AGENT_TOKEN;
  }
}

/**
 * The fixture pages' states, which they mirror into their titles, read
 * through the host sandbox's own agent: an observer outside the agent under test.
 */
async function pageStates(): Promise<Record<string, any>[]> {
  const windows = await host.requireAgent().call<{ title: string }[]>('GET', '/windows');
  return windows.flatMap((w) => {
    try { return [JSON.parse(w.title.replace(/ - Chromium$/, ''))]; } catch { return []; }
  });
}

/** Waits until one of the fixture pages shows the state. */
async function until(check: (s: Record<string, any>) => boolean): Promise<Record<string, any>> {
  let last: Record<string, any>[] = [];
  for (const end = Date.now() + 5_000; Date.now() < end;) {
    last = await pageStates();
    const met = last.find(check);
    if (met) return met;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no page reached the state; last: ${JSON.stringify(last)}`);
}

test('through the nut driver: the screen, pages launched, a find and its click, typing into a field, a chord, exec, and the clip', async () => {
  const client = await nutClient();
  try {
    const health = await client.requireAgent().call<{ driver: string; os: string; width: number; height: number }>('GET', '/health');
    assert.deepEqual({ driver: health.driver, os: health.os, width: health.width, height: health.height }, { driver: 'nut', os: 'linux', width: 1366, height: 768 });
    const shot = await client.screenshot('nut-screen');
    assert.ok(fs.statSync(shot).size > 1000, 'a screenshot through nut-js');

    await client.provision.chrome({ url: `${pages.url}/app/users.html` });
    const add = await client.find('Add user button');
    assert.ok(add.found(), 'found on the screen nut-js grabbed');
    await client.provision.chrome({ url: `${pages.url}/input-lab.html` });
    await client.find('Toggle colour button').click();
    await until((s) => s.clicks === 1 && s.on === true);
    await client.type('typed by nut', { into: { x: 300, y: 178 } });
    const typed = await until((s) => String(s.value ?? '').endsWith('typed by nut'));
    assert.ok(String(typed.value).endsWith('typed by nut'));
    await client.pressKeys(['ctrl+a']);
    await until((s) => s.combo === 'ctrl+a');
    await client.pressKeys(['backspace']);
    await until((s) => s.value === '');

    assert.equal((await client.exec('sh', 'echo "$DISPLAY"')).trim(), host.getInstance()!.display);
  } finally {
    await client.disconnect();
  }
  const clip = client.getRecording();
  assert.ok(clip && fs.statSync(clip.file).size > 1000, 'the dashcam recorded the desktop the agent serves');
});

test("through the nut driver: the same pixels as the X11 driver's capture, double and right clicks, a drag's press and release, key repeats, and the wheel", async () => {
  const client = await nutClient();
  try {
    // A still page, with no field whose caret blinks between the two grabs: both drivers grab the same
    // display, and must agree to the pixel (the fourth byte is unused).
    await client.provision.chrome({ url: `${pages.url}/app/users.html` });
    const [nut, x11] = [await client.requireAgent().screenRaw(), await host.requireAgent().screenRaw()];
    assert.deepEqual([nut.width, nut.height], [x11.width, x11.height]);
    let differing = 0;
    for (let i = 0; i < nut.data.length; i += 4) if (nut.data[i] !== x11.data[i] || nut.data[i + 1] !== x11.data[i + 1] || nut.data[i + 2] !== x11.data[i + 2]) differing++;
    assert.equal(differing, 0, `${differing} pixels differ between the nut and X11 captures`);

    await client.provision.chrome({ url: `${pages.url}/input-lab.html` });

    const agent = client.requireAgent();
    await agent.call('POST', '/pointer', { action: 'double-click', x: 600, y: 400 });
    await until((s) => s.combo === 'dblclick');
    await agent.call('POST', '/pointer', { action: 'right-click', x: 600, y: 400 });
    await until((s) => s.combo === 'contextmenu');
    await agent.call('POST', '/pointer', { action: 'mouse-down', x: 160, y: 80 });
    // This page's own state: it alone saw the right-click.
    await until((s) => s.clicks === 1 && s.combo === 'contextmenu');
    await agent.call('POST', '/pointer', { action: 'mouse-up', x: 160, y: 80 });
    await client.type('abc', { into: { x: 300, y: 178 } });
    await until((s) => s.value === 'abc' && s.combo === 'contextmenu');
    await client.pressKeys(['backspace'], { times: 2 });
    await until((s) => s.value === 'a' && s.combo === 'contextmenu');

    await client.provision.chrome({ url: `${pages.url}/scroll-lab.html` });
    await client.scroll('down', { amount: 240, x: 600, y: 400 });
    await until((s) => s.y === 240);
  } finally {
    await client.disconnect();
  }
});

test("connect({ os: 'windows' }) says how to add a windows agent when none is registered, goes to a registered one, and not to one in use", async () => {
  const windows = () => newClient(state, { os: 'windows', dashcam: false });
  const first = windows();
  await first.auth();
  const refused = await first.connect().then(() => null, (e: Error) => e);
  assert.match(String(refused), /os 'windows' needs a windows machine running the Glance agent, and none is registered for your team: .*glance agents add HOST:PORT --token T --os windows --team NAME/);

  // No Windows machine runs here: the nut-driven agent's row is written as a windows machine's
  // ('glance agents add' itself checks the os the agent reports; see server.test.ts).
  const health = await fetch(`http://127.0.0.1:${port}/health`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<{ id: string }>);
  const db = openDb(state.stateDir);
  try {
    registerAgent(db, state.stateDir, { agentId: health.id, host: '127.0.0.1', port, teamId: null, token, os: 'windows' });
  } finally {
    db.close();
  }
  const instance = await first.connect();
  assert.equal(instance.provider, 'ip');
  assert.equal(instance.instanceId, health.id, 'the windows connect reached the registered agent, without its token');
  try {
    const second = windows();
    await second.auth();
    assert.match(String(await second.connect().then(() => null, (e: Error) => e)), /Every windows agent registered for your team is in use \(127\.0\.0\.1:\d+\)/);
  } finally {
    await first.disconnect();
  }
});
