import type { Screen } from '../types/screen';
import type { Staleness } from '../locate/engine';
import { changedBeyondCaret, sampleFrame } from '../image/motion';
import { sleep } from '../util/wait';

/** Where a find learns of the screen's changes. */
export interface ChangeSource {
  capture(): Promise<Screen>;
  /**
   * The sandbox's count of screen changes once it passes `after` (-1: at
   * once), or as it is after `timeoutMs`; null when the sandbox does not count
   * them. A drawing no bigger than a caret need not count: nothing a find
   * looks for appears that way. Left out: the screen is looked at every
   * LOOK_EVERY_MS instead.
   */
  changes?(after: number, timeoutMs: number, signal?: AbortSignal): Promise<number | null>;
}

/** A screen captured after the look's screen moved: `mark` is the change count it was captured after. */
export interface MovedScreen<T> {
  screen: Screen;
  mark: number | null;
  /** What began before the capture (see ScreenWatch.staleness). */
  begun: T | undefined;
}

/** A look's staleness, with the watching's end and the screen it moved to. */
export interface WatchedStaleness<T> extends Staleness {
  stop(): void;
  movedTo(): MovedScreen<T> | null;
}

/** Without change counts, the screen is looked at this often. */
export const LOOK_EVERY_MS = 120;
/** One wait for a change at most this long; a longer wait asks again. */
const LONGEST_WAIT_MS = 5000;

/**
 * Watches the screen for a find. With the sandbox's change counts (the X
 * server's damage reports), a wait ends the moment something is drawn and
 * costs nothing before; without them, it looks every LOOK_EVERY_MS.
 */
export class ScreenWatch {
  private counted: boolean;

  constructor(private readonly source: ChangeSource) {
    this.counted = !!source.changes;
  }

  /** The change count now; null without counts. A screen captured after the mark holds every change up to it. */
  async mark(): Promise<number | null> {
    if (!this.counted) return null;
    const count = await this.source.changes!(-1, 0);
    if (count === null) this.counted = false;
    return count;
  }

  /** Returns once the screen may have changed since `mark`, or after `timeoutMs`. */
  async changeAfter(mark: number | null, timeoutMs: number, signal?: AbortSignal): Promise<number | null> {
    if (timeoutMs <= 0) return mark;
    if (mark === null) {
      await sleep(Math.min(LOOK_EVERY_MS, timeoutMs));
      return null;
    }
    return this.source.changes!(mark, Math.min(LONGEST_WAIT_MS, timeoutMs), signal);
  }

  /**
   * Whether `screen` (captured after `mark`) is still what the screen shows.
   * `check()` looks now; from the first check on, the screen is also watched,
   * and the signal is aborted once anything beyond a caret changes (a few
   * words appearing count), so that a slow engine stops reading a screen that
   * is gone. Until then nothing is captured: a find the first engine answers
   * pays nothing for it. `stop()` ends the watching.
   *
   * `beforeLook` runs as each look begins, before its capture (the find
   * starts the tree's reading there); `movedTo()` gives the capture that
   * showed the move, with the count it followed and what `beforeLook` began:
   * the next look's screen, already captured.
   */
  staleness<T>(screen: Screen, mark: number | null, beforeLook?: () => T): WatchedStaleness<T> {
    const moved = new AbortController();
    const stopped = new AbortController();
    let seen: Uint32Array | null = null;
    let after = mark;
    let watching = false;
    let movedTo: MovedScreen<T> | null = null;
    // The look under way: a check waits for it, since the count it was started for is already noted.
    let looking: Promise<boolean> | null = null;
    const look = (count: number | null): Promise<boolean> => {
      const started = (async () => {
        seen ??= sampleFrame(screen);
        const begun = beforeLook?.();
        const now = await this.source.capture();
        if (!moved.signal.aborted && changedBeyondCaret(seen, sampleFrame(now), screen.width)) {
          movedTo = { screen: now, mark: count, begun };
          moved.abort();
        }
        return moved.signal.aborted;
      })();
      looking = started;
      void started.finally(() => { if (looking === started) looking = null; }).catch(() => undefined);
      return started;
    };
    const watch = async () => {
      while (!stopped.signal.aborted && !moved.signal.aborted) {
        const count = await this.changeAfter(after, LONGEST_WAIT_MS, stopped.signal);
        if (stopped.signal.aborted) return;
        if (count !== null && count === after) continue;
        after = count;
        await look(count);
      }
    };
    return {
      signal: moved.signal,
      check: async () => {
        if (!watching) {
          watching = true;
          watch().catch(() => undefined); // stopped mid-request, or the sandbox went away: the find's own calls say so
        }
        if (moved.signal.aborted) return true;
        if (looking && await looking) return true;
        if (after === null) return look(null);
        const count = await this.source.changes!(-1, 0);
        return count === after ? false : look(count);
      },
      stop: () => stopped.abort(),
      movedTo: () => movedTo,
    };
  }
}
