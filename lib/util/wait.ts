/** Bounded waiting: every wait in Glance has a deadline. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `work` has settled (either way), or after `ms`, whichever comes first. */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.then(() => undefined, () => undefined), new Promise((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}

export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/** Waits for the next time something happens: each wait ends at the next wake(), or after its bound. */
export class Wakeup {
  private readonly waiters = new Set<() => void>();

  /** Resolves at the next wake(), or once `timeoutMs` has passed. */
  next(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  /** Ends every wait under way. */
  wake(): void {
    for (const done of [...this.waiters]) done();
  }
}

/**
 * Polls `check` until it returns a value other than undefined/false, or throws
 * a TimeoutError that says what was awaited.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs, intervalMs = 50 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() >= deadline) throw new TimeoutError(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

/**
 * `work`, unless `signal` is aborted first: then it rejects with `reason()`
 * at once, and whatever `work` comes to later is dropped.
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  work.catch(() => undefined); // a rejection after the abort has no one to tell
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const abandon = () => reject(reason());
    signal.addEventListener('abort', abandon, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
  });
}
