import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutAtBlankRows, findBands } from '../../lib/locate/ocr/tesseract';
import { GreyImage } from '../../lib/locate/ocr/preprocess';

/** A white page with lines of "text": rows of dark bars, 10 rows high. */
function page(width: number, height: number, lines: number[], background = 255): GreyImage {
  const data = new Uint8Array(width * height).fill(background);
  for (const top of lines) {
    for (let y = top; y < top + 10; y++) for (let x = 10; x < width - 10; x += 6) data.fill(30, y * width + x, y * width + x + 4);
  }
  return { width, height, data };
}

test('a band of many lines is cut in the middle of the blank rows between them, into pieces of bounded ink', () => {
  // Lines 20 rows apart (10 of text, 10 blank): closer than the band gap, so findBands keeps them as one band.
  const lines = Array.from({ length: 12 }, (_, i) => 20 + i * 20);
  const image = page(600, 300, lines);
  const bands = findBands(image);
  assert.equal(bands.length, 1);
  const pieces = cutAtBlankRows(image, bands);
  assert.ok(pieces.length > 1, `cut into ${pieces.length}`);
  assert.equal(pieces[0].y0, bands[0].y0);
  assert.equal(pieces[pieces.length - 1].y1, bands[0].y1);
  for (let i = 1; i < pieces.length; i++) {
    assert.equal(pieces[i].y0, pieces[i - 1].y1, 'pieces follow one another');
    // Each cut falls mid-way between two lines: 4 rows or more clear of the text above and below.
    const below = lines.find((top) => top > pieces[i].y0)!;
    assert.ok(below - pieces[i].y0 >= 4 && pieces[i].y0 - (below - 10) >= 4, `cut at ${pieces[i].y0}`);
  }
});

test('a band is not cut through grey that is not white (a window over a grey desktop), nor when its ink is little', () => {
  const lines = Array.from({ length: 12 }, (_, i) => 20 + i * 20);
  const grey = page(600, 300, lines, 200);
  assert.equal(cutAtBlankRows(grey, findBands(grey)).length, 1);
  const few = page(200, 100, [20, 40]);
  assert.deepEqual(cutAtBlankRows(few, findBands(few)), findBands(few));
});
