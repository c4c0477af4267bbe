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
/**
 * The still screen asked for once a browser page has reported the input
 * handled: it has the input, so only an answer drawn after it (a dialog
 * sliding in, a field focused late) can still be on its way, and that
 * shows within three frames.
 */
export const ECHOED_QUIET_MS = 50;
/** Keys wait for an answer at most this long after the input before them: a clock or a video never holds still. */
export const ANSWER_BOUND_MS = 1000;

export type InputKind = 'pointer' | 'keys';

/** How many input releases the program under the pointer or keyboard reported handled; browsers' pages report, other programs do not. */
export interface HandledInput {
  inputsHandled(): number;
}

const NOTHING_REPORTED: HandledInput = { inputsHandled: () => 0 };

/** What pacing an input cost, for the command's reply. */
export interface Pacing {
  /** How long the input waited before it was sent. */
  waitedMs: number;
  /** Whether a page had reported the input before it handled (null: there was none to wait for). */
  previousEchoed: boolean | null;
}

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
 * A browser page reports each release it handled (see input-echoes.ts). Once it
 * reported every release of the last input, that input has arrived: no gap
 * is needed, and the screen need only hold still for ECHOED_QUIET_MS.
 *
 * Input that follows a pause is never slowed, nor is a click.
 */
export class InputPacer<T = unknown> {
  /** The last input: its kind, when it was sent, and the echo count that says a page handled all of it (null: none expected). */
  private last: { kind: InputKind; at: number; echoedAt: number | null } | null = null;

  constructor(
    private readonly screen: ScreenLooks<T> | null = null,
    private readonly echoes: HandledInput = NOTHING_REPORTED,
    private readonly gapMs = INPUT_SWITCH_GAP_MS,
  ) {}

  /**
   * Runs `send` as input of `kind`, paced. `send` resolves to how many
   * releases (button or key) it sent: what a page will report.
   */
  async send(kind: InputKind, send: () => Promise<number>): Promise<Pacing> {
    const started = Date.now();
    const last = this.last;
    if (last && last.kind !== kind && !this.echoed(last)) {
      const wait = last.at + this.gapMs - Date.now();
      if (wait > 0) await sleep(wait);
    }
    if (kind === 'keys' && last) await this.answered(last);
    const pacing: Pacing = { waitedMs: Date.now() - started, previousEchoed: last ? this.echoed(last) : null };
    const base = Math.max(this.echoes.inputsHandled(), this.stillReporting(last));
    let releases = 0;
    try {
      releases = await send();
    } finally {
      this.last = { kind, at: Date.now(), echoedAt: releases > 0 ? base + releases : null };
    }
    return pacing;
  }

  /** The count of reported releases that says a page has handled the last input (null: it sent none). */
  lastEchoAt(): number | null {
    return this.last?.echoedAt ?? null;
  }

  /**
   * The report count that the input before will reach, while its releases
   * are still on their way: a page's late report of them must not pass for
   * this input's. Once ANSWER_BOUND_MS has gone by, they are taken as going
   * to a program that reports nothing (0).
   */
  private stillReporting(input: { at: number; echoedAt: number | null } | null): number {
    if (!input || input.echoedAt === null || Date.now() - input.at >= ANSWER_BOUND_MS) return 0;
    return input.echoedAt;
  }

  private echoed(input: { echoedAt: number | null }): boolean {
    return input.echoedAt !== null && this.echoes.inputsHandled() >= input.echoedAt;
  }

  /** Waits until the screen has held still since the input (ANSWER_QUIET_MS, or ECHOED_QUIET_MS once a page reported it), within ANSWER_BOUND_MS of it. */
  private async answered(input: { at: number; echoedAt: number | null }): Promise<void> {
    if (!this.screen || Date.now() - input.at >= ANSWER_QUIET_MS) return;
    const quietMs = () => (this.echoed(input) ? ECHOED_QUIET_MS : ANSWER_QUIET_MS);
    await holdStill(this.screen.look, this.screen.differ, { quietMs, since: input.at, deadline: input.at + ANSWER_BOUND_MS });
  }
}
