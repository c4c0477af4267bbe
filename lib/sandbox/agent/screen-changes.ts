import { sleep, Wakeup } from '../../util/wait';
import type { Frame } from './driver';

/**
 * The screen's changes as the X server reports them (the DAMAGE extension):
 * a counter that goes up each time something is drawn. Waiting on it costs
 * nothing while the screen is still, and wakes the moment it is not, where
 * looking again and again would cost a capture each time.
 *
 * A second view of the counter leaves out drawings no bigger than a caret:
 * a find that waits for something to appear is not woken by a caret's blink
 * (every 500 ms in Chromium), which would cost it a read of the tree and of
 * the pixels each time, on the cores the page needs.
 */
export class ScreenChanges {
  private count = 0;
  /** The counter's value at the last drawing bigger than a caret. */
  private moved = 0;
  private readonly changed = new Wakeup();
  private readonly movedBeyondCaret = new Wakeup();

  /** `roundTrip` resolves once the X server has answered a request sent now: its reports of every earlier drawing have come in. */
  constructor(private readonly roundTrip: () => Promise<void> = async () => undefined) {}

  get current(): number {
    return this.count;
  }

  /**
   * Something was drawn. `onlyCaret` says whether it was no more than a
   * caret's blink, or will say (see CaretBlinks): until it does, the drawing
   * counts for the waits that take every drawing only.
   */
  bump(onlyCaret: boolean | Promise<boolean> = false): void {
    const drawing = ++this.count;
    this.changed.wake();
    if (onlyCaret === true) return;
    if (onlyCaret === false) this.movedAt(drawing);
    else void onlyCaret.then((caret) => { if (!caret) this.movedAt(drawing); }, () => this.movedAt(drawing));
  }

  private movedAt(drawing: number): void {
    if (drawing <= this.moved) return;
    this.moved = drawing;
    this.movedBeyondCaret.wake();
  }

  /** The counter with every drawing done until now counted. */
  async counted(): Promise<number> {
    await this.roundTrip();
    return this.count;
  }

  /**
   * The counter once it has passed `after`, or as it is when `timeoutMs` has
   * passed first. With `ignoreCaret`, the counter as it was at the last
   * drawing bigger than a caret: a caret's blink neither ends the wait nor
   * counts as a change, and a screen captured after that value still holds
   * every change that counts.
   */
  async next(after: number, timeoutMs: number, ignoreCaret = false): Promise<number> {
    const value = () => (ignoreCaret ? this.moved : this.count);
    const drawn = ignoreCaret ? this.movedBeyondCaret : this.changed;
    const deadline = Date.now() + timeoutMs;
    while (value() <= after && Date.now() < deadline) await drawn.next(deadline - Date.now());
    return value();
  }
}

/** Each driver's capture-on-change: the redraw wait, the input pacer and the launcher share its last frame. */
const capturesOnChange = new WeakMap<object, () => Promise<Frame>>();

/**
 * A capture that takes the screen again only once the X server has reported
 * a drawing since the last one, and otherwise gives that one back: a look
 * at a still screen costs a round trip, not a capture (3 to 14 ms here, with
 * the copy of its 4 MB). Where the desktop reports no drawings, every call
 * captures. One per driver, so a frame one watcher took serves the others.
 */
export function captureOnChange(driver: { capture(): Promise<Frame>; readonly changes: ScreenChanges | null }): () => Promise<Frame> {
  const known = capturesOnChange.get(driver);
  if (known) return known;
  let last: { count: number; frame: Frame } | null = null;
  const capture = async () => {
    const changes = driver.changes;
    if (!changes) return driver.capture();
    // Counted before the capture: a drawing during it is captured again at the next look.
    const count = await changes.counted();
    if (last?.count === count) return last.frame;
    const frame = await driver.capture();
    last = { count, frame };
    return frame;
  };
  capturesOnChange.set(driver, capture);
  return capture;
}

/** A pause of `ms` that ends early at the next drawing the X server reports, where it reports them. */
export function pauseUntilDrawn(driver: { readonly changes: ScreenChanges | null }): (ms: number) => Promise<void> {
  return (ms) => {
    const changes = driver.changes;
    return changes ? changes.next(changes.current, ms).then(() => undefined) : sleep(ms);
  };
}
