import { randomBytes } from 'crypto';
import type { AgentClient } from '../sandbox/agent-client';
import type { ResolvedClientOptions } from '../config/options';
import type { CommandContext } from './command-runner';

/** What the agent's redraw wait reports. */
interface RedrawOutcome {
  changed: boolean;
  settled: boolean;
  changedShare: number;
  networkQuiet: boolean | null;
  waitedMs: number;
}

/**
 * Redraw detection around an action (the `redraw` option): the agent keeps a
 * look at the screen from just before the action, and after it waits until
 * the action's redraw has happened and settled (and, with
 * `thresholds.network`, until the sandbox's programs stop talking), within
 * `redraw.timeout`. The looks stay inside the agent, where they cost about a
 * millisecond each; the client pays two small requests.
 */
export class Redraw {
  private readonly id = randomBytes(6).toString('hex');
  private warnedUnsettled = false;

  constructor(private readonly options: ResolvedClientOptions['redraw'], private readonly warn: (line: string) => void) {}

  get active(): boolean {
    return this.options.enabled && (this.options.thresholds.screen !== false || this.options.thresholds.network);
  }

  /** Runs `action`, then waits for its redraw; the outcome goes into the command's notes. */
  async around<T>(agent: AgentClient, context: CommandContext, action: () => Promise<T>): Promise<T> {
    if (!this.active) return action();
    const { screen, network } = this.options.thresholds;
    if (screen !== false) await agent.call('POST', '/redraw/mark', { id: this.id });
    const result = await action();
    const outcome = await agent.call<RedrawOutcome>('POST', '/redraw/wait', {
      id: this.id, threshold: screen, network, timeoutMs: this.options.timeout,
    }, this.options.timeout + 10_000);
    context.note({ redraw: { changed: outcome.changed, settled: outcome.settled, waitedMs: outcome.waitedMs, networkQuiet: outcome.networkQuiet } });
    if ((!outcome.settled || outcome.networkQuiet === false) && !this.warnedUnsettled) {
      this.warnedUnsettled = true;
      const what = !outcome.settled ? 'the screen was still changing' : "the sandbox's network was still busy";
      this.warn(`${what} ${this.options.timeout} ms after an action (an animation, a video or a long request?); Glance went on. Raise redraw.timeout to wait longer, or lower the waits with redraw.thresholds. (Said once a session.)`);
    }
    return result;
  }
}
