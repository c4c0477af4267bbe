import type { CommandRecord } from '../types/analytics';
import type { Service } from '../service/service';
import type { FinishedCommand } from './command-runner';

/** This process's run, unless a runner names the run for all its workers (GLANCE_RUN_ID). */
const PROCESS_RUN = `run-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${process.pid}`;
/** Records held before they are written even without a disconnect. */
const FLUSH_AT = 200;

export function runId(): string {
  return process.env.GLANCE_RUN_ID || PROCESS_RUN;
}

/**
 * Usage analytics (the `analytics` option): each finished command becomes a
 * record (name, duration, outcome, cache hit, engine, model calls and
 * tokens), collected in memory and handed to the Service in batches: the
 * embedded one keeps them in the local database, a team server in its own
 * for the team's console. With analytics off nothing is kept.
 */
export class Analytics {
  private records: CommandRecord[] = [];

  constructor(
    private readonly enabled: boolean,
    private readonly service: Service,
    private readonly session: () => { token: string | null; sessionId: string | null },
    private readonly warn: (line: string) => void,
  ) {}

  observe(command: FinishedCommand): void {
    if (!this.enabled) return;
    this.records.push({
      runId: runId(), sessionId: this.session().sessionId, command: command.command,
      description: command.description?.slice(0, 300) ?? null,
      startedAt: new Date(command.startedAt).toISOString(), durationMs: Math.round(command.durationMs * 10) / 10,
      outcome: command.outcome, errorName: command.errorName, cacheHit: command.cacheHit ?? null, engine: command.engine ?? null,
      modelCalls: command.modelCalls ?? null, modelTokens: command.modelTokens ?? null,
    });
    if (this.records.length >= FLUSH_AT) void this.flush();
  }

  /** Hands the collected records to the Service; a failure to keep them only warns. */
  async flush(): Promise<void> {
    const { token } = this.session();
    if (!this.records.length || !token) return;
    const batch = this.records;
    this.records = [];
    try {
      await this.service.recordCommands(token, batch);
    } catch (error) {
      this.warn(`usage analytics were not kept: ${(error as Error).message}`);
    }
  }
}
