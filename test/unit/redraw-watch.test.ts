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

/** A screen that shows the old page until `paintsAfterMs` past the action, then the new one (`newPage`). */
function screenPaintingAfter(paintsAfterMs: number, newPage = NEW_PAGE) {
  let actedAt = Infinity;
  return {
    act: () => { actedAt = Date.now(); },
    capture: async () => (Date.now() - actedAt >= paintsAfterMs ? newPage : OLD_PAGE),
    /** The pages' next two frames: the new page's first ones, once it paints (a frame is 16 ms). */
    framesDrawn: () => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, actedAt + paintsAfterMs - Date.now()) + 16)),
  };
}

/**
 * What a busy agent hears of a click whose handler navigates (the order seen
 * in Chromium's DevTools events): the page's report of the click and the
 * whole load, started and stopped, all in one turn of its event loop, before
 * the new page is on the screen. No look ever sees the page loading.
 */
function loadHeardAllAtOnce(heardAfterMs: number, askedAt: () => number, framesDrawn = NO_PAGES.framesDrawn): PageActivity {
  let heard = false;
  return {
    ...NO_PAGES,
    hasBrowser: () => true,
    loadingSince: () => false,
    loadedSince: (since) => heard && askedAt() >= since,
    inputReported: () => new Promise<void>((resolve) => setTimeout(() => { heard = true; resolve(); }, heardAfterMs)),
    framesDrawn,
  };
}

const REQUEST = { threshold: 0.05, network: false, timeoutMs: 3000 };

/** A click whose load the agent hears of, all at once, `heardAfterMs` on, and whose page paints `paintsAfterMs` on: the wait's outcome. */
async function navigatingClick(paintsAfterMs: number, heardAfterMs: number, newPage = NEW_PAGE) {
  const screen = screenPaintingAfter(paintsAfterMs, newPage);
  let askedAt = 0;
  const watch = new RedrawWatch(screen.capture, async () => true, loadHeardAllAtOnce(heardAfterMs, () => askedAt, screen.framesDrawn));
  await watch.mark('click');
  screen.act();
  askedAt = Date.now();
  return { outcome: await watch.wait('click', REQUEST), shown: await screen.capture() };
}

test('redraw: a load the agent heard of only once it had finished still has its page awaited on the screen', async () => {
  const { outcome, shown } = await navigatingClick(250, 180);
  assert.equal(outcome.changed, true, `the load counted as the click's redraw (${JSON.stringify(outcome)})`);
  assert.equal(shown, NEW_PAGE, 'the wait returned with the new page on the screen');
});

test('redraw: a new page that looks much like the old one is awaited until it has drawn, not for the whole paint bound', async () => {
  // The next page differs from the old one in a few words: less than the threshold, as after a link to a similar page.
  const lookAlike = frameOf(0xf4f4f4);
  lookAlike.data.writeUInt32LE(0x202020, 0);
  const { outcome, shown } = await navigatingClick(120, 90, lookAlike);
  assert.equal(shown, lookAlike, 'the wait returned with the new page on the screen');
  assert.ok(outcome.waitedMs < 350, `the wait ended once the new page had drawn and held still, well before 500 ms past the load (${outcome.waitedMs} ms)`);
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
  const pages: PageActivity = { ...NO_PAGES, hasBrowser: () => true, inputReported: () => new Promise((resolve) => setTimeout(resolve, 60)) };
  const watch = new RedrawWatch(screen.capture, async () => true, pages);
  await watch.mark('click');
  screen.act();
  const outcome = await watch.wait('click', REQUEST);
  assert.equal(outcome.changed, true, `the change after the report counted (${JSON.stringify(outcome)})`);
  assert.equal(await screen.capture(), NEW_PAGE);
});

test('redraw: what a page drew as it reported the click, shown a frame later, is awaited', async () => {
  // The click shows at once; the page reports it 100 ms on, and what its handler drew last reaches the screen 10 ms after the report.
  const FIRST = frameOf(0x3366aa);
  const LAST = frameOf(0x22aa66);
  let actedAt = Infinity;
  const capture = async () => {
    const since = Date.now() - actedAt;
    return since >= 110 ? LAST : since >= 10 ? FIRST : OLD_PAGE;
  };
  const pages: PageActivity = { ...NO_PAGES, hasBrowser: () => true, inputReported: () => new Promise((resolve) => setTimeout(resolve, 100)) };
  const watch = new RedrawWatch(capture, async () => true, pages);
  await watch.mark('click');
  actedAt = Date.now();
  const outcome = await watch.wait('click', REQUEST);
  assert.equal(outcome.changed, true);
  assert.equal(await capture(), LAST, `the wait returned with the handler's last drawing on the screen (${outcome.waitedMs} ms)`);
  assert.ok(Date.now() - actedAt >= 110 + 50, 'and once it had held still after it');
});

test('redraw: on a still page, the frames awaited are asked for after the page\'s report, and the click returns no sooner than the window after the report and a look a frame after the frames', async () => {
  const still = frameOf(0xf4f4f4);
  let actedAt = Infinity;
  let reportedAt = Infinity;
  let framesAskedAt = Infinity;
  let drawnAt = Infinity;
  const pages: PageActivity = {
    ...NO_PAGES,
    hasBrowser: () => true,
    inputReported: () => new Promise((resolve) => setTimeout(() => { reportedAt = Date.now(); resolve(); }, 20)),
    framesDrawn: () => {
      framesAskedAt = Date.now();
      return new Promise((resolve) => setTimeout(() => { drawnAt = Date.now(); resolve(); }, 60));
    },
  };
  const watch = new RedrawWatch(async () => still, async () => true, pages);
  await watch.mark('click');
  actedAt = Date.now();
  const outcome = await watch.wait('click', REQUEST);
  const returnedAt = Date.now();
  assert.equal(outcome.changed, false);
  assert.ok(framesAskedAt >= reportedAt, 'the frames were asked for once the page had reported the click');
  assert.ok(returnedAt - reportedAt >= CHANGE_WINDOW_MS, `the window for a change ran from the report (${returnedAt - reportedAt} ms)`);
  assert.ok(returnedAt - drawnAt >= 17, `and a look a frame after the frames was taken (${returnedAt - drawnAt} ms after them)`);
  assert.ok(returnedAt - actedAt < 1000, 'ended on the frames, not on the input\'s bound');
});
