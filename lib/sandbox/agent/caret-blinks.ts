/** Where a drawing was, as the X server reports it: the extent of what was drawn since the last report. */
export interface DrawnArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A caret: a line at most this wide (the same bound as changedBeyondCaret's)
 * and this tall (a caret is as tall as its line of text). Chromium reports
 * its caret's blink as exactly its 1 px wide line.
 */
const CARET_MAX_WIDTH = 3;
const CARET_MAX_HEIGHT = 120;

export const caretSized = (area: DrawnArea): boolean => area.width <= CARET_MAX_WIDTH && area.height <= CARET_MAX_HEIGHT;

/**
 * Tells a caret's blink from other drawing. Chromium's report of a blink is
 * the caret's line; where the report is larger than the caret, GTK redraws a whole entry when its caret blinks
 * (zenity's: 168 by 34 pixels), Qt the caret's box with a margin (10 by 17).
 * The drawn area's pixels are read (a small area costs a fraction of a
 * millisecond) and compared with what the same area showed the last time it
 * was drawn alone: a blink changes one thin line in it, and nothing else.
 */

/** Larger areas are not read: drawing that large is more than a caret. */
const MAX_READ_PIXELS = 200 * 200;
/** The areas remembered: a blinking caret redraws the same one again and again. */
const MAX_REMEMBERED = 32;

export class CaretBlinks {
  /** The pixels each recently drawn small area showed, by its place and size. */
  private readonly shown = new Map<string, Buffer>();

  /** `read` gives an area's pixels, 4 bytes each (BGRX), row after row. */
  constructor(private readonly read: (area: DrawnArea) => Promise<Buffer>) {}

  /**
   * Whether the drawing in `area` changed no more than a caret: a line up to
   * 3 pixels wide, or nothing at all. An area drawn for the first time, one
   * too large to read, or one that cannot be read counts as more.
   */
  async onlyCaret(area: DrawnArea): Promise<boolean> {
    if (caretSized(area)) return true;
    if (area.width <= 0 || area.height <= 0 || area.width * area.height > MAX_READ_PIXELS) return false;
    const key = `${area.x},${area.y},${area.width},${area.height}`;
    const pixels = await this.read(area).catch(() => null);
    if (!pixels || pixels.length < area.width * area.height * 4) return false;
    const before = this.shown.get(key);
    this.shown.delete(key);
    this.shown.set(key, pixels); // the newest last: the oldest go first
    if (this.shown.size > MAX_REMEMBERED) this.shown.delete(this.shown.keys().next().value!);
    if (!before) return false;
    const changed = changedBox(before, pixels, area.width, area.height);
    return !changed || caretSized(changed);
  }
}

/** The box around the pixels that differ between two readings of a `width` by `height` area (colour only); null when none do. */
export function changedBox(a: Buffer, b: Buffer, width: number, height: number): DrawnArea | null {
  const one = new Uint32Array(a.buffer, a.byteOffset, width * height);
  const other = new Uint32Array(b.buffer, b.byteOffset, width * height);
  let left = width;
  let right = -1;
  let top = height;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (((one[row + x] ^ other[row + x]) & 0xffffff) === 0) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      bottom = y;
    }
  }
  return right < 0 ? null : { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}
