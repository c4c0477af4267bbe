import { Frame } from './driver';
import { sleep } from '../../util/wait';
import { holdStill } from '../../util/settle';
import { changedShare, MOTION_FLOOR, sampleFrame } from '../../image/motion';

/** How an action's redraw is awaited (the client's `redraw` option, resolved). */
export interface RedrawRequest {
  /** Share of the screen that must differ from before the action for it to count as a redraw; false: do not watch the screen. */
  threshold: number | false;
  /** Also wait until the sandbox's programs stop talking on the network. */
  network: boolean;
  /** The whole wait never takes longer. */
  timeoutMs: number;
}

/** What the wait saw, for events and benchmarks. */
export interface RedrawOutcome {
  /** The screen changed by more than the threshold after the action. */
  changed: boolean;
  /** It then held still (false: the timeout came first, e.g. a video or an endless animation). */
  settled: boolean;
  /** The largest share of the screen seen different from before the action. */
  changedShare: number;
  /** The network went quiet (null when not watched). */
  networkQuiet: boolean | null;
  waitedMs: number;
}

const LOOK_EVERY_MS = 8;
/**
 * A change caused by the action shows within this long (an XTEST click shows
 * in about 15 ms, a browser paints on its next frame); with none by then, the
 * screen is taken as static and the action returns.
 */
export const CHANGE_WINDOW_MS = 35;
/** Settled: no motion for this long, three frames of a 60 Hz animation. */
export const QUIET_MS = 50;
const MAX_MARKS = 16;

/** A look at the driver's screen, sampled. */
export async function lookAt(driver: { capture(): Promise<Frame> }): Promise<Uint32Array> {
  return sampleFrame(await driver.capture());
}

/**
 * Redraw detection, inside the agent where a look costs about a millisecond:
 * `mark` keeps a look from before an action, `wait` then waits until the
 * action's redraw has happened and the screen has settled, and, when asked,
 * until the network is quiet. Every wait is bounded by its timeout.
 */
export class RedrawWatch {
  private readonly marks = new Map<string, Uint32Array>();

  constructor(
    private readonly capture: () => Promise<Frame>,
    private readonly networkQuiet: (deadline: number) => Promise<boolean>,
  ) {}

  private async look(): Promise<Uint32Array> {
    return sampleFrame(await this.capture());
  }

  async mark(id: string): Promise<void> {
    this.marks.delete(id);
    if (this.marks.size >= MAX_MARKS) this.marks.delete(this.marks.keys().next().value as string);
    this.marks.set(id, await this.look());
  }

  async wait(id: string, request: RedrawRequest): Promise<RedrawOutcome> {
    const started = Date.now();
    const deadline = started + request.timeoutMs;
    const before = this.marks.get(id);
    this.marks.delete(id);
    let changed = false;
    let settled = true;
    let share = 0;
    if (before && request.threshold !== false) {
      ({ changed, settled, share } = await this.screen(before, request.threshold, deadline));
    }
    const networkQuiet = request.network ? await this.networkQuiet(deadline) : null;
    return { changed, settled, changedShare: Math.round(share * 10000) / 10000, networkQuiet, waitedMs: Date.now() - started };
  }

  private async screen(before: Uint32Array, threshold: number, deadline: number): Promise<{ changed: boolean; settled: boolean; share: number }> {
    const acted = Date.now();
    let share = 0;
    let grown = 0;
    let grewAt = acted;
    let current = before;
    // 1. Did the action redraw the screen? Look until the change passes the
    // threshold. A change that keeps growing (a panel sliding in shows a
    // sliver first) is watched while it grows; none at all within the window,
    // or one that stopped growing below the threshold (a hover tint, a
    // spinner), and the action is done.
    for (;;) {
      current = await this.look();
      share = changedShare(before, current);
      if (share > threshold) break;
      const now = Date.now();
      if (share > grown + MOTION_FLOOR) {
        grown = share;
        grewAt = now;
      }
      if (now - grewAt >= (grown > 0 ? QUIET_MS : CHANGE_WINDOW_MS) || now >= deadline) return { changed: false, settled: true, share: grown };
      await sleep(LOOK_EVERY_MS);
    }
    // 2. It did: wait until nothing (beyond a caret or a spinner) has moved for QUIET_MS.
    const floor = Math.min(MOTION_FLOOR, threshold);
    const { settled } = await holdStill(() => this.look(), (previous, next) => {
      share = Math.max(share, changedShare(before, next));
      return changedShare(previous, next) > floor;
    }, { quietMs: QUIET_MS, everyMs: LOOK_EVERY_MS, deadline, first: current });
    return { changed: true, settled, share };
  }
}
