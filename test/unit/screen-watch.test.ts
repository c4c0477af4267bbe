import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Screen } from '../../lib/types/screen';
import { ScreenWatch } from '../../lib/service/screen-watch';

/** A 64x64 screen of one grey. */
const screenOf = (grey: number): Screen => ({ width: 64, height: 64, data: Buffer.alloc(64 * 64 * 4, grey), format: 'bgrx' });

test('a check made while the watch is still looking at a change waits for that look, and says the screen moved', async () => {
  let count = 0;
  const wakers: (() => void)[] = [];
  let captures = 0;
  let finishCapture: (() => void) | null = null;
  const newPage = screenOf(40);
  const watch = new ScreenWatch({
    // The sandbox's change count, as the agent serves it.
    changes: (after, timeoutMs) => new Promise<number>((resolve) => {
      if (count > after || timeoutMs <= 0) return resolve(count);
      const timer = setTimeout(() => resolve(count), timeoutMs);
      wakers.push(() => { clearTimeout(timer); resolve(count); });
    }),
    // A capture that takes its time: the watch's look is under way when the check comes.
    capture: () => {
      captures++;
      return new Promise<Screen>((resolve) => { finishCapture = () => resolve(newPage); });
    },
  });
  const stale = watch.staleness(screenOf(255), 0);
  try {
    assert.equal(await stale.check(), false, 'nothing was drawn yet');
    count = 1; // the page paints
    for (const wake of wakers.splice(0)) wake();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(captures, 1, 'the watch looks at the change');
    const checked = stale.check();
    setImmediate(() => finishCapture!());
    assert.equal(await checked, true, 'the check heard of the look the watch had under way');
    assert.equal(stale.signal.aborted, true);
    assert.equal(captures, 1, 'the check did not look again');
  } finally {
    stale.stop();
    for (const wake of wakers.splice(0)) wake();
  }
});
