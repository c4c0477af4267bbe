import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSpread } from '../../lib/locate/ocr/spread';
import type { OcrWord } from '../../lib/locate/ocr/tesseract';

// A row of a pagination: glyphs 7 px wide, 29 px apart, drawn dark on white.
function page(starts: number[]): { width: number; height: number; data: Uint8Array } {
  const width = 400, height = 30;
  const data = new Uint8Array(width * height).fill(255);
  for (const x0 of starts) for (let y = 10; y < 22; y++) for (let x = x0; x < x0 + 7; x++) if (x !== x0 + 3 || y % 2) data[y * width + x] = 40;
  return { width, height, data };
}
const word = (text: string, x: number, width: number): OcrWord => ({ text, x, y: 10, width, height: 12, confidence: 85 });

test('a word of spaced-out glyphs read as one is cut at the ink, one word a glyph', () => {
  const image = page([20, 49, 78, 107, 136]);
  // '4567' read over the first four glyphs and half-way into the fifth, which was read as '8' of its own.
  const split = splitSpread([word('4567', 20, 121), word('8', 136, 7)], image);
  assert.deepEqual(split.map((w) => [w.text, w.x, w.width]), [['4', 20, 7], ['5', 49, 7], ['6', 78, 7], ['7', 107, 7], ['8', 136, 7]]);
});

test('a word as wide as its characters, or with more blobs than characters, is left whole', () => {
  const image = page([20, 28, 36, 44, 200, 229, 258]);
  assert.deepEqual(splitSpread([word('2024', 20, 31)], image).map((w) => w.text), ['2024']);
  assert.deepEqual(splitSpread([word('12', 200, 65)], image).map((w) => w.text), ['12']);
});
