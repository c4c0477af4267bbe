import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import type { Screen } from '../../lib/types/screen';
import { endPreparation, prepareScreen } from '../../lib/locate/ocr/prepare-thread';
import { prepareGrey, toGrey } from '../../lib/locate/ocr/preprocess';
import { keyedPiecesOf } from '../../lib/locate/ocr/bands';
import { waitFor } from '../../lib/util/wait';

/** A screen with a dark bar holding light text-like strokes, and dark strokes on the light page. */
function sampleScreen(format: Screen['format']): Screen {
  const width = 320, height = 200;
  const data = Buffer.alloc(width * height * 4, 245);
  const paint = (x0: number, y0: number, w: number, h: number, rgb: [number, number, number]) => {
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) {
      const i = (y * width + x) * 4;
      const [r, g, b] = rgb;
      if (format === 'bgrx') [data[i], data[i + 1], data[i + 2]] = [b, g, r];
      else [data[i], data[i + 1], data[i + 2]] = [r, g, b];
    }
  };
  paint(0, 0, width, 48, [30, 60, 160]);
  for (let k = 0; k < 8; k++) paint(20 + k * 12, 16, 3, 16, [250, 250, 250]);
  for (let k = 0; k < 8; k++) paint(20 + k * 12, 100, 3, 16, [20, 20, 20]);
  paint(10, 150, 300, 1, [120, 120, 120]); // a thin border, erased
  return { width, height, data, format };
}

test('a screen prepared on its own thread is the one prepared here, cut into the same pieces, in either pixel order, and the thread starts again after it ends', async () => {
  try {
    for (const format of ['bgrx', 'rgba'] as const) {
      const screen = sampleScreen(format);
      const kept = Buffer.from(screen.data);
      const { grey, prepared, pieces } = await prepareScreen(screen);
      const expectedGrey = toGrey(screen, format);
      const expectedPrepared = prepareGrey(expectedGrey);
      assert.deepEqual(Buffer.from(grey.data), Buffer.from(expectedGrey.data), `${format}: the grey`);
      assert.deepEqual(Buffer.from(prepared.data), Buffer.from(expectedPrepared.data), `${format}: the prepared screen`);
      // The two rows of strokes: light on the dark bar (made dark on white) and dark on the page.
      assert.equal(pieces.length, 2, `${format}: pieces ${JSON.stringify(pieces)}`);
      assert.deepEqual(pieces, keyedPiecesOf(expectedPrepared), `${format}: the pieces, with their keys`);
      assert.deepEqual(screen.data, kept, `${format}: the screen itself is untouched`);
    }
    await endPreparation();
    const again = await prepareScreen(sampleScreen('bgrx'));
    assert.equal(again.prepared.data.length, 320 * 200);
  } finally {
    await endPreparation();
  }
});

/** The nice value of each of this process's threads. */
function threadNiceness(): number[] {
  return fs.readdirSync('/proc/self/task').flatMap((task) => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

test('the preparation thread runs below the finder\'s thread, so that a read no one waits for does not slow it', async () => {
  const mine = threadNiceness()[0]; // the first task is the process's main thread
  try {
    await prepareScreen(sampleScreen('bgrx'));
    assert.ok(threadNiceness().some((nice) => nice >= Math.min(19, mine + 10)), `threads' nice values: ${threadNiceness().join(', ')}; this thread's: ${mine}`);
  } finally {
    await endPreparation();
  }
  // terminate() resolves once the thread has stopped running JavaScript; its system thread exits a moment later.
  const gone = await waitFor('the preparation thread to be gone', async () => threadNiceness().every((nice) => nice < Math.min(19, mine + 10)) || undefined, { timeoutMs: 2000, intervalMs: 10 }).catch(() => false);
  assert.ok(gone, `the thread is gone once ended (threads' nice values: ${threadNiceness().join(', ')})`);
});
