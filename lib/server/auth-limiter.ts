/**
 * Failed sign-ins, counted per address and per key over a sliding minute: past
 * the limit, further attempts are refused until the oldest failure ages out,
 * so that keys cannot be guessed at speed.
 */
const WINDOW_MS = 60_000;

export class AuthLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly perMinute = 10) {}

  /** Seconds to wait before another attempt from these sources, or 0 when one may be made now. */
  waitSeconds(sources: string[], now = Date.now()): number {
    let wait = 0;
    for (const source of sources) {
      const recent = this.recent(source, now);
      if (recent.length >= this.perMinute) wait = Math.max(wait, Math.ceil((recent[0] + WINDOW_MS - now) / 1000));
    }
    return wait;
  }

  fail(sources: string[], now = Date.now()): void {
    for (const source of sources) this.failures.set(source, [...this.recent(source, now), now]);
  }

  private recent(source: string, now: number): number[] {
    const kept = (this.failures.get(source) ?? []).filter((t) => t > now - WINDOW_MS);
    if (kept.length) this.failures.set(source, kept);
    else this.failures.delete(source);
    return kept;
  }
}
