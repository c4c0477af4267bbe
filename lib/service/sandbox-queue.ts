import { QuotaError } from '../config/errors';

/** How often a waiter looks again when nothing woke it: a sandbox can also end by its lease running out. */
const RECHECK_MS = 500;

interface Waiter {
  wake: () => void;
}

/**
 * A team's requests for a sandbox beyond its limit wait here, first come,
 * first served, each no longer than its bound. A slot is a sandbox that the
 * backend says still runs, or one being started; there is no slot table to
 * disagree with the backend.
 */
export class SandboxQueue {
  private readonly waiting = new Map<number, Waiter[]>();
  private readonly starting = new Map<number, number>();

  /** `running(team)`: the team's sandboxes the backend says still run. */
  constructor(private readonly running: (team: number) => number) {}

  /** Waiters and sandboxes being started, by team (the console's queue view). */
  depth(team: number): number {
    return this.waiting.get(team)?.length ?? 0;
  }

  /**
   * Resolves when the team may start a sandbox, with the function that ends
   * the reservation once the sandbox is recorded (or failed to start).
   */
  async acquire(team: { id: number; name: string; sandboxLimit: number | null }, timeoutMs: number): Promise<() => void> {
    const limit = team.sandboxLimit;
    if (limit === null) return () => undefined;
    const queue = this.waiting.get(team.id) ?? [];
    this.waiting.set(team.id, queue);
    const started = Date.now();
    let wake = () => undefined as void;
    const me: Waiter = { wake: () => wake() };
    queue.push(me);
    try {
      for (;;) {
        const free = limit - this.running(team.id) - (this.starting.get(team.id) ?? 0);
        if (queue[0] === me && free > 0) break;
        const left = started + timeoutMs - Date.now();
        if (left <= 0) {
          const position = queue.indexOf(me) + 1;
          throw new QuotaError(`Team '${team.name}' is at its limit of ${limit} sandbox${limit === 1 ? '' : 'es'} at once; this connect waited ${((Date.now() - started) / 1000).toFixed(1)} s in the queue (position ${position} of ${queue.length}) and none came free. End sandboxes kept alive, raise the limit ('glance teams add ${team.name} --sandboxes N'), or give connect more time (the connectTimeout option).`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, RECHECK_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      queue.splice(queue.indexOf(me), 1);
      if (!queue.length) this.waiting.delete(team.id);
      this.wakeAll(team.id);
    }
    this.starting.set(team.id, (this.starting.get(team.id) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.starting.set(team.id, (this.starting.get(team.id) ?? 1) - 1);
      this.wakeAll(team.id);
    };
  }

  /** A slot may have come free: the team's waiters look again. */
  wakeAll(team: number): void {
    for (const waiter of this.waiting.get(team) ?? []) waiter.wake();
  }
}
