import { test } from 'node:test';
import assert from 'node:assert/strict';
import { glyphColumn, ringsOn } from '../../lib/locate/ocr/ringed';
import type { GreyImage } from '../../lib/locate/ocr/preprocess';

// A grey screen drawn by hand: rings and a disc around small glyphs, beside a letter with nothing inside it.
function screen(): GreyImage {
  const width = 300, height = 80;
  const data = new Uint8Array(width * height).fill(250);
  const set = (x: number, y: number, v: number) => { data[y * width + x] = v; };
  const circle = (cx: number, cy: number, r: number, paint: (x: number, y: number, d: number) => void) => {
    for (let y = cy - r - 2; y <= cy + r + 2; y++) for (let x = cx - r - 2; x <= cx + r + 2; x++) paint(x, y, Math.hypot(x - cx, y - cy));
  };
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) set(x, y, v); };
  // A ring (2 px stroke) with a '1'-like bar inside; another with an 'L'-like glyph.
  circle(40, 40, 18, (x, y, d) => { if (d >= 17 && d <= 19) set(x, y, 120); });
  bar(39, 33, 3, 14, 120);
  circle(90, 40, 18, (x, y, d) => { if (d >= 17 && d <= 19) set(x, y, 120); });
  bar(86, 33, 3, 14, 120); bar(86, 45, 9, 2, 120);
  // A filled disc with a light glyph cut out of it.
  circle(140, 40, 18, (x, y, d) => { if (d <= 18.5) set(x, y, 120); });
  bar(138, 33, 4, 14, 250);
  // A big letter 'O' drawn as a ring with nothing inside: not a ring around a glyph.
  circle(200, 40, 16, (x, y, d) => { if (d >= 14 && d <= 16) set(x, y, 20); });
  return { width, height, data };
}

test('rings and discs around a glyph are found, each with the glyph lifted out of it', () => {
  const rings = ringsOn(screen());
  assert.equal(rings.length, 3);
  rings.forEach((r, i) => assert.ok(Math.abs(r.ring.x + r.ring.width / 2 - [40, 90, 140][i]) <= 1, JSON.stringify(r.ring)));
  for (const r of rings) assert.ok(r.ring.width >= 36 && r.ring.width <= 40 && r.ring.height >= 36 && r.ring.height <= 40, JSON.stringify(r.ring));
  // Each glyph's box (its edges', a pixel wider than its ink), with a pixel's margin for anti-aliased edges.
  rings.forEach((r, i) => {
    const [width, height] = [[3, 14], [9, 14], [4, 14]][i];
    assert.ok(r.glyph.width >= width + 2 && r.glyph.width <= width + 4 && r.glyph.height >= height + 2 && r.glyph.height <= height + 4, `${r.glyph.width}x${r.glyph.height}`);
  });
  // The glyph is only its own ink: every pixel of the bar, none of the ring.
  assert.equal(rings[0].glyph.ink.reduce((n, v) => n + v, 0), 3 * 14);
});

test('the glyphs are drawn dark on white, one under another, a glyph apart, with where each one went', () => {
  const rings = ringsOn(screen());
  const { image, slots } = glyphColumn(rings);
  assert.equal(slots.length, 3);
  for (let i = 1; i < slots.length; i++) assert.ok(slots[i].y0 >= slots[i - 1].y1 - 1, 'slots do not overlap');
  const dark = image.data.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
  assert.ok(dark > 0 && dark < image.data.length / 4, `${dark} dark pixels`);
  // Nothing but the glyphs is drawn: the margins stay white.
  for (let x = 0; x < image.width; x++) assert.equal(image.data[x], 255);
});

test('a letter drawn as a loop, a blank screen and a screen of noise have no rings with glyphs', () => {
  const blank = { width: 120, height: 60, data: new Uint8Array(120 * 60).fill(250) };
  assert.deepEqual(ringsOn(blank), []);
  // Only the big 'O' of the drawn screen: its inner edge is its own stroke, not a glyph.
  const o = screen();
  for (let y = 0; y < o.height; y++) for (let x = 0; x < 170; x++) o.data[y * o.width + x] = 250;
  assert.deepEqual(ringsOn(o), []);
  let seed = 7;
  const noise = { width: 200, height: 100, data: new Uint8Array(200 * 100).map(() => ((seed = (seed * 1103515245 + 12345) % 2147483648) % 256)) };
  assert.deepEqual(ringsOn(noise), [], 'a screen of noise is a picture, not a UI');
});

test('a pill whose digits nearly touch its rim is a ring too: the digits are peeled off the rim', () => {
  const width = 160, height = 40;
  const data = new Uint8Array(width * height).fill(250);
  const set = (x: number, y: number, v: number) => { data[y * width + x] = v; };
  // A filled pill 24 x 18 (a badge) with light digits '10' drawn a pixel from its face's rounded ends.
  for (let y = 10; y < 28; y++) {
    for (let x = 20; x < 44; x++) {
      const dx = x < 29 ? 29 - x : x > 35 ? x - 35 : 0;
      if (Math.hypot(dx, y - 19) <= 9) set(x, y, 90);
    }
  }
  for (let y = 14; y < 24; y++) { set(25, y, 250); set(26, y, 250); }
  for (let y = 14; y < 24; y++) for (let x = 30; x < 38; x++) if (y === 14 || y === 23 || x === 30 || x === 37) set(x, y, 250);
  const rings = ringsOn({ width, height, data });
  assert.equal(rings.length, 1, JSON.stringify(rings.map((r) => r.ring)));
  assert.ok(Math.abs(rings[0].ring.x + rings[0].ring.width / 2 - 31.5) <= 2 && rings[0].ring.height >= 17, JSON.stringify(rings[0].ring));
});

test('short texts spread across a wide face (a button group of page numbers) are read one by one, each in its share of the face', () => {
  const width = 400, height = 60;
  const data = new Uint8Array(width * height).fill(250);
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) data[y * width + x] = v; };
  // A grey group 136 x 36 with four light glyphs 34 px apart; beside it a button of the same grey with a word's letters close together.
  bar(20, 10, 136, 36, 110);
  for (const x of [34, 68, 102, 136]) bar(x, 21, 5, 14, 250);
  bar(200, 10, 150, 36, 110);
  for (let x = 230; x < 320; x += 9) bar(x, 21, 6, 14, 250);
  const rings = ringsOn({ width, height, data });
  assert.equal(rings.length, 4, JSON.stringify(rings.map((r) => r.ring)));
  rings.forEach((r, i) => {
    assert.ok(r.ring.x <= [34, 68, 102, 136][i] && r.ring.x + r.ring.width >= [39, 73, 107, 141][i], `glyph ${i} inside its share: ${JSON.stringify(r.ring)}`);
    assert.ok(r.ring.width >= 30 && r.ring.width <= 40 && r.ring.height >= 36, JSON.stringify(r.ring));
  });
});

test('a pager strip: its numbers are read one by one, its words left to the line readers', () => {
  const width = 400, height = 60;
  const data = new Uint8Array(width * height).fill(250);
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) data[y * width + x] = v; };
  // A bordered white strip: a word of five letters at each end, three digits between them, 34 px apart.
  bar(20, 10, 300, 36, 120);
  bar(22, 12, 296, 32, 250);
  for (const x of [30, 262]) for (let k = 0; k < 5; k++) bar(x + k * 8, 21, 6, 14, 40);
  for (const x of [130, 164, 198]) bar(x, 21, 5, 14, 40);
  const rings = ringsOn({ width, height, data });
  assert.equal(rings.length, 3, JSON.stringify(rings.map((r) => r.ring)));
  rings.forEach((r, i) => assert.ok(Math.abs(r.ring.x + r.ring.width / 2 - [132.5, 166.5, 200.5][i]) <= 1.5, JSON.stringify(r.ring)));
});

test("a list group's rows are no one face: the count badge in each row is a ring of its own", () => {
  const width = 360, height = 100;
  const data = new Uint8Array(width * height).fill(250);
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) data[y * width + x] = v; };
  // Two rows 38 px high between light lines, the right border joining them; a dark pill with a light digit at each row's end.
  bar(20, 10, 300, 1, 215); bar(20, 48, 300, 1, 215); bar(20, 86, 300, 1, 215); bar(20, 10, 1, 77, 215); bar(319, 10, 1, 77, 215);
  for (let k = 0; k < 2; k++) {
    bar(40, 22 + k * 38, 60, 12, 60);
    for (let y = 19 + k * 38; y < 38 + k * 38; y++) for (let x = 280; x < 306; x++) if (Math.hypot(Math.max(0, Math.abs(x - 292.5) - 3.5), y - (28.5 + k * 38)) <= 9.5) data[y * width + x] = 40;
    bar(291, 23 + k * 38, 3, 11, 250);
  }
  const rings = ringsOn({ width, height, data });
  assert.equal(rings.length, 2, JSON.stringify(rings.map((r) => r.ring)));
  rings.forEach((r, i) => assert.ok(Math.abs(r.ring.x + r.ring.width / 2 - 293) <= 2 && Math.abs(r.ring.y + r.ring.height / 2 - (28.5 + i * 38)) <= 2, JSON.stringify(r.ring)));
});

test("a small button's lone '+' is a glyph in a ring, though under a fifth of the button's height", () => {
  const width = 120, height = 80;
  const data = new Uint8Array(width * height).fill(250);
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) data[y * width + x] = v; };
  bar(40, 20, 32, 39, 110); // a green button, 39 px high
  bar(54, 38, 5, 1, 250); bar(56, 36, 1, 5, 250); // its '+', 5 px high
  const rings = ringsOn({ width, height, data });
  assert.equal(rings.length, 1);
  assert.deepEqual(rings[0].ring, { x: 40, y: 20, width: 33, height: 40 }); // its edges, a pixel past the face
});

test('a badge on the corner of a word or an icon is found by its face, though its rim joins their edges', () => {
  const width = 200, height = 50;
  const data = new Uint8Array(width * height).fill(40);
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) data[y * width + x] = v; };
  // A light word's letters (a dark bar's menu item), and a filled disc on its top right corner, touching its last letter.
  for (let x = 20; x < 60; x += 6) bar(x, 20, 5, 14, 230);
  for (let y = 5; y < 23; y++) for (let x = 56; x < 76; x++) if (Math.hypot(x - 65.5, y - 13.5) <= 9) data[y * width + x] = 110;
  bar(64, 9, 3, 10, 250);
  // The same word with no badge: its letters' gaps reach the shape's border, and hold nothing.
  for (let x = 110; x < 150; x += 6) bar(x, 20, 5, 14, 230);
  const rings = ringsOn({ width, height, data });
  assert.equal(rings.length, 1, JSON.stringify(rings.map((r) => r.ring)));
  const { ring, glyph } = rings[0];
  assert.ok(Math.abs(ring.x + ring.width / 2 - 66) <= 1.5 && Math.abs(ring.y + ring.height / 2 - 14) <= 1.5, JSON.stringify(ring));
  assert.ok(ring.width >= 17 && ring.width <= 22 && ring.height >= 17 && ring.height <= 22, JSON.stringify(ring));
  assert.ok(glyph.width >= 3 && glyph.width <= 7 && glyph.height >= 10 && glyph.height <= 14, `${glyph.width}x${glyph.height}`);
});

test("a group box's two rows of short texts are no pager: none of them is read in a share of the frame", () => {
  const width = 400, height = 100;
  const data = new Uint8Array(width * height).fill(250);
  const bar = (x0: number, y0: number, w: number, h: number, v: number) => { for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) data[y * width + x] = v; };
  // A frame 70 px high; a row of two short texts over a row of two more, the lower ones starting left of the upper ones.
  bar(20, 10, 340, 70, 200); bar(21, 11, 338, 68, 240);
  bar(60, 30, 5, 11, 40); bar(200, 30, 5, 11, 40);
  bar(50, 50, 20, 11, 40); bar(190, 50, 20, 11, 40);
  const frameShares = ringsOn({ width, height, data }).filter((r) => r.ring.height >= 60);
  assert.deepEqual(frameShares.map((r) => r.ring), []);
});
