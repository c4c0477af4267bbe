import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Screen } from '../../lib/types/screen';
import type { Analysis } from '../../lib/locate/ocr/analysis';
import { detectorLooked, readGaps } from '../../lib/locate/ocr/gaps';
import type { PaddleModels, TextLine } from '../../lib/locate/ocr/paddle';

const screen: Screen = { width: 200, height: 60, data: Buffer.alloc(200 * 60 * 4, 255), format: 'bgrx' };
const missed: TextLine = { x: 10, y: 10, width: 120, height: 20, score: 0.9 };

/** An analysis of a screen of its own whose first read found nothing: the detector's line is a gap. */
const emptyAnalysis = (): Analysis => {
  const grey = { width: 200, height: 60, data: new Uint8Array(200 * 60).fill(255) };
  return { grey, prepared: grey, lines: [], unread: 0, gapsRead: false };
};

/** A detector that takes `ms`, and counts its runs; as the real one, a run once begun goes to its end. */
function slowDetector(ms: number) {
  const models = {
    runs: 0,
    detect: async (_screen: Screen, _scale?: number, gone?: AbortSignal) => {
      if (gone?.aborted) return null;
      models.runs++;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return [missed];
    },
  };
  return models;
}

const readAs = (text: string) => async (_screen: Screen, lines: TextLine[]) => lines.map((l) => [{ text, confidence: 90, x: l.x, y: l.y, width: l.width, height: l.height }]);

test('a detection begun by a look that was left is kept for the screen\'s next look, which reads its gaps without detecting again', async () => {
  const analysis = emptyAnalysis();
  const models = slowDetector(100);
  const gone = new AbortController();
  setTimeout(() => gone.abort(), 20); // the screen moves during the detection
  await readGaps(analysis, screen, models as unknown as PaddleModels, readAs('Checkout'), Infinity, 0, gone.signal);
  assert.equal(analysis.gapsRead, false, 'the left look read no gap');
  assert.equal(analysis.lines.length, 0);
  await readGaps(analysis, screen, models as unknown as PaddleModels, readAs('Checkout'), Infinity, 0);
  assert.equal(models.runs, 1, 'detected once');
  assert.equal(analysis.gapsRead, true);
  assert.deepEqual(analysis.lines.flatMap((l) => l.words.map((w) => w.text)), ['Checkout']);
  // Another analysis of the same pixels (a new capture, from the same first reading) detects no more.
  const recaptured: Analysis = { ...emptyAnalysis(), grey: analysis.grey, prepared: analysis.prepared };
  await readGaps(recaptured, screen, models as unknown as PaddleModels, readAs('Checkout'), Infinity, 0);
  assert.equal(models.runs, 1, 'detected once for the pixels');
  assert.equal(recaptured.gapsRead, true);
});

test('a look left before the detection began leaves nothing behind: the next look detects', async () => {
  const analysis = emptyAnalysis();
  const models = slowDetector(10);
  const gone = new AbortController();
  // Left between the look's start and the detection's (as while the models load).
  const leaving = { ...models, detect: async (s: Screen, scale?: number, signal?: AbortSignal) => { gone.abort(); return models.detect(s, scale, signal); } };
  await readGaps(analysis, screen, leaving as unknown as PaddleModels, readAs('Checkout'), Infinity, 0, gone.signal);
  assert.equal(models.runs, 0);
  assert.equal(detectorLooked(analysis), false, 'no detection is kept');
  await readGaps(analysis, screen, models as unknown as PaddleModels, readAs('Checkout'), Infinity, 0);
  assert.equal(models.runs, 1);
  assert.equal(analysis.gapsRead, true);
});
