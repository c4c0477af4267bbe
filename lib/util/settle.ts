import type { Screen } from '../types/screen';
import { sleep } from './wait';

const LOOK_INTERVAL_MS = 60;

/** How a screen is watched until it holds still. */
export interface HoldStillOptions<T> {
  /** Still: no movement for this long; asked at every look where it can shrink (an answer confirmed some other way). */
  quietMs: number | (() => number);
  /** Epoch ms: the watch ends then, still or not (a video never holds still). */
  deadline: number;
  /** When the quiet starts counting (default: now); earlier for an input whose answer may still come. */
  since?: number;
  /** A look already taken, to compare the next one with. */
  first?: T;
  everyMs?: number;
  /** How the watch waits between looks (default: `everyMs` of sleep); one that ends early at a drawing sees it sooner. */
  pause?: (ms: number) => Promise<void>;
}

/**
 * Looks at the screen until it has held still for `quietMs`: the one rule
 * behind a launch's readiness, an action's settling, keys waiting for an
 * answer and an assertion's still screen. `moved` says whether two looks in
 * a row differ enough to count as movement (a caret's blink may not).
 */
export async function holdStill<T>(look: () => Promise<T>, moved: (previous: T, next: T) => boolean, options: HoldStillOptions<T>): Promise<{ last: T; settled: boolean }> {
  const everyMs = options.everyMs ?? 8;
  let quietSince = options.since ?? Date.now();
  let last = options.first ?? await look();
  const quietMs = typeof options.quietMs === 'number' ? () => options.quietMs as number : options.quietMs;
  for (;;) {
    if (Date.now() - quietSince >= quietMs()) return { last, settled: true };
    if (Date.now() >= options.deadline) return { last, settled: false };
    await (options.pause ?? sleep)(everyMs);
    const next = await look();
    if (moved(last, next)) quietSince = Date.now();
    last = next;
  }
}

/** Waits until the screen holds still (two identical looks in a row), at most `timeoutMs`. */
export async function waitForStillScreen(capture: () => Promise<Screen>, timeoutMs: number): Promise<Screen> {
  const { last } = await holdStill(capture, (a, b) => !a.data.equals(b.data), { quietMs: LOOK_INTERVAL_MS, everyMs: LOOK_INTERVAL_MS, deadline: Date.now() + timeoutMs });
  return last;
}
