import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureOnChange, pauseUntilDrawn, ScreenChanges } from '../../lib/sandbox/agent/screen-changes';

/** A screen whose captures are counted; `draw` changes it the way the X server would report it, or not at all. */
function countedScreen(changes: ScreenChanges | null) {
  let pixels = 0;
  let captures = 0;
  return {
    driver: { changes, capture: async () => { captures++; return { width: 1, height: 1, data: Buffer.from([pixels, 0, 0, 0]) }; } },
    draw: () => { pixels++; changes?.bump(); },
    captures: () => captures,
  };
}

test('a look at a screen with no drawing reported since the last capture costs no capture, and one after a drawing does', async () => {
  const screen = countedScreen(new ScreenChanges());
  const look = captureOnChange(screen.driver);
  const first = await look();
  assert.equal(await look(), first, 'the same frame, with nothing drawn');
  assert.equal(screen.captures(), 1);
  screen.draw();
  const after = await look();
  assert.equal(screen.captures(), 2);
  assert.equal(after.data[0], 1, 'the drawing is in the new capture');
});

test('a drawing the X server reports only once asked for a round trip is counted before the look decides', async () => {
  // The report of a drawing done just before the look is still on its way: the round trip brings it in.
  let drawnUnreported = false;
  const changes: ScreenChanges = new ScreenChanges(async () => { if (drawnUnreported) { drawnUnreported = false; changes.bump(); } });
  const screen = countedScreen(changes);
  const look = captureOnChange(screen.driver);
  await look();
  drawnUnreported = true;
  await look();
  assert.equal(screen.captures(), 2);
});

test('a desktop that reports no drawings is captured at every look', async () => {
  const screen = countedScreen(null);
  const look = captureOnChange(screen.driver);
  await look();
  await look();
  assert.equal(screen.captures(), 2);
});

test('a pause between looks ends at the next drawing reported, and at its time when none is', async () => {
  const changes = new ScreenChanges();
  const pause = pauseUntilDrawn({ changes });
  const ended = (p: Promise<void>) => Promise.race([p.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still pausing'), 2000))]);
  const long = pause(60_000);
  setTimeout(() => changes.bump(), 20);
  assert.equal(await ended(long), 'ended', 'a drawing ended a minute-long pause');
  assert.equal(await ended(pause(10)), 'ended', 'with nothing drawn, the pause ends after its time');
  assert.equal(await ended(pauseUntilDrawn({ changes: null })(10)), 'ended', 'a desktop that reports nothing sleeps');
});

test("a wait that ignores a caret is neither ended nor counted by a caret's blink, and is by anything more", async () => {
  const changes = new ScreenChanges();
  const mark = await changes.counted();
  const started = Date.now();
  const waiting = changes.next(mark, 150, true);
  setTimeout(() => changes.bump(true), 10);
  setTimeout(() => changes.bump(Promise.resolve(true)), 30);
  assert.equal(await waiting, mark, 'the two blinks are not counted');
  assert.ok(Date.now() - started >= 140, `the wait ran to its bound (${Date.now() - started} ms)`);
  assert.equal(changes.current, mark + 2, 'every drawing is counted where the caret counts');
  // The same blink ends a wait for any drawing at once.
  const plain = changes.next(mark + 2, 60_000);
  changes.bump(true);
  assert.equal(await plain, mark + 3);
  // Anything more ends it, counted with the blinks before it: a screen captured after the count holds them all.
  // A drawing still being judged ends it once judged; one that could not be judged counts as more.
  for (const judged of [false, Promise.resolve(false), Promise.reject(new Error('the area could not be read'))]) {
    const before = await changes.next(-1, 0, true);
    const wait = changes.next(before, 60_000, true);
    changes.bump(judged);
    assert.equal(await wait, changes.current);
    assert.ok(changes.current > before);
  }
  // A drawing judged late, after a later one was counted, does not take the count back.
  const since = changes.current;
  let judge: (caret: boolean) => void = () => undefined;
  changes.bump(new Promise<boolean>((resolve) => { judge = resolve; }));
  changes.bump(false);
  changes.bump(true);
  judge(false);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await changes.next(since, 60_000, true), since + 2);
});
