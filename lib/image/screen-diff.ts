import type { Box } from '../types/screen';

/**
 * How many pixels of two screens differ, as pixelmatch counts them with
 * `includeAA: true` (its YIQ colour distance against 35215 x threshold²),
 * with the fourth byte of each pixel ignored. Captured screens are mostly
 * the same as the stored ones, so runs of equal bytes are skipped a block at
 * a time (a native comparison of memory), and equal pixels inside a block
 * that differs with one 32-bit comparison: about 1 ms for a 1366x768 screen
 * that differs in a few places, where pixelmatch computes the distance of
 * every pixel (13 ms or more).
 */
/** Pixels compared a block at a time before any is looked at alone. */
const BLOCK_PIXELS = 512;

export function differingPixels(a: Buffer, b: Buffer, threshold: number): number {
  return screenDifference(a, b, 1, threshold).pixels;
}

/**
 * The differing pixels of two screens `width` pixels wide, and the box around
 * them (null when none differ); pixels inside `outside` (when given) are not
 * compared.
 */
export function screenDifference(a: Buffer, b: Buffer, width: number, threshold: number, outside?: Box): { pixels: number; box: Box | null } {
  if (a.length !== b.length) throw new Error(`screens of different sizes (${a.length} and ${b.length} bytes)`);
  const maxDelta = 35215 * threshold * threshold;
  const pixels = a.length >> 2;
  const aligned = a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0;
  const a32 = aligned ? new Uint32Array(a.buffer, a.byteOffset, pixels) : null;
  const b32 = aligned ? new Uint32Array(b.buffer, b.byteOffset, pixels) : null;
  let differing = 0;
  let left = Infinity, top = Infinity, right = -1, bottom = -1;
  for (let start = 0; start < pixels; start += BLOCK_PIXELS) {
    const end = Math.min(pixels, start + BLOCK_PIXELS);
    // A block of equal bytes (the fourth ones too, as a capture's always are) needs no pixel's look.
    if (a.compare(b, start << 2, end << 2, start << 2, end << 2) === 0) continue;
    for (let p = start; p < end; p++) {
      if (a32 && b32 && ((a32[p] ^ b32[p]) & 0x00ffffff) === 0) continue; // little-endian: the fourth byte is the top one
      const k = p << 2;
      if (Math.abs(colourDelta(a[k], a[k + 1], a[k + 2], b[k], b[k + 1], b[k + 2])) <= maxDelta) continue;
      const x = p % width;
      const y = (p - x) / width;
      if (outside && x >= outside.x && x < outside.x + outside.width && y >= outside.y && y < outside.y + outside.height) continue;
      differing++;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      bottom = y;
    }
  }
  return { pixels: differing, box: differing ? { x: left, y: top, width: right - left + 1, height: bottom - top + 1 } : null };
}

/** pixelmatch's colour distance of two opaque pixels (its channel order: the bytes as they come). */
function colourDelta(r1: number, g1: number, b1: number, r2: number, g2: number, b2: number): number {
  if (r1 === r2 && g1 === g2 && b1 === b2) return 0;
  const y = rgb2y(r1, g1, b1) - rgb2y(r2, g2, b2);
  const i = rgb2i(r1, g1, b1) - rgb2i(r2, g2, b2);
  const q = rgb2q(r1, g1, b1) - rgb2q(r2, g2, b2);
  return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
}

const rgb2y = (r: number, g: number, b: number) => r * 0.29889531 + g * 0.58662247 + b * 0.11448223;
const rgb2i = (r: number, g: number, b: number) => r * 0.59597799 - g * 0.27417610 - b * 0.32180189;
const rgb2q = (r: number, g: number, b: number) => r * 0.21147017 - g * 0.52261711 + b * 0.31114694;
