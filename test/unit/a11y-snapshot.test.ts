import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StackedWindow } from '../../lib/sandbox/agent/driver';
import { State } from '../../lib/sandbox/agent/a11y/atspi';
import { toSnapshotNodes, visibleBox } from '../../lib/sandbox/agent/a11y/nodes';
import { Occlusion, stackIndexOf } from '../../lib/sandbox/agent/a11y/occlusion';
import { A11yReader } from '../../lib/sandbox/agent/a11y/snapshot';
import type { RawNode } from '../../lib/sandbox/agent/a11y/tree';
import { OutOfTime } from '../../lib/sandbox/agent/a11y/tree';
import { Watchdog } from '../../lib/sandbox/agent/a11y/watchdog';
import { paragraphShift, paragraphsOf } from '../../lib/sandbox/agent/a11y/text-ranges';
import type { Box } from '../../lib/types/screen';

const SCREEN = { x: 0, y: 0, width: 1366, height: 768 };
const showing = [(1 << State.SHOWING) | (1 << State.ENABLED) | (1 << State.SENSITIVE), 0];

function node(path: string, role: string, extents: Box | null, parent: RawNode | null, extra: Partial<RawNode> = {}): RawNode {
  return {
    ref: [':1.5', `/obj/${path}`], path: `:1.5/${path}`, parent, role, name: role, description: '', states: showing,
    extents, value: null, labelledBy: [], clips: false, ...extra,
  };
}

const window = (id: number, box: Box, pid: number | null = 42, title = '', managed = true): StackedWindow => ({ id, box, pid, title, managed });

test('a box is cut to the screen and to scrolling ancestors, not to any container', () => {
  const frame = node('0', 'frame', { x: 0, y: 0, width: 800, height: 600 }, null);
  const pane = node('0/0', 'scroll pane', { x: 10, y: 10, width: 200, height: 100 }, frame);
  const row = node('0/0/0', 'list item', { x: 10, y: 80, width: 200, height: 60 }, pane);
  assert.deepEqual(visibleBox(row, SCREEN), { x: 10, y: 80, width: 200, height: 30 });

  const section = node('0/1', 'section', { x: 300, y: 10, width: 100, height: 20 }, frame);
  const menu = node('0/1/0', 'menu item', { x: 300, y: 30, width: 100, height: 40 }, section);
  assert.deepEqual(visibleBox(menu, SCREEN), { x: 300, y: 30, width: 100, height: 40 }, 'a drop-down overflows its small parent');
  section.clips = true;
  assert.equal(visibleBox(menu, SCREEN), null, 'unless the parent hides children of its own: then it scrolls');

  const offScreen = node('0/2', 'push button', { x: 1360, y: 700, width: 40, height: 100 }, frame);
  assert.equal(visibleBox(offScreen, SCREEN), null, 'outside the window');
  assert.equal(visibleBox(node('0/3', 'push button', null, frame), SCREEN), null, 'no box at all');
});

test('an accessible window is matched to the X window that frames it, its owner\'s first', () => {
  const stack = [window(1, { x: 0, y: 0, width: 1366, height: 768 }, 7), window(2, { x: 95, y: 80, width: 410, height: 330 }, 42), window(3, { x: 95, y: 80, width: 410, height: 330 }, 9)];
  assert.equal(stackIndexOf({ x: 100, y: 100, width: 400, height: 300 }, 42, stack), 1);
  assert.equal(stackIndexOf({ x: 100, y: 100, width: 400, height: 300 }, 9, stack), 2);
  assert.equal(stackIndexOf({ x: 900, y: 600, width: 50, height: 50 }, 42, stack), -1);
});

test('windows above hide what lies under their area; a window X does not show hides all of it', () => {
  const stack = [window(1, { x: 0, y: 0, width: 800, height: 600 }), window(2, { x: 400, y: 300, width: 400, height: 300 }, 99, 'Dialog')];
  const occlusion = new Occlusion(stack, 42);
  const frame = node('0', 'frame', { x: 0, y: 0, width: 800, height: 600 }, null, { name: '' });
  const hidden = node('0/0', 'push button', { x: 500, y: 400, width: 80, height: 30 }, frame);
  const half = node('0/1', 'push button', { x: 380, y: 280, width: 60, height: 60 }, frame);
  const seen = node('0/2', 'push button', { x: 10, y: 10, width: 80, height: 30 }, frame);
  assert.equal(occlusion.hidesAll(hidden), true);
  assert.equal(occlusion.hidesAll(half), false);
  assert.equal(occlusion.hidesAll(frame), false);
  const ghost = node('1', 'frame', { x: 60, y: 0, width: 180, height: 70 }, null);
  assert.equal(occlusion.hidesAll(ghost), true, 'a popup the toolkit keeps but X does not show');

  const nodes = toSnapshotNodes([{ name: 'app', label: 'app', nodes: [frame, hidden, half, seen], complete: true, textBoxes: [], occlusion }], SCREEN);
  // The frame's centre is under the dialog too: what is left of it shows in its children.
  assert.deepEqual(nodes.map((n) => n.path), [':1.5/0/2'], 'the half-covered button\'s centre is under the dialog');
  assert.equal(nodes[0].window, '', 'no title from X for a window without one');
  assert.equal(nodes[0].parent, null, 'no ancestor is in the snapshot');
});

test('a node\'s parent is its nearest ancestor in the snapshot', () => {
  const occlusion = new Occlusion([], null);
  const frame = node('0', 'frame', { x: 0, y: 0, width: 800, height: 600 }, null);
  const filler = node('0/0', 'filler', null, frame);
  const button = node('0/0/0', 'push button', { x: 10, y: 10, width: 80, height: 30 }, filler, { labelledBy: [[':1.5', '/obj/0']] });
  const [, kept] = toSnapshotNodes([{ name: 'app', label: 'app', nodes: [frame, filler, button], complete: true, textBoxes: [], occlusion }], SCREEN);
  assert.equal(kept.parent, ':1.5/0');
  assert.deepEqual(kept.labelledBy, [':1.5/0']);
  assert.deepEqual(kept.states, []);
});

test('without a session bus, or with one that is not there, the snapshot is empty', async () => {
  const screen = { width: 1366, height: 768, stack: async () => [] };
  for (const address of [undefined, 'unix:path=/nonexistent/glance-test-bus']) {
    const reader = new A11yReader(address, screen);
    const snapshot = await reader.snapshot({ deadlineMs: 500 });
    assert.deepEqual({ ...snapshot, tookMs: 0 }, { nodes: [], tookMs: 0, truncated: false, skipped: [] });
    assert.ok(snapshot.tookMs < 500);
    reader.close();
  }
});

test('the watchdog gives out after a silence, not while answers come, and at the deadline in any case', async () => {
  const silent = new Watchdog(50, Date.now() + 5_000);
  await assert.rejects(silent.expired, (e: unknown) => e instanceof OutOfTime);

  const fed = new Watchdog(60, Date.now() + 5_000);
  const feeding = setInterval(() => fed.feed(), 20);
  const outcome = await Promise.race([fed.expired.then(() => 'expired', () => 'expired'), new Promise((r) => setTimeout(() => r('alive'), 200))]);
  clearInterval(feeding);
  fed.stop();
  assert.equal(outcome, 'alive');

  const capped = new Watchdog(10_000, Date.now() + 50);
  const started = Date.now();
  await assert.rejects(capped.expired, /deadline/);
  assert.ok(Date.now() - started < 1_000);
});

test('a popup of the application\'s own that its tree keeps under the widget that opened it (Qt) shows that content', () => {
  const frameBox = { x: 100, y: 100, width: 600, height: 400 };
  const popupBox = { x: 200, y: 160, width: 90, height: 50 };
  const stack = [window(1, frameBox, 42, 'Settings'), window(2, popupBox, 42, '', false)];
  const occlusion = new Occlusion(stack, 42);
  const frame = node('0', 'frame', frameBox, null);
  const combo = node('0/0', 'combo box', { x: 200, y: 170, width: 90, height: 24 }, frame);
  const list = node('0/0/0', 'list', { x: 200, y: 160, width: 200, height: 50 }, combo);
  const item = node('0/0/0/0', 'list item', { x: 201, y: 161, width: 199, height: 23 }, list);
  const under = node('0/1', 'push button', { x: 210, y: 180, width: 40, height: 20 }, frame);
  assert.equal(occlusion.hidesAll(combo), false, 'the popup may hold the combo box\'s own list');
  const nodes = toSnapshotNodes([{ name: 'app', label: 'app', nodes: [frame, combo, list, item, under], complete: true, textBoxes: [], occlusion }], SCREEN);
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  assert.deepEqual(byPath.get(':1.5/0/0/0/0')?.box, { x: 201, y: 161, width: 89, height: 23 }, 'the item, cut to the popup');
  assert.equal(byPath.has(':1.5/0/1'), false, 'a button under the popup is hidden');
  assert.equal(byPath.has(':1.5/0/0'), false, 'so is the combo box');

  // A popup the tree has a window with content for (GTK) hosts nothing else; an empty one (Chromium's) stands for nothing.
  const gtkPopup = node('1', 'window', popupBox, null);
  const gtkMenu = node('1/0', 'menu', popupBox, gtkPopup);
  const claimed = new Occlusion(stack, 42);
  const gtk = toSnapshotNodes([{ name: 'app', label: 'app', nodes: [frame, combo, list, item, under, gtkPopup, gtkMenu], complete: true, textBoxes: [], occlusion: claimed }], SCREEN);
  assert.equal(gtk.find((n) => n.path === ':1.5/0/0/0/0')?.box.width, 199, 'the item is not taken for the popup\'s content');
  assert.ok(gtk.some((n) => n.path === ':1.5/1/0'));
  const empty = new Occlusion(stack, 42);
  const chromium = toSnapshotNodes([{ name: 'app', label: 'app', nodes: [frame, combo, list, item, under, gtkPopup], complete: true, textBoxes: [], occlusion: empty }], SCREEN);
  assert.equal(chromium.find((n) => n.path === ':1.5/0/0/0/0')?.box.width, 89, 'an empty window leaves the popup to the content under the drop-down');
});

test("Qt's paragraph-relative character boxes are moved to their lines; a wrapped paragraph counts all its lines; a text that may scroll gives none", async () => {
  // 'ab\ncd ef\ng' as Qt reports it: every paragraph on the first line (y 100), the second one wrapped after 'cd '.
  const qt: Box[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({ x: 10 + i, y: i >= 6 && i <= 7 ? 115 : 100, width: 8, height: 15 }));
  const charBox = async (offset: number): Promise<Box> => qt[offset];
  const shift = await paragraphShift('ab\ncd ef\ng', charBox, async () => ({ x: 0, y: 100, width: 200, height: 100 }));
  assert.deepEqual([0, 3, 6, 9].map((offset) => shift!(offset)), [0, 15, 15, 45], 'the third paragraph comes after the second one\'s two lines');
  assert.equal(await paragraphShift('ab\ncd ef\ng', charBox, async () => ({ x: 0, y: 100, width: 200, height: 40 })), null);
  // Boxes that already stand on their lines are left as they are.
  const right = await paragraphShift('ab\ncd', async (offset) => ({ x: 10, y: offset >= 3 ? 115 : 100, width: 8, height: 15 }), async () => ({ x: 0, y: 0, width: 10, height: 10 }));
  assert.deepEqual([0, 4].map((offset) => right!(offset)), [0, 0]);
  assert.deepEqual(paragraphsOf('ab\n\ncd'), [{ start: 0, end: 2 }, { start: 3, end: 3 }, { start: 4, end: 6 }]);
});
