/**
 * Motion on the screen, cheaply: a sampled look at a frame, and the share of
 * it that differs between two looks. The agent's waits for a still screen
 * and the find's check for a screen that moved under it use the same measure.
 */

/** Every 4th pixel of every 4th row: 1/16 of the screen, enough for the share of it that changed. */
const STEP = 4;
/** Motion smaller than this share (a caret, a spinner) does not count as the screen moving. */
export const MOTION_FLOOR = 0.001;

/** A downscaled look at the screen: the sampled pixels, 24-bit colour each. */
export function sampleFrame(frame: { width: number; height: number; data: Buffer }): Uint32Array {
  const cols = Math.ceil(frame.width / STEP);
  const rows = Math.ceil(frame.height / STEP);
  const words = new Uint32Array(frame.data.buffer, frame.data.byteOffset, frame.data.length >> 2);
  const out = new Uint32Array(cols * rows);
  let i = 0;
  for (let y = 0; y < frame.height; y += STEP) {
    const row = y * frame.width;
    for (let x = 0; x < frame.width; x += STEP) out[i++] = words[row + x] & 0xffffff;
  }
  return out;
}

/** The share of sampled pixels that differ between two looks. */
export function changedShare(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length) return 1;
  let changed = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) changed++;
  return changed / a.length;
}

/**
 * Whether anything changed between two looks of a `width`-pixel-wide frame
 * other than a caret: changes in two columns of samples or more (a caret,
 * up to 3 pixels wide, falls in one). Unlike MOTION_FLOOR, a few words
 * appearing count, however small.
 */
export function changedBeyondCaret(a: Uint32Array, b: Uint32Array, width: number): boolean {
  if (a.length !== b.length) return true;
  const cols = Math.ceil(width / STEP);
  let column = -1;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (column === -1) column = i % cols;
    else if (i % cols !== column) return true;
  }
  return false;
}
