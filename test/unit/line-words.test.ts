import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitLong, toWords } from '../../lib/locate/ocr/line-words';
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

test("a disabled label's grey ink counts beside a black checkbox: each word is boxed on its own ink", () => {
  // Grey 192 background; a black-rimmed box at x 4-16; grey (128) glyphs 5 px wide, 1 px apart: 'am' at 30-41, 'off' at 50-67.
  const width = 80, height = 20;
  const data = Buffer.alloc(width * height * 4, 192);
  const paint = (x0: number, x1: number, y0: number, y1: number, v: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data.fill(v, (y * width + x) * 4, (y * width + x) * 4 + 3);
  };
  paint(4, 17, 3, 16, 0);
  paint(6, 15, 5, 14, 255);
  for (const x of [30, 36, 50, 56, 62]) paint(x, x + 5, 5, 14, 128);
  const screen: Screen = { width, height, data, format: 'rgba' };
  const chars = [['a', 32], ['m', 38], [' ', 45], ['o', 52], ['f', 58], ['f', 64]].map(([char, x]) => ({ char: char as string, p: 0.9, x: x as number }));
  const words = toWords(screen, chars, { x: 0, y: 0, width, height, score: 0.9 });
  assert.deepEqual(words.map((w) => [w.text, w.x, w.x + w.width]), [['am', 30, 41], ['off', 50, 67]]);
});

test("icons on a line do not set its gap between letters: a path bar's 'usr' and 'share' stay two words", () => {
  // White line; three 20 px icons with 6 px gaps inside them (x 0-80), then glyphs 4 px wide and 2 px apart: 'usr' at 100-116, 'share' at 128-156.
  const width = 170, height = 20;
  const data = Buffer.alloc(width * height * 4, 255);
  const paint = (x0: number, x1: number) => {
    for (let y = 4; y < 16; y++) for (let x = x0; x < x1; x++) data.fill(40, (y * width + x) * 4, (y * width + x) * 4 + 3);
  };
  for (const x of [0, 30, 60]) { paint(x, x + 7); paint(x + 13, x + 20); }
  for (let x = 100; x < 116; x += 6) paint(x, x + 4);
  for (let x = 128; x < 156; x += 6) paint(x, x + 4);
  const screen: Screen = { width, height, data, format: 'rgba' };
  // The recogniser read no space between them, and its characters stand no further apart there than elsewhere.
  const chars = [...'usrshare'].map((char, i) => ({ char, p: 0.9, x: 100 + i * 8 }));
  const words = toWords(screen, chars, { x: 0, y: 0, width, height, score: 0.9 });
  assert.deepEqual(words.map((w) => [w.text, w.x, w.x + w.width]), [['usr', 100, 116], ['share', 128, 156]]);
});
