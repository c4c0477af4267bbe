/**
 * How long a sandbox lives. While a client is attached, its lease runs only
 * between requests: a request in progress (a long shell command, a launch
 * that waits for its program) holds the sandbox, and the lease starts again
 * when it is answered. When the client detaches (or stops asking, because its
 * process died) the sandbox stays rejoinable for the session's keepAlive, then
 * ends itself. A sandbox therefore never outlives its last user by more than
 * its last request + lease + keepAlive.
 */
export type LifetimeState = 'attached' | 'kept-alive' | 'terminating';

export const LEASE_MS = 30_000;

export class Lifetime {
  private timer: NodeJS.Timeout | null = null;
  private keepAliveMs: number;
  /** Requests being served now: the lease does not run while there is one. */
  private inProgress = 0;
  state: LifetimeState = 'kept-alive';
  expiresAt: number | null = null;

  constructor(
    private readonly onExpire: (reason: string) => void,
    initialKeepAliveMs: number,
    private readonly leaseMs = LEASE_MS,
  ) {
    this.keepAliveMs = initialKeepAliveMs;
    this.schedule(Math.max(initialKeepAliveMs, leaseMs), 'nobody attached after start');
  }

  /** A client attached: hold the sandbox while it keeps talking. */
  attach(keepAliveMs: number): void {
    this.keepAliveMs = keepAliveMs;
    this.state = 'attached';
    this.renew();
  }

  /** A request came in: the sandbox is held until it is answered. */
  requestStarted(): void {
    this.inProgress++;
    this.renew();
  }

  /** A request was answered: an attached client's lease runs from now. */
  requestEnded(): void {
    this.inProgress = Math.max(0, this.inProgress - 1);
    this.renew();
  }

  private renew(): void {
    if (this.state !== 'attached') return;
    if (this.inProgress > 0) {
      this.cancel();
      return;
    }
    this.schedule(this.leaseMs, 'client stopped responding', () => this.release(this.keepAliveMs));
  }

  /** The client detached: stay rejoinable for `keepAliveMs`, then end. */
  release(keepAliveMs: number): void {
    if (this.state === 'terminating') return;
    this.state = 'kept-alive';
    this.keepAliveMs = keepAliveMs;
    this.schedule(keepAliveMs, `keepAlive of ${keepAliveMs} ms expired`);
  }

  end(): void {
    this.state = 'terminating';
    this.cancel();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.expiresAt = null;
  }

  private schedule(ms: number, reason: string, action?: () => void): void {
    if (this.timer) clearTimeout(this.timer);
    this.expiresAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (action) action();
      else this.onExpire(reason);
    }, ms);
  }
}
