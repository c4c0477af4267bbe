import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { AgentClient } from '../../lib/sandbox/agent-client';
import { LocalProvider, reapLeftovers } from '../../lib/sandbox/local-provider';
import { processAlive, SandboxRecord, SandboxRegistry } from '../../lib/sandbox/registry';
import { serveFolder } from '../../lib/util/static-server';
import { waitFor } from '../../lib/util/wait';
import type { A11yNode, A11ySnapshot } from '../../lib/types/a11y';
import type { Box } from '../../lib/types/screen';
import { FIXTURES, REPO_ROOT, testState } from '../helpers/glance';

// The agent's accessibility snapshot, read from real programs in a real
// sandbox: Chromium on a page, GTK's widget factory, a Tk program.

interface Sandbox {
  agent: AgentClient;
  record: SandboxRecord;
  stop(): Promise<void>;
}

const state = testState();
const provider = new LocalProvider(new SandboxRegistry(state.stateDir));
const STOCKROOM = path.join(FIXTURES, 'bin', 'stockroom');

async function startSandbox(accessibility = true): Promise<Sandbox> {
  const record = await provider.create({ width: 1366, height: 768, keepAlive: 0, environment: {}, vnc: false, accessibility });
  const agent = new AgentClient({ host: '127.0.0.1', port: record.port, token: record.token });
  await agent.call('POST', '/session', { keepAlive: 0 });
  return {
    agent,
    record,
    stop: async () => {
      await agent.call('POST', '/terminate').catch(() => undefined);
      agent.close();
      await waitFor('the sandbox to stop', () => !processAlive(record.pid), { timeoutMs: 10_000, intervalMs: 50 });
      assert.equal(fs.existsSync(path.join(os.tmpdir(), `glance-${record.id}`)), false, 'the buses\' runtime folder is gone');
    },
  };
}

const find = (snapshot: A11ySnapshot, role: string, name: string) => snapshot.nodes.find((n) => n.role === role && n.name === name);
const centreIn = (node: A11yNode, box: Box) => {
  const x = node.box.x + node.box.width / 2;
  const y = node.box.y + node.box.height / 2;
  return x >= box.x && y >= box.y && x < box.x + box.width && y < box.y + box.height;
};
const inside = (inner: Box, outer: Box) => inner.x >= outer.x && inner.y >= outer.y
  && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;

function assertNear(actual: Box | undefined, [x, y, width, height]: number[], what: string): void {
  assert.ok(actual, `${what} is in the snapshot`);
  const off = Math.max(Math.abs(actual.x - x), Math.abs(actual.y - y), Math.abs(actual.width - width), Math.abs(actual.height - height));
  assert.ok(off <= 2, `${what}: ${JSON.stringify(actual)} is within 2 px of the page's ${JSON.stringify({ x, y, width, height })}`);
}

async function windows(agent: AgentClient) {
  return agent.call<{ title: string; className: string; pid: number | null; active: boolean }[]>('GET', '/windows');
}

let server: Awaited<ReturnType<typeof serveFolder>>;
let sandbox: Sandbox;

before(async () => {
  server = await serveFolder(path.join(REPO_ROOT, 'test', 'fixtures'));
  sandbox = await startSandbox();
});

after(async () => {
  await sandbox?.stop();
  await server?.close();
});

test('a sandbox with no program on the screen gives an empty snapshot', async () => {
  const snapshot = await sandbox.agent.a11ySnapshot();
  assert.deepEqual({ ...snapshot, tookMs: 0 }, { nodes: [], tookMs: 0, truncated: false, skipped: [] });
});

test('Chromium: the page\'s controls with their names, states, values and the DOM\'s boxes', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/launch/chrome', { url: `${server.url}/a11y/controls.html`, timeout: 30_000 });
  // The page writes its elements' boxes into its title once its cross-origin frame has loaded.
  const title = await waitFor('the page\'s boxes', async () => (await windows(agent)).find((w) => w.title.startsWith('{'))?.title, { timeoutMs: 10_000 });
  const dom = JSON.parse(title.replace(/ - Chromium$/, '')) as Record<string, number[]>;
  const snapshot = await waitFor('the frame\'s button in the tree', async () => {
    const s = await agent.a11ySnapshot();
    return find(s, 'push button', 'Inside frame') ? s : undefined;
  }, { timeoutMs: 10_000 });

  assert.equal(snapshot.truncated, false);
  assert.deepEqual(snapshot.skipped, []);
  const save = find(snapshot, 'push button', 'Save changes');
  assertNear(save?.box, dom.save, 'the Save changes button');
  assert.equal(save!.app, 'Chromium');
  assert.match(save!.window, /Chromium/);
  assert.ok(save!.states.includes('focusable'));
  assertNear(find(snapshot, 'push button', 'Search')?.box, dom.search, 'the icon button named by aria-label');
  assert.ok(find(snapshot, 'push button', 'Disabled action')?.states.includes('disabled'));
  assert.ok(find(snapshot, 'check box', 'I agree')?.states.includes('checked'));

  const field = find(snapshot, 'entry', 'Full name');
  assertNear(field?.box, dom.name, 'the text field');
  assert.equal(field!.value, 'Ada Lovelace');
  const label = snapshot.nodes.find((n) => field!.labelledBy.includes(n.path));
  assert.equal(label?.role, 'label', 'the field names its label');

  // Cut to what its scrolling container shows; the button scrolled away is not there at all.
  const [sx, sy, sw, sh] = dom.scroller;
  const [hx, hy, hw] = dom.half;
  assertNear(find(snapshot, 'push button', 'Half hidden')?.box, [hx, hy, hw, sy + sh - hy], 'the half-hidden button, clipped');
  assert.ok(sx <= hx);
  assert.equal(find(snapshot, 'push button', 'Scrolled away'), undefined);

  const [fx, fy, fw, fh] = dom.frame;
  const inFrame = find(snapshot, 'push button', 'Inside frame')!;
  assert.ok(inside(inFrame.box, { x: fx, y: fy, width: fw, height: fh }), 'the cross-origin frame\'s button lies in the frame');

  const paths = new Set(snapshot.nodes.map((n) => n.path));
  assert.equal(paths.size, snapshot.nodes.length, 'paths are unique');
  for (const node of snapshot.nodes) {
    assert.ok(node.parent === null || paths.has(node.parent), `${node.path}'s parent is in the snapshot`);
    assert.ok(inside(node.box, { x: 0, y: 0, width: 1366, height: 768 }), `${node.path} lies on the screen`);
  }
  const again = await agent.a11ySnapshot();
  assert.equal(find(again, 'push button', 'Save changes')?.path, save!.path, 'paths hold while the tree does not change');

  // An open drop-down shows its options in a popup window; Chromium keeps them under the drop-down.
  const [dx, dy, dw, dh] = dom.fruit;
  await agent.call('POST', '/pointer', { action: 'click', x: dx + dw / 2, y: dy + dh / 2 });
  const open = await waitFor('the open drop-down', async () => {
    const s = await agent.a11ySnapshot();
    return find(s, 'menu item', 'Cherry') ? s : undefined;
  }, { timeoutMs: 5_000 });
  const options = open.nodes.filter((n) => n.role === 'menu item');
  assert.deepEqual(options.map((n) => n.name), ['Apple', 'Banana', 'Cherry']);
  for (const option of options) assert.ok(option.box.y >= dy + dh - 2 && option.box.x >= dx - 2, `${option.name} lies below the drop-down: ${JSON.stringify(option.box)}`);
  await agent.call('POST', '/keys', { keys: ['escape'] });
  await waitFor('the drop-down to close', async () => !find(await agent.a11ySnapshot(), 'menu item', 'Cherry'), { timeoutMs: 5_000 });
});

test('GTK: the widget factory\'s buttons and labels lie in its window, which hides the page under it', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/launch/app', { command: 'gtk3-widget-factory', timeout: 30_000 });
  const snapshot = await waitFor('the widget factory\'s tree', async () => {
    const s = await agent.a11ySnapshot();
    return s.nodes.some((n) => n.app === 'gtk3-widget-factory' && n.role === 'push button') ? s : undefined;
  }, { timeoutMs: 10_000 });
  const own = snapshot.nodes.filter((n) => n.app === 'gtk3-widget-factory');
  const frame = own.find((n) => n.parent === null);
  assert.ok(frame, 'its window is in the snapshot');
  assert.equal(frame.window, 'gtk3-widget-factory', 'a window with no accessible name takes its X title');
  assert.ok(own.filter((n) => n.role === 'push button').length >= 3, 'push buttons');
  for (const name of ['Inset', 'Outset', 'Groove', 'Ridge']) assert.ok(find(snapshot, 'label', name), `the label '${name}'`);
  assert.ok(own.some((n) => n.role === 'check box' && n.states.includes('checked')), 'a checked check box');
  assert.ok(own.some((n) => n.role === 'slider' && n.value !== null), 'a slider with its value');
  for (const node of own) assert.ok(inside(node.box, frame.box), `${node.role} '${node.name}' lies in the window`);
  const covered = snapshot.nodes.filter((n) => n.app === 'Chromium' && centreIn(n, frame.box));
  assert.deepEqual(covered.map((n) => `${n.role} '${n.name}'`), [], 'nothing of the page under the window');
  assert.equal(find(snapshot, 'push button', 'Save changes'), undefined);
});

test('the window brought to the front hides the one that was over it', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/focus', { name: 'Chromium', timeout: 10_000 });
  const snapshot = await waitFor('the page in front', async () => {
    const s = await agent.a11ySnapshot();
    return find(s, 'push button', 'Save changes') ? s : undefined;
  }, { timeoutMs: 5_000 });
  assert.deepEqual(snapshot.nodes.filter((n) => n.app === 'gtk3-widget-factory').map((n) => n.path), []);
});

test('a Tk program publishes no tree, and still hides what it covers', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/apps/close');
  await agent.call('POST', '/launch/chrome', { url: `${server.url}/a11y/controls.html`, timeout: 30_000 });
  await waitFor('the page\'s tree', async () => find(await agent.a11ySnapshot(), 'push button', 'Save changes'), { timeoutMs: 10_000 });
  // Its window sits at 40,40, over the page's controls.
  await agent.call('POST', '/launch/app', { command: STOCKROOM, timeout: 30_000 });
  const snapshot = await agent.a11ySnapshot();
  assert.deepEqual(snapshot.skipped, []);
  assert.deepEqual(snapshot.nodes.filter((n) => n.app !== 'Chromium').map((n) => n.app), [], 'only the browser has a tree');
  assert.equal(find(snapshot, 'push button', 'Save changes'), undefined, 'the button under the Tk window is dropped');
});

test('a hung application is skipped within the bound and comes back when it answers again', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/apps/close');
  await agent.call('POST', '/launch/app', { command: 'gtk3-widget-factory', timeout: 30_000 });
  const pid = (await windows(agent)).find((w) => /widget-factory/.test(w.title))?.pid;
  assert.ok(pid, 'the widget factory\'s pid');
  await waitFor('the widget factory\'s tree', async () => (await agent.a11ySnapshot()).nodes.some((n) => n.app === 'gtk3-widget-factory'), { timeoutMs: 10_000 });
  await agent.call('POST', '/exec', { code: `kill -STOP ${pid}`, timeout: 5_000 });
  try {
    for (const idle of [300, 300]) {
      const started = Date.now();
      const snapshot = await agent.a11ySnapshot({ appIdleMs: idle, deadlineMs: 5_000 });
      const wall = Date.now() - started;
      assert.deepEqual(snapshot.skipped, ['gtk3-widget-factory']);
      assert.deepEqual(snapshot.nodes.filter((n) => n.app === 'gtk3-widget-factory'), []);
      assert.ok(wall < idle + 1_000, `the snapshot took ${wall} ms with an application silent for ${idle} ms`);
    }
  } finally {
    await agent.call('POST', '/exec', { code: `kill -CONT ${pid}`, timeout: 5_000 });
  }
  const resumed = await waitFor('the widget factory to answer again', async () => {
    const s = await agent.a11ySnapshot();
    return s.nodes.some((n) => n.app === 'gtk3-widget-factory') ? s : undefined;
  }, { timeoutMs: 10_000 });
  assert.deepEqual(resumed.skipped, []);
});

test('Qt: the configuration tool\'s buttons and tabs, and reading them does not crash it', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/apps/close');
  await agent.call('POST', '/launch/app', { command: 'qt5ct', timeout: 30_000 });
  const snapshot = await waitFor('the Qt tree', async () => {
    const s = await agent.a11ySnapshot();
    return find(s, 'push button', 'Apply') ? s : undefined;
  }, { timeoutMs: 10_000 });
  const own = snapshot.nodes.filter((n) => n.app === 'qt5ct');
  const window = own.find((n) => n.parent === null)!;
  assert.equal(window.window, 'Qt5 Configuration Tool');
  for (const name of ['OK', 'Cancel', 'Apply']) assert.ok(find(snapshot, 'push button', name), `the ${name} button`);
  assert.ok(find(snapshot, 'page tab', 'Appearance')?.states.includes('focusable'));
  for (const node of own) assert.ok(centreIn(node, window.box), `${node.role} '${node.name}' lies in the window`);
  // Toolkits differ in which calls they take; Qt 5 crashed on one the others answer.
  await agent.a11ySnapshot();
  assert.ok((await windows(agent)).some((w) => w.title === 'Qt5 Configuration Tool'), 'the program still runs');

  // Qt keeps an open combo box's list under the combo box, though it shows in a popup window of its own.
  const style = find(snapshot, 'combo box', 'Fusion')!;
  await agent.call('POST', '/pointer', { action: 'click', x: style.box.x + style.box.width / 2, y: style.box.y + style.box.height / 2 });
  // The popup window maps a moment after the list says it shows; until then the list lies in the main window.
  let last: A11yNode | undefined;
  const open = await waitFor('the open list in its popup', async () => {
    const s = await agent.a11ySnapshot();
    last = find(s, 'list item', 'Windows');
    return last && last.box.height >= 15 && last.box.width <= style.box.width + 2 ? s : undefined;
  }, { timeoutMs: 5_000 }).catch((error) => {
    throw new Error(`${error.message} The item's box: ${JSON.stringify(last?.box)}`);
  });
  assert.equal(find(open, 'combo box', 'Fusion'), undefined, 'the combo box under its list is hidden');
  await agent.call('POST', '/keys', { keys: ['escape'] });
});

test('GTK: an open combo box\'s menu is a window of its own over the one it came from', async () => {
  const { agent } = sandbox;
  await agent.call('POST', '/apps/close');
  await agent.call('POST', '/launch/app', { command: 'gtk3-widget-factory', timeout: 30_000 });
  const before = await waitFor('the widget factory\'s tree', async () => {
    const s = await agent.a11ySnapshot();
    return find(s, 'combo box', 'Left') ? s : undefined;
  }, { timeoutMs: 10_000 });
  const combo = find(before, 'combo box', 'Left')!;
  await agent.call('POST', '/pointer', { action: 'click', x: combo.box.x + combo.box.width / 2, y: combo.box.y + combo.box.height / 2 });
  // The menu opens with a short animation: its window settles first.
  let last: A11ySnapshot | undefined;
  const open = await waitFor('the open menu', async () => {
    const s = (last = await agent.a11ySnapshot());
    const menuWindow = s.nodes.find((n) => n.parent === null && n.role === 'window');
    const items = s.nodes.filter((n) => n.role === 'menu item');
    return menuWindow && items.length === 3 && items.every((n) => inside(n.box, menuWindow.box)) ? s : undefined;
  }, { timeoutMs: 5_000 }).catch((error) => {
    throw new Error(`${error.message} Last: ${JSON.stringify(last?.nodes.filter((n) => /menu|window/.test(n.role)))}`);
  });
  const items = open.nodes.filter((n) => n.role === 'menu item');
  assert.deepEqual(items.map((n) => n.name), ['Left', 'Middle', 'Right']);
  assert.equal(find(open, 'combo box', 'Left'), undefined, 'the combo box under the menu is hidden');
  await agent.call('POST', '/keys', { keys: ['escape'] });
});

test('the node bound cuts the snapshot short and says so', async () => {
  const snapshot = await sandbox.agent.a11ySnapshot({ maxNodes: 10 });
  assert.equal(snapshot.nodes.length <= 10, true, `${snapshot.nodes.length} nodes`);
  assert.equal(snapshot.truncated, true);
  await assert.rejects(sandbox.agent.a11ySnapshot({ maxNodes: -1 }), /'maxNodes' must be a number from 1/);
  await assert.rejects(sandbox.agent.call('POST', '/a11y', { texts: 'Save changes' }), /'texts' must be a list of at most 8 texts/);
  const viaQuery = await sandbox.agent.call<A11ySnapshot>('GET', '/a11y?maxNodes=5&deadlineMs=2000');
  assert.ok(viaQuery.nodes.length <= 5 && viaQuery.truncated, 'GET takes the bounds in its query');
});

test('a sandbox without the accessibility bus gives an empty snapshot, not an error', async () => {
  const bare = await startSandbox(false);
  try {
    await bare.agent.call('POST', '/launch/app', { command: 'gtk3-widget-factory', timeout: 30_000 });
    const snapshot = await bare.agent.a11ySnapshot();
    assert.deepEqual(snapshot.nodes, []);
    assert.deepEqual(snapshot.skipped, []);
  } finally {
    await bare.stop();
  }
});

/** The processes that belong to a sandbox's buses: their command line or environment names its runtime folder. */
function busProcesses(id: string): string[] {
  const marker = `/glance-${id}`;
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (cmdline.includes(marker) || environ.includes(`XDG_RUNTIME_DIR=${os.tmpdir()}${marker}/run\0`)) found.push(`${pid} ${cmdline.split('\0').join(' ').slice(0, 100)}`);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

test('a supervisor killed outright takes its buses with it once its X server is reaped', async () => {
  const doomed = await startSandbox();
  const { id, pid } = doomed.record;
  // A snapshot asks the registry, so that it runs too (the accessibility bus starts it on demand).
  await doomed.agent.a11ySnapshot();
  doomed.agent.close();
  assert.ok(busProcesses(id).length >= 4, `the session bus, the launcher, the accessibility bus and the registry run: ${busProcesses(id).join('; ')}`);
  process.kill(pid, 'SIGKILL');
  await waitFor('the supervisor to die', () => !processAlive(pid), { timeoutMs: 5_000, intervalMs: 20 });
  reapLeftovers(doomed.record);
  await waitFor('the buses to end', () => busProcesses(id).length === 0, { timeoutMs: 10_000, intervalMs: 100 }).catch(() => undefined);
  assert.deepEqual(busProcesses(id), []);
  assert.equal(fs.existsSync(path.join(os.tmpdir(), `glance-${id}`)), false, 'reaping removes the buses\' runtime folder');
});
