import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutAtBlankColumns, cutAtBlankRows, findBands, pieceAt, piecesOf, stackPieces } from '../../lib/locate/ocr/bands';
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

test('a piece of widgets side by side is cut at the white columns between them, never inside a phrase', () => {
  // Two columns of text lines whose rows never leave a white row across the screen: 'words' 4 px apart, columns 60 px apart.
  const width = 600, height = 200;
  const data = new Uint8Array(width * height).fill(255);
  // The right column's lines sit 6 rows lower, as a form's second column often does.
  const columns = [[10, 270, 0], [330, 590, 6]];
  for (let top = 10; top < 180; top += 12) {
    for (const [left, right, lower] of columns) for (let x = left; x < right; x += 6) for (let y = top + lower; y < top + lower + 10; y++) data.fill(30, y * width + x, y * width + x + 2);
  }
  const image = { width, height, data };
  const rows = cutAtBlankRows(image, findBands(image));
  assert.equal(rows.length, 1, 'no white row to cut at');
  const pieces = cutAtBlankColumns(image, rows);
  assert.equal(pieces.length, 2);
  assert.deepEqual(pieces.map((p) => [p.y0, p.y1]), [[rows[0].y0, rows[0].y1], [rows[0].y0, rows[0].y1]]);
  // Cut between the two, each narrowed to its own marks with 8 white columns either side.
  // (The left column's last bar covers columns 268-269, the right one's 588-589.)
  assert.deepEqual(pieces.map((p) => [p.x0, p.x1]), [[10 - 8, 270 + 8], [330 - 8, 590 + 8]]);
  assert.equal(pieces[0].ink + pieces[1].ink, rows[0].ink);
  // The gaps between the 'words' inside a column (4 px) are never cut at.
  const narrow = cutAtBlankColumns(image, [{ ...rows[0], x0: 0, x1: 280 }]);
  assert.equal(narrow.length, 1);
});

test('pieces of the same rows are stacked side by side, others below, in an image only as wide as they are', () => {
  const width = 400, height = 100;
  const data = new Uint8Array(width * height).fill(255);
  data[10 * width + 120] = 0;
  data[10 * width + 300] = 7;
  data[60 * width + 150] = 9;
  const image = { width, height, data };
  const pieces = [
    { y0: 5, y1: 20, x0: 100, x1: 200, ink: 1 },
    { y0: 5, y1: 20, x0: 250, x1: 350, ink: 1 },
    { y0: 50, y1: 70, x0: 140, x1: 160, ink: 1 },
  ];
  const { image: stacked, offsets, left } = stackPieces(image, pieces);
  assert.equal(left, 100);
  assert.equal(stacked.width, 250);
  assert.deepEqual(offsets, [12, 12, 12 + 15 + 12]);
  assert.equal(stacked.height, offsets[2] + 20 + 12);
  // Each mark is where its piece put it, and maps back to that piece.
  assert.equal(stacked.data[(offsets[0] + 5) * 250 + 20], 0);
  assert.equal(stacked.data[(offsets[1] + 5) * 250 + 200], 7);
  assert.equal(stacked.data[(offsets[2] + 10) * 250 + 50], 9);
  assert.equal(pieceAt(pieces, offsets, left, 20, offsets[0] + 5), 0);
  assert.equal(pieceAt(pieces, offsets, left, 200, offsets[1] + 5), 1);
  assert.equal(pieceAt(pieces, offsets, left, 50, offsets[2] + 10), 2);
  // Between the two side by side, or in the gap below them, belongs to none.
  assert.equal(pieceAt(pieces, offsets, left, 120, offsets[0] + 5), -1);
  assert.equal(pieceAt(pieces, offsets, left, 20, offsets[0] + 17), -1);
});

test('a screen\'s pieces are narrowed to the columns their rows mark, and keep their ink', () => {
  const image = page(600, 300, [20, 40]);
  // page() draws from column 10 to 590: the band keeps 8 white columns either side, clipped to the screen.
  const [piece] = piecesOf(image);
  assert.equal(piece.x0, 2);
  assert.equal(piece.x1, 598);
  let ink = 0;
  for (let y = piece.y0; y < piece.y1; y++) for (let x = 0; x < 600; x++) if (image.data[y * 600 + x] < 160) ink++;
  assert.equal(piece.ink, ink);
});
