import { Wakeup } from '../../util/wait';

/**
 * The screen's changes as the X server reports them (the DAMAGE extension):
 * a counter that goes up each time something is drawn. Waiting on it costs
 * nothing while the screen is still, and wakes the moment it is not, where
 * looking again and again would cost a capture each time.
 */
export class ScreenChanges {
  private count = 0;
  private readonly changed = new Wakeup();

  get current(): number {
    return this.count;
  }

  /** Something was drawn. */
  bump(): void {
    this.count++;
    this.changed.wake();
  }

  /** The counter once it has passed `after`, or as it is when `timeoutMs` has passed first. */
  next(after: number, timeoutMs: number): Promise<number> {
    if (this.count > after || timeoutMs <= 0) return Promise.resolve(this.count);
    return this.changed.next(timeoutMs).then(() => this.count);
  }
}
