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

/**
 * A browser animating for `runsMs` after the action, one frame every 16 ms,
 * that draws nothing between `stallFromMs` and `stallToMs` (a starved
 * machine): the screen holds still in the middle of the animation, and the
 * pages draw their next frames only once the stall is over.
 */
function animationThatStalls(runsMs: number, stallFromMs: number, stallToMs: number) {
  let actedAt = Infinity;
  const since = () => Date.now() - actedAt;
  const frameAt = (ms: number) => {
    if (ms < 0) return 0;
    const drawn = ms >= stallFromMs && ms < stallToMs ? stallFromMs : Math.min(ms, runsMs);
    return Math.floor(drawn / 16) + 1;
  };
  const pages: PageActivity = {
    ...NO_PAGES,
    hasBrowser: () => true,
    framesDrawn: () => {
      // Two frames from now: none is drawn while the machine stalls, so an ask whose frames fall in the stall waits for its end.
      const at = since();
      const drawsFrom = at < stallToMs && at + 33 > stallFromMs ? stallToMs : at;
      return new Promise((resolve) => setTimeout(resolve, drawsFrom - at + 33));
    },
  };
  return {
    act: () => { actedAt = Date.now(); },
    capture: async () => frameOf(0x100000 + frameAt(since())),
    pages,
  };
}

test('redraw: a screen that holds still because the machine draws no frames is not taken as settled', async () => {
  const screen = animationThatStalls(500, 150, 260);
  const watch = new RedrawWatch(screen.capture, async () => true, screen.pages);
  await watch.mark('click');
  screen.act();
  const outcome = await watch.wait('click', REQUEST);
  assert.equal(outcome.changed, true);
  assert.equal(outcome.settled, true, `the animation ended and the screen settled (${JSON.stringify(outcome)})`);
  assert.ok(outcome.waitedMs >= 500, `the wait outlasted the 110 ms without frames, to the animation's end (${outcome.waitedMs} ms)`);
});

test('redraw: a click the page reports late is awaited on the screen after the report, not taken as changing nothing', async () => {
  // A page just opened handles its first click late: it reports it 60 ms on, and its change shows 15 ms after.
  const screen = screenPaintingAfter(75);
  const pages: PageActivity = { ...NO_PAGES, hasBrowser: () => true, inputHandled: () => new Promise((resolve) => setTimeout(resolve, 60)) };
  const watch = new RedrawWatch(screen.capture, async () => true, pages);
  await watch.mark('click');
  screen.act();
  const outcome = await watch.wait('click', REQUEST);
  assert.equal(outcome.changed, true, `the change after the report counted (${JSON.stringify(outcome)})`);
  assert.equal(await screen.capture(), NEW_PAGE);
});
