import { OutOfTime } from './tree';

/**
 * Tells a hung application from a slow one: the walk of an application
 * runs out when nothing came back from it for `idleMs`, or at the snapshot's
 * deadline, whichever comes first. An application that keeps answering
 * keeps its walk going.
 */
export class Watchdog {
  readonly expired: Promise<never>;
  private lastSign = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private fire!: (error: OutOfTime) => void;
  private fired = false;

  constructor(private readonly idleMs: number, private readonly deadline: number) {
    this.expired = new Promise<never>((_, reject) => { this.fire = reject; });
    // Nobody may be waiting any more when it fires.
    this.expired.catch(() => undefined);
    this.arm();
  }

  private arm(): void {
    const now = Date.now();
    const due = Math.min(this.lastSign + this.idleMs, this.deadline);
    if (now >= due) {
      this.fired = true;
      this.fire(new OutOfTime(now >= this.deadline ? 'the snapshot deadline passed' : `no answer for ${this.idleMs} ms`));
      return;
    }
    this.timer = setTimeout(() => this.arm(), due - now);
  }

  /** A reply came: the application is alive. */
  feed(): void {
    this.lastSign = Date.now();
  }

  get hasFired(): boolean {
    return this.fired;
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
