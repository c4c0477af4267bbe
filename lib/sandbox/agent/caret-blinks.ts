import type { Box } from '../../types/screen';
import { screenDifference } from '../../image/screen-diff';
import { sleep } from '../../util/wait';

/** Where a drawing was, as the X server reports it: the extent of what was drawn since the last report. */
export type DrawnArea = Box;

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
 * the caret's line; where the report is larger than the caret (GTK redraws
 * a whole entry when its caret blinks, zenity's 168 by 34 pixels; Qt the
 * caret's box with a margin, 10 by 17), the drawn area's pixels are read (a
 * small area costs a fraction of a millisecond) and compared with what the
 * same area showed when it was last drawn: a blink changes one thin line in
 * it, and nothing else. What an area showed is forgotten as soon as any
 * other drawing touches it, so that words drawn there again after being
 * wiped (a new page, the same place) are never taken for no change.
 */

/** Larger areas are not read: drawing that large is more than a caret. */
const MAX_READ_PIXELS = 200 * 200;
/** The areas remembered: a blinking caret redraws the same one again and again. */
const MAX_REMEMBERED = 32;
/** How long a judgement waits for its area's pixels (a small area is answered within a millisecond or two). */
const READ_BOUND_MS = 50;
/** The latest drawings, against which a reading is checked for drawing over it while it was read. */
const MAX_RECENT = 256;

export class CaretBlinks {
  /** What each recently drawn small area showed, by its place and size. */
  private readonly shown = new Map<string, { area: DrawnArea; pixels: Buffer }>();
  private readonly recent: { drawing: number; area: DrawnArea }[] = [];
  private drawings = 0;

  /** `read` gives an area's pixels, 4 bytes each (BGRX), row after row. */
  constructor(private readonly read: (area: DrawnArea) => Promise<Buffer>) {}

  /**
   * Whether the drawing in `area` changed no more than a caret: a line up to
   * 3 pixels wide, or nothing at all. An area drawn for the first time, one
   * too large to read, or one that cannot be read counts as more. Called for
   * every drawing, in the order the X server reported them.
   */
  async onlyCaret(area: DrawnArea): Promise<boolean> {
    const drawing = ++this.drawings;
    const key = `${area.x},${area.y},${area.width},${area.height}`;
    for (const [other, shown] of this.shown) if (other !== key && overlap(shown.area, area)) this.shown.delete(other);
    this.recent.push({ drawing, area });
    if (this.recent.length > MAX_RECENT) this.recent.shift();
    if (caretSized(area)) return true;
    if (area.width <= 0 || area.height <= 0 || area.width * area.height > MAX_READ_PIXELS) return false;
    const before = this.shown.get(key)?.pixels;
    this.shown.delete(key);
    const reading = this.remember(key, area, drawing);
    // An area not drawn alone before is more than a caret at once: words appearing wake a waiting find without a read.
    if (!before) return false;
    // A read the X server is slow to answer counts the drawing as more: a waiting find is woken late by at most this.
    const pixels = await Promise.race([reading, sleep(READ_BOUND_MS).then(() => null)]);
    if (!pixels) return false;
    const changed = screenDifference(before, pixels, area.width, 0).box;
    return !changed || caretSized(changed);
  }

  /** Reads the area and keeps the reading as what it shows, unless it was drawn on again meanwhile. */
  private async remember(key: string, area: DrawnArea, drawing: number): Promise<Buffer | null> {
    const pixels = await this.read(area).catch(() => null);
    if (!pixels || pixels.length < area.width * area.height * 4) return null;
    // Drawn on again while it was read: the reading may hold some of that drawing, and is no record of the area.
    const drawnOver = this.recent[0].drawing > drawing + 1 || this.recent.some((r) => r.drawing > drawing && overlap(r.area, area));
    if (!drawnOver) {
      this.shown.set(key, { area, pixels }); // the newest last: the oldest go first
      if (this.shown.size > MAX_REMEMBERED) this.shown.delete(this.shown.keys().next().value!);
    }
    return pixels;
  }
}

const overlap = (a: DrawnArea, b: DrawnArea): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
