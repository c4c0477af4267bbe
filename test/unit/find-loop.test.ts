import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineChain } from '../../lib/locate/chain';
import type { EngineContext, LocateEngine } from '../../lib/locate/engine';
import type { Screen } from '../../lib/types/screen';
import { RETRY_CEILING_MS, runFind } from '../../lib/service/find';
import type { CacheLookup } from '../../lib/cache/element-cache';

/** A 64x64 screen of one grey: the old page, then the new one. */
const screenOf = (grey: number): Screen => ({ width: 64, height: 64, data: Buffer.alloc(64 * 64 * 4, grey), format: 'bgrx' });

test('a page that paints while the tree is read is looked at afresh, before the slower engine reads the old one', async () => {
  const before = screenOf(255);
  const after = screenOf(40);
  let current = before;
  const slowReads: number[] = [];
  // The tree knows the new page's text only; the navigation paints while it answers.
  const tree: LocateEngine = {
    name: 'a11y', capabilities: ['text'], exact: true,
    locate: async (context: EngineContext) => {
      const onNewPage = context.screen.data[0] === 40;
      current = after;
      return onNewPage ? [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Account created', confidence: 1, engine: 'a11y', reason: 'the tree' }] : [];
    },
  };
  const pixels: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async (context: EngineContext) => { slowReads.push(context.screen.data[0]); return []; } };
  const outcome = await runFind({ chain: new EngineChain('auto', [tree, pixels]), capture: async () => current, sandbox: null, log: () => undefined },
    "'Account created'", { timeout: 2000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y');
  assert.deepEqual(slowReads, [], 'OCR never read the page that was gone');
  assert.equal(outcome.attempts, 2);
});

test('a screen that never holds still is still read by every engine after a few looks', async () => {
  let grey = 0;
  const slowReads: number[] = [];
  const tree: LocateEngine = { name: 'a11y', capabilities: ['text'], exact: true, locate: async () => [] };
  const pixels: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async (context: EngineContext) => { slowReads.push(context.screen.data[0]); return []; } };
  await runFind({ chain: new EngineChain('auto', [tree, pixels]), capture: async () => screenOf((grey += 10) % 250), sandbox: null, log: () => undefined },
    "'Spinner'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(slowReads.length, 1, 'OCR read the screen once the looks cut short ran out');
});

test('a slower engine still reading when the page paints is left, the new page is looked at at once, and the engines stop only after the read left behind', async () => {
  const before = screenOf(255);
  const after = screenOf(40);
  let current = before;
  let count = 0;
  const wakers: (() => void)[] = [];
  // The sandbox's change count: a wait on it ends when something is drawn.
  const changes = (since: number, timeoutMs: number) => new Promise<number>((resolve) => {
    if (count > since || timeoutMs <= 0) return resolve(count);
    const timer = setTimeout(() => resolve(count), timeoutMs);
    wakers.push(() => { clearTimeout(timer); resolve(count); });
  });
  const tree: LocateEngine = {
    name: 'a11y', capabilities: ['text'], exact: true,
    locate: async (context: EngineContext) => (context.screen.data[0] === 40
      ? [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Account created', confidence: 1, engine: 'a11y', reason: 'the tree' }] : []),
  };
  let slowFinished = false;
  let stoppedMidRead: boolean | null = null;
  const pixels: LocateEngine = {
    name: 'ocr', capabilities: ['text'],
    locate: async () => {
      setTimeout(() => { current = after; count++; wakers.splice(0).forEach((wake) => wake()); }, 50); // the page paints 50 ms into the read
      await new Promise((resolve) => setTimeout(resolve, 3000));
      slowFinished = true;
      return [];
    },
    // Stopped under a read, an engine would start its readers again for it, with nothing left to end them.
    stop: async () => { stoppedMidRead = !slowFinished; },
  };
  const chain = new EngineChain('auto', [tree, pixels]);
  const started = Date.now();
  const outcome = await runFind({ chain, capture: async () => current, changes, sandbox: null, log: () => undefined },
    "'Account created'", { timeout: 10_000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y');
  assert.equal(slowFinished, false, 'the find did not wait for the slow read of the old page');
  assert.ok(Date.now() - started < 1000, `found ${Date.now() - started} ms after the start`);
  await chain.stop();
  assert.equal(stoppedMidRead, false, 'the engine was stopped once the read left behind had ended');
});

/** The sandbox's change count, as the agent serves it, and a way to bump it. */
function changeCounter() {
  let count = 0;
  const wakers: (() => void)[] = [];
  return {
    changes: (since: number, timeoutMs: number) => new Promise<number>((resolve) => {
      if (count > since || timeoutMs <= 0) return resolve(count);
      const timer = setTimeout(() => resolve(count), timeoutMs);
      wakers.push(() => { clearTimeout(timer); resolve(count); });
    }),
    bump: () => { count++; wakers.splice(0).forEach((wake) => wake()); },
  };
}

const MISS: CacheLookup = { candidate: null, similarity: 0.88, info: { hit: false, strategy: 'miss', createdAt: '', diffPercent: 0, imageUrl: null } };
const cachedHit = (): CacheLookup => ({
  candidate: { box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Drawer ready', confidence: 1, engine: 'a11y', reason: 'cached' },
  similarity: 1, info: { hit: true, strategy: 'pixel-diff', createdAt: '', diffPercent: 0, imageUrl: null },
});

test('a screen that moves while the cache looks where the element stood is looked at afresh, not searched whole', async () => {
  const sliding = screenOf(120);
  const settled = screenOf(40);
  let current = sliding;
  const counter = changeCounter();
  const looks: [number, boolean][] = [];
  const engineReads: number[] = [];
  const lookup = (screen: Screen, wholeScreen: boolean): CacheLookup => {
    looks.push([screen.data[0], wholeScreen]);
    if (screen === sliding && !wholeScreen) {
      current = settled; // the drawer's last frame paints while the cache looks
      counter.bump();
    }
    return screen === settled ? cachedHit() : MISS;
  };
  const engine: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async (context: EngineContext) => { engineReads.push(context.screen.data[0]); return []; } };
  const outcome = await runFind({ chain: new EngineChain('auto', [engine]), capture: async () => current, changes: counter.changes, sandbox: null, log: () => undefined, lookup },
    "'Drawer ready'", { timeout: 5000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.reason, 'cached');
  assert.deepEqual(looks, [[120, false], [40, false]], 'no search of the whole sliding screen');
  assert.deepEqual(engineReads, [], 'no engine read the sliding screen');
});

test('on a screen that holds still, a cached element not where it stood is searched for over the whole screen once, then the engines look', async () => {
  const still = screenOf(200);
  const counter = changeCounter();
  const looks: [number, boolean][] = [];
  const engineReads: number[] = [];
  const lookup = (screen: Screen, wholeScreen: boolean): CacheLookup => { looks.push([screen.data[0], wholeScreen]); return MISS; };
  const engine: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async (context: EngineContext) => { engineReads.push(context.screen.data[0]); return []; } };
  const outcome = await runFind({ chain: new EngineChain('auto', [engine]), capture: async () => still, changes: counter.changes, sandbox: null, log: () => undefined, lookup },
    "'Drawer ready'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate, null);
  assert.deepEqual(looks, [[200, false], [200, true]]);
  assert.deepEqual(engineReads, [200]);
});

test('a look that expects no wait, cut short by a redraw that left the same pixels, is looked at again, not answered "not found"', async () => {
  // The page redraws what it showed (the X server counts a change, the pixels stay) while the cache looks.
  const toast = screenOf(90);
  const counter = changeCounter();
  let lookups = 0;
  const lookup = (): CacheLookup => { if (lookups++ === 0) counter.bump(); return MISS; };
  const engine: LocateEngine = {
    name: 'a11y', capabilities: ['text'], exact: true,
    locate: async () => [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Settings saved', confidence: 1, engine: 'a11y', reason: 'the tree' }],
  };
  const outcome = await runFind({ chain: new EngineChain('auto', [engine]), capture: async () => toast, changes: counter.changes, sandbox: null, log: () => undefined, lookup },
    "'Settings saved'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.text, 'Settings saved', outcome.rejection ?? '');
});

test('the engines warm once in the background until they stop, and stop waits for a warm-up under way', async () => {
  const events: string[] = [];
  const tree: LocateEngine = { name: 'a11y', capabilities: ['text'], exact: true, locate: async () => [], start: async () => { events.push('tree started'); } };
  const pixels: LocateEngine = {
    name: 'ocr', capabilities: ['text'], locate: async () => [],
    warm: async () => {
      events.push('ocr warming');
      await new Promise((resolve) => setTimeout(resolve, 200));
      events.push('ocr warm');
    },
    stop: async () => { events.push('ocr stopped'); },
  };
  const chain = new EngineChain('auto', [tree, pixels]);
  chain.warm();
  chain.warm();
  await chain.stop();
  // Stopped under the warm-up, the engine would end workers still starting, or start them after its stop.
  assert.deepEqual(events, ['tree started', 'ocr warming', 'ocr warm', 'ocr stopped']);
  events.length = 0;
  chain.warm();
  await chain.stop();
  assert.deepEqual(events, ['tree started', 'ocr warming', 'ocr warm', 'ocr stopped'], 'stopped engines warm again when asked');
});

test('a look that expects no wait, whose engine was stopped by a change that went again, is looked at again', async () => {
  // A frame drawn half-way (or a flash) while the tree is read: the slower engine is stopped, and the next capture is the first screen again.
  const toast = screenOf(90);
  const flash = screenOf(30);
  let captures = 0;
  const capture = async () => (captures++ === 1 ? flash : toast);
  const tree: LocateEngine = { name: 'a11y', capabilities: ['text'], exact: true, locate: async () => [] };
  const pixels: LocateEngine = {
    name: 'ocr', capabilities: ['text'],
    locate: async () => [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Settings saved', confidence: 0.9, engine: 'ocr', reason: 'read' }],
  };
  const outcome = await runFind({ chain: new EngineChain('auto', [tree, pixels]), capture, sandbox: null, log: () => undefined },
    "'Settings saved'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.text, 'Settings saved', outcome.rejection ?? '');
});

/** A miss on the screen the tree's element was cached on, the same but where it stood: it is not shown yet. */
const notShownYet = (): CacheLookup => ({ ...MISS, evictStale: () => undefined, foundBy: 'a11y' });

test('an element the tree found before, missing from its own screen, is waited for with the tree alone; it shows, and no pixel is read', async () => {
  const before = screenOf(200);
  const shown = screenOf(60);
  let current = before;
  const counter = changeCounter();
  setTimeout(() => { current = shown; counter.bump(); }, 300); // the list shows 300 ms after the find starts
  const pixelReads: number[] = [];
  const tree: LocateEngine = {
    name: 'a11y', capabilities: ['text'], exact: true,
    locate: async (context: EngineContext) => (context.screen === shown ? [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Website relaunch', confidence: 1, engine: 'a11y', reason: 'the tree' }] : []),
  };
  const pixels: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async (context: EngineContext) => { pixelReads.push(context.screen.data[0]); return []; } };
  const outcome = await runFind({ chain: new EngineChain('auto', [tree, pixels]), capture: async () => current, changes: counter.changes, sandbox: null, log: () => undefined, lookup: notShownYet },
    "'Website relaunch'", { timeout: 5000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y', outcome.rejection ?? '');
  assert.deepEqual(pixelReads, [], 'OCR never read a screen while the tree could answer');
});

test('an element the tree found before, that the tree no longer shows, is read off the pixels once the tree\'s window has closed, though the screen holds still', async () => {
  const still = screenOf(200);
  const counter = changeCounter();
  const pixelReadsAt: number[] = [];
  let treeAsked = 0;
  const tree: LocateEngine = { name: 'a11y', capabilities: ['text'], exact: true, locate: async () => { treeAsked++; return []; } };
  const pixels: LocateEngine = {
    name: 'ocr', capabilities: ['text'],
    locate: async () => { pixelReadsAt.push(Date.now() - started); return [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Website relaunch', confidence: 0.9, engine: 'ocr', reason: 'read' }]; },
  };
  const started = Date.now();
  const outcome = await runFind({ chain: new EngineChain('auto', [tree, pixels]), capture: async () => still, changes: counter.changes, sandbox: null, log: () => undefined, lookup: notShownYet },
    "'Website relaunch'", { timeout: 5000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'ocr', outcome.rejection ?? '');
  assert.equal(pixelReadsAt.length, 1);
  assert.ok(pixelReadsAt[0] >= 1900 && pixelReadsAt[0] < 2600, `the pixels were read when the window closed, not at the next 5 s look (${pixelReadsAt[0]} ms)`);
  assert.ok(treeAsked >= 1);
});

test('a find with no time to wait reads the pixels at once, cached element or not', async () => {
  const still = screenOf(200);
  const pixelReads: number[] = [];
  const tree: LocateEngine = { name: 'a11y', capabilities: ['text'], exact: true, locate: async () => [] };
  const pixels: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async (context: EngineContext) => { pixelReads.push(context.screen.data[0]); return []; } };
  const outcome = await runFind({ chain: new EngineChain('auto', [tree, pixels]), capture: async () => still, sandbox: null, log: () => undefined, lookup: notShownYet },
    "'Website relaunch'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate, null);
  assert.equal(outcome.refused, false);
  assert.deepEqual(pixelReads, [200]);
});

/** A tree engine whose reads begun before a capture are told apart: each gives the tree's version at its start. */
function treeReadEarly(version: () => string, events: string[], deadlines: number[] = []) {
  const tree: LocateEngine = {
    name: 'a11y', capabilities: ['text'], exact: true,
    beforeCapture: async (_sandbox, deadline) => { events.push('tree read begun'); deadlines.push(deadline); return version(); },
    locate: async (context: EngineContext) => {
      const early = context.early?.get(tree);
      events.push(early ? 'looked with the early read' : 'looked');
      const seen = early ? await early : version();
      return seen === 'shown' ? [{ box: { x: 10, y: 10, width: 20, height: 10 }, text: 'Order confirmed', confidence: 1, engine: 'a11y', reason: 'the tree' }] : [];
    },
  };
  return tree;
}

const aSandbox = { call: async () => ({}) } as never;

/** The screen and the tree of a page whose words show a moment later: either can change first, and each change is a drawing. */
function wordsShowingLater() {
  const scene = {
    screen: screenOf(200), tree: 'before', counter: changeCounter(), events: [] as string[],
    paint: () => { scene.screen = screenOf(60); scene.counter.bump(); },
    treeCatchesUp: () => { scene.tree = 'shown'; scene.counter.bump(); },
  };
  return scene;
}

test('a find waiting for an element the cache does not hold reads the tree while the next screen is captured, and asks for no mark after a wait', async () => {
  const scene = wordsShowingLater();
  const { events } = scene;
  const changes = (since: number, timeoutMs: number) => { if (since === -1) events.push('asked the count'); return scene.counter.changes(since, timeoutMs); };
  setTimeout(() => { scene.tree = 'shown'; scene.paint(); }, 200);
  const capture = async () => { events.push('captured'); return scene.screen; };
  const outcome = await runFind({ chain: new EngineChain('auto', [treeReadEarly(() => scene.tree, events)]), capture, changes, sandbox: aSandbox, log: () => undefined, lookup: () => MISS },
    "'Order confirmed'", { timeout: 5000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y', outcome.rejection ?? '');
  // The first look may be answered by the cache: the tree is read only once the engines are to look.
  // The count the wait ended on marks the second look: it is not asked for again.
  assert.deepEqual(events.filter((e) => e !== 'asked the count'), ['captured', 'looked', 'tree read begun', 'captured', 'looked with the early read']);
  assert.equal(events[events.indexOf('looked') + 1], 'tree read begun', events.join(', '));
});

test('a find with no cache to consult reads the tree while its first screen is captured, with a whole look\'s time though it does not wait', async () => {
  const events: string[] = [];
  const deadlines: number[] = [];
  const capture = async () => { events.push('captured'); return screenOf(200); };
  const started = Date.now();
  // A screen that holds still: the sandbox counts no drawing.
  const outcome = await runFind({ chain: new EngineChain('auto', [treeReadEarly(() => 'shown', events, deadlines)]), capture, changes: changeCounter().changes, sandbox: aSandbox, log: () => undefined },
    "'Order confirmed'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y', outcome.rejection ?? '');
  assert.deepEqual(events, ['tree read begun', 'captured', 'looked with the early read']);
  // Bounded by the find's own deadline (now), the tree's read would be cut to its shortest and miss what it had not reached.
  assert.ok(deadlines[0] - started >= RETRY_CEILING_MS, `the read's deadline ${deadlines[0] - started} ms after the start`);
});

test('a find on a screen captured before it reads no tree ahead: there is no capture to read beside', async () => {
  const events: string[] = [];
  const outcome = await runFind({ chain: new EngineChain('auto', [treeReadEarly(() => 'shown', events)]), capture: async () => screenOf(200), changes: changeCounter().changes, screenGiven: true, sandbox: aSandbox, log: () => undefined },
    "'Order confirmed'", { timeout: 0, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y', outcome.rejection ?? '');
  assert.deepEqual(events, ['looked']);
});

test('a find waiting for an element the cache holds reads no tree ahead: the cache may answer', async () => {
  const events: string[] = [];
  const counter = changeCounter();
  let current = screenOf(200);
  setTimeout(() => { current = screenOf(60); counter.bump(); }, 100);
  setTimeout(() => { current = screenOf(30); counter.bump(); }, 200);
  await runFind({ chain: new EngineChain('auto', [treeReadEarly(() => 'before', events)]), capture: async () => current, changes: counter.changes, sandbox: aSandbox, log: () => undefined, lookup: notShownYet },
    "'Order confirmed'", { timeout: 400, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.ok(events.length >= 3, `three looks (${events.join(', ')})`);
  assert.ok(!events.includes('tree read begun'), events.join(', '));
});

test('a tree read begun before its capture may be older than it: a drawing that leaves the same pixels still brings a look', async () => {
  const scene = wordsShowingLater();
  // The page paints; its tree catches up a moment later, with a redraw of the same pixels.
  setTimeout(scene.paint, 100);
  setTimeout(scene.treeCatchesUp, 250);
  const started = Date.now();
  const outcome = await runFind({ chain: new EngineChain('auto', [treeReadEarly(() => scene.tree, scene.events)]), capture: async () => scene.screen, changes: scene.counter.changes, sandbox: aSandbox, log: () => undefined, lookup: () => MISS },
    "'Order confirmed'", { timeout: 8000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y', outcome.rejection ?? '');
  assert.ok(Date.now() - started < 1000, `found at the tree's redraw, not at the next 5 s look (${Date.now() - started} ms)`);
});

test('with engines that read only pixels, a drawing that leaves the same pixels brings no look', async () => {
  let current = screenOf(200);
  const counter = changeCounter();
  let reads = 0;
  const pixels: LocateEngine = { name: 'ocr', capabilities: ['text'], locate: async () => { reads++; return []; } };
  setTimeout(() => { current = screenOf(60); counter.bump(); }, 50); // a look after a change: a waiting find's
  setTimeout(() => counter.bump(), 150); // a redraw of the same pixels
  await runFind({ chain: new EngineChain('ocr', [pixels]), capture: async () => current, changes: counter.changes, sandbox: aSandbox, log: () => undefined, lookup: () => MISS },
    "'Order confirmed'", { timeout: 400, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(reads, 2);
});

test('a page that paints under a slower engine\'s read: the tree is read from the drawing on, and the capture that saw the move is the next look\'s screen', async () => {
  const scene = wordsShowingLater();
  const { events } = scene;
  const changes = (since: number, timeoutMs: number) => { if (since === -1) events.push('asked the count'); return scene.counter.changes(since, timeoutMs); };
  const capture = async () => { events.push('captured'); return scene.screen; };
  let slowFinished = false;
  const pixels: LocateEngine = {
    name: 'ocr', capabilities: ['text'],
    locate: async () => {
      events.push('pixels read');
      setTimeout(() => { scene.tree = 'shown'; scene.paint(); }, 50); // the page paints 50 ms into the read
      await new Promise((resolve) => setTimeout(resolve, 2000));
      slowFinished = true;
      return [];
    },
  };
  const chain = new EngineChain('auto', [treeReadEarly(() => scene.tree, events), pixels]);
  const outcome = await runFind({ chain, capture, changes, sandbox: aSandbox, log: () => undefined, lookup: () => MISS },
    "'Order confirmed'", { timeout: 5000, type: null, zoom: false, verify: false, ai: {} } as never);
  assert.equal(outcome.candidate?.engine, 'a11y', outcome.rejection ?? '');
  assert.equal(slowFinished, false, 'the find did not wait for the read of the old page');
  // One capture a look: the second look's screen is the one captured when the read was left, after the tree's read began.
  const afterRead = events.slice(events.indexOf('pixels read') + 1).filter((e) => e !== 'asked the count');
  assert.deepEqual(afterRead, ['tree read begun', 'captured', 'looked with the early read'], events.join(', '));
  assert.equal(outcome.screen?.data[0], 60);
  await chain.stop();
});
