/**
 * How long a sandbox lives. While a client is attached, each request renews a
 * lease; when the client detaches (or stops renewing, because its process
 * died) the sandbox stays rejoinable for the session's keepAlive, then ends
 * itself. A sandbox therefore never outlives its last user by more than
 * lease + keepAlive.
 */
export type LifetimeState = 'attached' | 'kept-alive' | 'terminating';

export const LEASE_MS = 30_000;

export class Lifetime {
  private timer: NodeJS.Timeout | null = null;
  private keepAliveMs: number;
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

  /** Any request from an attached client renews its lease. */
  renew(): void {
    if (this.state !== 'attached') return;
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
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
