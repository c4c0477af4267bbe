import { sleep } from '../../util/wait';

/** The least time between a pointer event and a key event that follows it, or the other way round. */
export const INPUT_SWITCH_GAP_MS = 60;

export type InputKind = 'pointer' | 'keys';

/**
 * Keeps pointer and keyboard input in the order it was sent. Chromium hands
 * keys and clicks to a page along different paths, so keys typed in the same
 * instant as a click can overtake it and land in the field that had the focus
 * before. A person never switches between mouse and keyboard that fast: when
 * the kind of input changes, the pacer waits until the other kind's last
 * event is INPUT_SWITCH_GAP_MS old. Input of one kind is never slowed.
 */
export class InputPacer {
  private last: { kind: InputKind; at: number } | null = null;

  constructor(private readonly gapMs = INPUT_SWITCH_GAP_MS) {}

  /** Runs `send` as input of `kind`, paced. */
  async send<T>(kind: InputKind, send: () => Promise<T>): Promise<T> {
    if (this.last && this.last.kind !== kind) {
      const wait = this.last.at + this.gapMs - Date.now();
      if (wait > 0) await sleep(wait);
    }
    try {
      return await send();
    } finally {
      this.last = { kind, at: Date.now() };
    }
  }
}
