import { sleep } from '../../util/wait';
import { holdStill } from '../../util/settle';

/** The least time between a pointer event and a key event that follows it, or the other way round. */
export const INPUT_SWITCH_GAP_MS = 60;
/**
 * How long the screen must hold still, after recent input, before keys are
 * sent. Programs answer some input a poll later: IDLE's shell prints its
 * prompt at its next 50 ms poll after Enter (measured: 63 to 72 ms after
 * it), and takes Enter as a plain line break until then.
 */
export const ANSWER_QUIET_MS = 150;
/** Keys wait for an answer at most this long after the input before them: a clock or a video never holds still. */
export const ANSWER_BOUND_MS = 1000;

export type InputKind = 'pointer' | 'keys';

/** A cheap look at the screen, and whether two looks differ. */
export interface ScreenLooks<T> {
  look(): Promise<T>;
  differ(a: T, b: T): boolean;
}

/**
 * Keeps input in the order it was sent, and keys from overtaking the
 * program's answer to the input before them.
 *
 * - Chromium hands keys and clicks to a page along different paths, so keys
 *   typed in the same instant as a click can overtake it and land in the
 *   field that had the focus before. A person never switches between mouse
 *   and keyboard that fast: when the kind of input changes, the pacer waits
 *   until the other kind's last event is INPUT_SWITCH_GAP_MS old.
 * - Keys go to whatever state the program is in when they arrive, so keys
 *   that follow other input closely wait until the screen has held still for
 *   ANSWER_QUIET_MS since that input: a person sees the answer before typing on.
 *
 * Input that follows a pause is never slowed, nor is a click.
 */
export class InputPacer<T = unknown> {
  private last: { kind: InputKind; at: number } | null = null;

  constructor(private readonly screen: ScreenLooks<T> | null = null, private readonly gapMs = INPUT_SWITCH_GAP_MS) {}

  /** Runs `send` as input of `kind`, paced. */
  async send<R>(kind: InputKind, send: () => Promise<R>): Promise<R> {
    if (this.last && this.last.kind !== kind) {
      const wait = this.last.at + this.gapMs - Date.now();
      if (wait > 0) await sleep(wait);
    }
    if (kind === 'keys' && this.last) await this.answered(this.last.at);
    try {
      return await send();
    } finally {
      this.last = { kind, at: Date.now() };
    }
  }

  /** Waits until the screen has held still for ANSWER_QUIET_MS since the input sent at `inputAt`, within ANSWER_BOUND_MS of it. */
  private async answered(inputAt: number): Promise<void> {
    if (!this.screen || Date.now() - inputAt >= ANSWER_QUIET_MS) return;
    await holdStill(this.screen.look, this.screen.differ, { quietMs: ANSWER_QUIET_MS, since: inputAt, deadline: inputAt + ANSWER_BOUND_MS });
  }
}
