import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitLong } from '../../lib/locate/ocr/line-words';
import type { Screen } from '../../lib/types/screen';

// A 700 x 30 line on white: a short word, then glyphs 6 px wide, 2 px apart, from x 20 to 602 (one long word), then a last word.
function line(): Screen {
  const width = 700, height = 30;
  const data = Buffer.alloc(width * height * 4, 255);
  const ink = (x0: number, x1: number) => {
    for (let y = 8; y < 22; y++) for (let x = x0; x < x1; x++) data.fill(30, (y * width + x) * 4, (y * width + x) * 4 + 3);
  };
  ink(2, 10);
  for (let x = 20; x < 600; x += 8) ink(x, x + 6);
  for (let x = 608; x < 690; x += 8) ink(x, x + 6);
  return { width, height, data, format: 'rgba' };
}

test('a long line is cut into pieces that cover it, each within the width, even when a word runs across a cut', () => {
  const screen = line();
  const pieces = splitLong(screen, { x: 0, y: 0, width: 700, height: 30, score: 0.9 }, 300);
  // Halfway across the first gap (15) sits before the second piece's start: the cut goes forward to the word, never back.
  assert.deepEqual(pieces.map((p) => [p.x, p.x + p.width]), [[0, 15], [15, 20], [20, 320], [320, 605], [605, 700]]);
});

test('a line within the width is left whole', () => {
  const whole = { x: 0, y: 0, width: 700, height: 30, score: 0.9 };
  assert.deepEqual(splitLong(line(), whole, 800), [whole]);
});
