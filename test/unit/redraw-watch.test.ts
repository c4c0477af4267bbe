import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHANGE_WINDOW_MS, RedrawWatch } from '../../lib/sandbox/agent/redraw';
import { NO_PAGES, PageActivity } from '../../lib/sandbox/agent/page-loads';

const SIDE = 64;
function frameOf(colour: number) {
  const data = Buffer.alloc(SIDE * SIDE * 4);
  for (let i = 0; i < data.length; i += 4) data.writeUInt32LE(colour, i);
  return { width: SIDE, height: SIDE, data };
}
const OLD_PAGE = frameOf(0xf4f4f4);
const NEW_PAGE = frameOf(0x2b6cb0);

/** A screen that shows the old page until `paintsAfterMs` past the action, then the new one. */
function screenPaintingAfter(paintsAfterMs: number) {
  let actedAt = Infinity;
  return {
    act: () => { actedAt = Date.now(); },
    capture: async () => (Date.now() - actedAt >= paintsAfterMs ? NEW_PAGE : OLD_PAGE),
  };
}

/**
 * What a busy agent hears of a click whose handler navigates (the order seen
 * in Chromium's DevTools events): the page's report of the click and the
 * whole load, started and stopped, all in one turn of its event loop, before
 * the new page is on the screen. No look ever sees the page loading.
 */
function loadHeardAllAtOnce(heardAfterMs: number, askedAt: () => number): PageActivity {
  let heard = false;
  return {
    ...NO_PAGES,
    hasBrowser: () => true,
    loadingSince: () => false,
    loadedSince: (since) => heard && askedAt() >= since,
    inputHandled: () => new Promise((resolve) => setTimeout(() => { heard = true; resolve(); }, heardAfterMs)),
  };
}

const REQUEST = { threshold: 0.05, network: false, timeoutMs: 3000 };

test('redraw: a load the agent heard of only once it had finished still has its page awaited on the screen', async () => {
  const screen = screenPaintingAfter(250);
  let askedAt = 0;
  const watch = new RedrawWatch(screen.capture, async () => true, loadHeardAllAtOnce(180, () => askedAt));
  await watch.mark('click');
  screen.act();
  askedAt = Date.now();
  const outcome = await watch.wait('click', REQUEST);
  assert.equal(outcome.changed, true, `the load counted as the click's redraw (${JSON.stringify(outcome)})`);
  assert.equal(await screen.capture(), NEW_PAGE, 'the wait returned with the new page on the screen');
});

test('redraw: a load asked for before the action is not taken for its redraw', async () => {
  const screen = screenPaintingAfter(Infinity);
  const askedBefore = Date.now() - 1000;
  const watch = new RedrawWatch(screen.capture, async () => true, loadHeardAllAtOnce(20, () => askedBefore));
  await watch.mark('click');
  screen.act();
  const outcome = await watch.wait('click', REQUEST);
  assert.equal(outcome.changed, false, 'nothing changed');
  assert.ok(outcome.waitedMs < 20 + CHANGE_WINDOW_MS + 150, `the wait ended once the page had handled the click (${outcome.waitedMs} ms)`);
});
