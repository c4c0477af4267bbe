import { test } from 'node:test';
import assert from 'node:assert/strict';
import pixelmatch from 'pixelmatch';
import { differingPixels, screenDifference } from '../../lib/image/screen-diff';

// The cache's screen comparison counts exactly what pixelmatch counts (includeAA, opaque pixels), faster.
const width = 320;
const height = 200;

/** A screen of bands and noise, with X11's fourth byte at 0, from a seed. */
function screen(seed: number): Buffer {
  const data = Buffer.alloc(width * height * 4);
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let p = 0; p < width * height; p++) {
    const band = Math.floor(p / width / 20) * 25;
    data[p * 4] = band;
    data[p * 4 + 1] = (band + 60) & 0xff;
    data[p * 4 + 2] = next() < 0.05 ? Math.floor(next() * 256) : 200;
  }
  return data;
}

const opaque = (data: Buffer) => { const copy = Buffer.from(data); for (let i = 3; i < copy.length; i += 4) copy[i] = 255; return copy; };
const reference = (a: Buffer, b: Buffer, threshold: number) => pixelmatch(opaque(a), opaque(b), null, width, height, { threshold, includeAA: true });

test('counts the pixels pixelmatch counts, from faint changes to whole regions', () => {
  const base = screen(7);
  for (const [seed, strength] of [[1, 1], [2, 3], [3, 8], [4, 40], [5, 255]]) {
    const changed = Buffer.from(base);
    // A region changed by `strength`, near the threshold for the faint ones, and a few scattered pixels.
    for (let y = 30; y < 90; y++) for (let x = 40; x < 200; x++) changed[(y * width + x) * 4 + (seed % 3)] ^= strength;
    for (let p = seed; p < width * height; p += 997) changed[p * 4 + 1] = 255 - changed[p * 4 + 1];
    for (const threshold of [0.05, 0.1, 0.2]) {
      assert.equal(differingPixels(base, changed, threshold), reference(base, changed, threshold), `strength ${strength}, threshold ${threshold}`);
    }
  }
});

test('ignores the fourth byte, reads buffers at any offset, and refuses screens of different sizes', () => {
  const a = screen(11);
  const b = Buffer.from(a);
  for (let i = 3; i < b.length; i += 4) b[i] = 255;
  assert.equal(differingPixels(a, b, 0.1), 0);
  const c = screen(12);
  const unaligned = Buffer.alloc(c.length + 1).subarray(1);
  c.copy(unaligned);
  assert.equal(differingPixels(a, unaligned, 0.1), reference(a, c, 0.1));
  assert.throws(() => differingPixels(a, a.subarray(4), 0.1), /different sizes/);
});

test('finds a lone changed pixel anywhere, at the first and the last pixel too, and boxes what differs', () => {
  // A size that is no whole number of the blocks compared at a time.
  const [w, h] = [333, 77];
  const plain = Buffer.alloc(w * h * 4, 200);
  for (const p of [0, 511, 512, 12_345, w * h - 1]) {
    const changed = Buffer.from(plain);
    changed[p * 4 + 2] = 0;
    const { pixels, box } = screenDifference(plain, changed, w, 0.1);
    assert.equal(pixels, 1, `pixel ${p}`);
    assert.deepEqual(box, { x: p % w, y: Math.floor(p / w), width: 1, height: 1 }, `pixel ${p}`);
  }
  const two = Buffer.from(plain);
  two[(3 * w + 5) * 4] = 0;
  two[(70 * w + 300) * 4 + 1] = 0;
  assert.deepEqual(screenDifference(plain, two, w, 0.1), { pixels: 2, box: { x: 5, y: 3, width: 296, height: 68 } });
  assert.deepEqual(screenDifference(plain, Buffer.from(plain), w, 0.1), { pixels: 0, box: null });
});
