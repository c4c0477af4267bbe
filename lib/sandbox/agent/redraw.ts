import { Frame } from './driver';
import { NO_PAGES, PageActivity } from './page-loads';
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
/**
 * A page that finished loading without its new content on the screen yet is
 * waited for until it has drawn frames after the load (the browser keeps the
 * old page's frame until the new one paints), and this long at most: a page
 * that draws nothing contentful is held back by the browser for a while.
 */
const PAINT_AFTER_LOAD_MS = 500;
/** A page that takes longer to handle an action (a long script) is not waited for beyond this. */
const INPUT_TURN_MS = 1000;

/** A look at the screen, sampled. */
export async function lookAt(capture: () => Promise<Frame>): Promise<Uint32Array> {
  return sampleFrame(await capture());
}

/**
 * Redraw detection, inside the agent where a look costs about a millisecond:
 * `mark` keeps a look from before an action, `wait` then waits until the
 * action's redraw has happened and the screen has settled, and, when asked,
 * until the network is quiet. Every wait is bounded by its timeout.
 */
export class RedrawWatch {
  /** The look before each action, and when it was taken. */
  private readonly marks = new Map<string, { look: Uint32Array; at: number }>();

  constructor(
    private readonly capture: () => Promise<Frame>,
    private readonly networkQuiet: (deadline: number) => Promise<boolean>,
    /** The browser's pages: a load an action asked for is a redraw on its way. */
    private readonly pages: PageActivity = NO_PAGES,
    /** The wait between looks: one that ends at the next drawing sees a change sooner. */
    private readonly pause: (ms: number) => Promise<void> = sleep,
  ) {}

  private look(): Promise<Uint32Array> {
    return lookAt(this.capture);
  }

  async mark(id: string): Promise<void> {
    this.marks.delete(id);
    if (this.marks.size >= MAX_MARKS) this.marks.delete(this.marks.keys().next().value as string);
    const at = Date.now();
    this.marks.set(id, { look: await this.look(), at });
  }

  async wait(id: string, request: RedrawRequest): Promise<RedrawOutcome> {
    const started = Date.now();
    const deadline = started + request.timeoutMs;
    const mark = this.marks.get(id);
    this.marks.delete(id);
    let changed = false;
    let settled = true;
    let share = 0;
    if (mark && request.threshold !== false) {
      // The pages' report of the action, then two frames drawn after it: the first holds what the handler
      // changed, and the second starts once that was handed on for the screen. A frame asked for before the
      // report may have been drawn before the input reached the page.
      let reportedAt: number | null = null;
      let handledAt: number | null = null;
      const turnEnds = Date.now() + Math.min(INPUT_TURN_MS, request.timeoutMs);
      void this.pages.inputReported(turnEnds - Date.now(), mark.at).then(async () => {
        reportedAt = Date.now();
        await this.pages.framesDrawn(Math.max(0, turnEnds - Date.now()));
        handledAt = Date.now();
      });
      const pages = { reportedAt: () => reportedAt, handledAt: () => handledAt, loading: () => this.pages.loadingSince(mark.at), loaded: () => this.pages.loadedSince(mark.at) };
      ({ changed, settled, share } = await this.screen(mark.look, pages, request.threshold, deadline));
    }
    const networkQuiet = request.network ? await this.networkQuiet(deadline) : null;
    return { changed, settled, changedShare: Math.round(share * 10000) / 10000, networkQuiet, waitedMs: Date.now() - started };
  }

  private async screen(before: Uint32Array, pages: { reportedAt(): number | null; handledAt(): number | null; loading(): boolean; loaded(): boolean }, threshold: number, deadline: number): Promise<{ changed: boolean; settled: boolean; share: number }> {
    const acted = Date.now();
    let share = 0;
    let grown = 0;
    let grewAt = acted;
    let current = before;
    // 1. Did the action redraw the screen? Look until the change passes the
    // threshold. A change that keeps growing (a panel sliding in shows a
    // sliver first) is watched while it grows; none at all within the window,
    // or one that stopped growing below the threshold (a hover tint, a
    // spinner), and the action is done. A browser page that has not yet
    // handled the action, or loads what it asked for, has a redraw on its
    // way: the old page stays on the screen until the new one paints, and
    // a load that already finished may not have painted yet.
    for (;;) {
      const lookedAt = Date.now();
      current = await this.look();
      share = changedShare(before, current);
      if (share > threshold || pages.loading() || pages.loaded()) break;
      const now = Date.now();
      if (share > grown + MOTION_FLOOR) {
        grown = share;
        grewAt = now;
      }
      // The window for a change opens at the pages' report of the action, where that comes later, and ends
      // no sooner than a look taken a frame after they drew it.
      const [reportedAt, handledAt] = [pages.reportedAt(), pages.handledAt()];
      const quiet = reportedAt !== null && handledAt !== null && lookedAt >= handledAt + PRESENT_MS && (grown > 0
        ? now - Math.max(grewAt, handledAt) >= QUIET_MS
        : now - Math.max(grewAt, reportedAt) >= CHANGE_WINDOW_MS);
      if (quiet || now >= deadline) return { changed: false, settled: true, share: grown };
      await this.pause(LOOK_EVERY_MS);
    }
    // 2. It did: wait until the pages are done with the action and nothing
    // (beyond a caret or a spinner) has moved for QUIET_MS. A load seen
    // before any change on the screen must also show its page: the pages
    // draw after the load, and a look a frame later (below) shows what they
    // drew, however little the new page differs from the old one.
    const floor = Math.min(MOTION_FLOOR, threshold);
    const awaitingPaint = share <= threshold;
    const framesDrawn = (timeoutMs: number) => this.pages.framesDrawn(timeoutMs);
    let afterLoad: { at: number; drawn: DrawnSinceMotion } | null = null;
    const unpainted = (next: Uint32Array) => {
      if (!awaitingPaint || changedShare(before, next) > threshold) return false;
      afterLoad ??= { at: Date.now(), drawn: new DrawnSinceMotion(framesDrawn, Math.min(deadline, Date.now() + PAINT_AFTER_LOAD_MS)) };
      return !afterLoad.drawn.drawn() && Date.now() - afterLoad.at < PAINT_AFTER_LOAD_MS;
    };
    const drawn = new DrawnSinceMotion(framesDrawn, deadline);
    let lookedAt = 0;
    const look = async () => {
      lookedAt = Date.now();
      const next = await this.look();
      drawn.looked(lookedAt);
      return next;
    };
    // Pages not done yet hold the wait, but are no motion: the quiet counts from the screen's last move,
    // so that a page painted before its load was heard of needs no second quiet window. What the pages
    // drew as they got done shows a frame later: a look that late must see it, or see nothing move.
    let doneAt: number | null = null;
    const { settled } = await holdStill(look, (previous, next) => {
      share = Math.max(share, changedShare(before, next));
      if (pages.handledAt() === null || pages.loading() || unpainted(next)) doneAt = null;
      else doneAt ??= Date.now();
      const moved = changedShare(previous, next) > floor;
      if (moved) drawn.moved();
      return moved;
    }, { quietMs: () => (doneAt !== null && lookedAt >= doneAt + PRESENT_MS && drawn.confirmed() ? QUIET_MS : Infinity), everyMs: LOOK_EVERY_MS, pause: this.pause, deadline, first: current });
    return { changed: true, settled, share };
  }
}

/** A frame a page has drawn reaches the X server a moment later: a look this long after the pages drew shows it. */
const PRESENT_MS = 17;

/**
 * Whether the browser's pages have drawn since the screen last moved, or
 * since it was made (a finished load's page). A quiet window proves a still
 * screen only if frames were drawn in it: a starved machine can draw none for
 * longer than QUIET_MS in the middle of an animation, and the screen then
 * looks still. One ask for two frames is under way at a time; once an ask
 * made after the last motion has come back and a look was taken a frame
 * after it, the quiet counts. Where no browser runs, the ask comes back at
 * once.
 */
class DrawnSinceMotion {
  private motionAt = Date.now();
  private asking = false;
  /** When an ask made after the last motion came back (null: none yet). */
  private drawnAt: number | null = null;
  private lookedAt = 0;

  constructor(private readonly framesDrawn: (timeoutMs: number) => Promise<void>, private readonly deadline: number) {
    this.ask();
  }

  private ask(): void {
    const askedAt = Date.now();
    this.asking = true;
    void this.framesDrawn(Math.max(0, Math.min(INPUT_TURN_MS, this.deadline - askedAt))).then(() => {
      this.asking = false;
      if (askedAt >= this.motionAt) this.drawnAt = Date.now();
      else this.ask();
    });
  }

  moved(): void {
    this.motionAt = Date.now();
    this.drawnAt = null;
    if (!this.asking) this.ask();
  }

  looked(at: number): void {
    this.lookedAt = at;
  }

  /** The pages have drawn since (what they drew may not be on the screen yet). */
  drawn(): boolean {
    return this.drawnAt !== null;
  }

  /** The pages have drawn since, and a look a frame later shows it. */
  confirmed(): boolean {
    return this.drawnAt !== null && this.lookedAt >= this.drawnAt + PRESENT_MS;
  }
}
