import type { Db } from './db';
import type { AnalyticsSummary, CommandRecord } from '../types/analytics';

/** Rows kept: the oldest go first, so the database stays small on a busy machine. */
export const MAX_ANALYTICS_ROWS = 200_000;
const FIND_COMMANDS = ['find', 'findAll'];

/** Keeps the records; `teamId` is the team whose key sent them (the team server's analytics are per team). */
export function insertCommands(db: Db, records: CommandRecord[], maxRows = MAX_ANALYTICS_ROWS, teamId: number | null = null): number {
  const insert = db.prepare(`INSERT INTO command_analytics
    (run_id, session_id, command, description, started_at, duration_ms, outcome, error_name, cache_hit, engine, team_id, model_calls, model_tokens)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const r of records) {
      insert.run(r.runId, r.sessionId, r.command, r.description, r.startedAt, r.durationMs, r.outcome, r.errorName,
        r.cacheHit === null ? null : Number(r.cacheHit), r.engine, teamId, r.modelCalls ?? null, r.modelTokens ?? null);
    }
    db.prepare('DELETE FROM command_analytics WHERE id <= (SELECT max(id) FROM command_analytics) - ?').run(maxRows);
  })();
  return records.length;
}

function quantile(sorted: number[], q: number): number | null {
  if (!sorted.length) return null;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return Math.round((sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low)) * 10) / 10;
}

/** The summary of the last `runs` runs: commands per run, locate time and cache hits, the slowest descriptions. */
export function summarize(db: Db, { runs = 10, slowest = 10 }: { runs?: number; slowest?: number } = {}): AnalyticsSummary {
  const recent = db.prepare(`SELECT run_id AS runId, min(started_at) AS startedAt, count(*) AS commands,
      sum(outcome = 'error') AS errors, sum(outcome = 'not-found') AS notFound, round(sum(duration_ms)) AS totalMs
    FROM command_analytics GROUP BY run_id ORDER BY min(started_at) DESC LIMIT ?`).all(runs) as AnalyticsSummary['runs'];
  const ids = recent.map((r) => r.runId);
  const rows = ids.length
    ? db.prepare(`SELECT command, description, duration_ms AS ms, outcome, cache_hit AS hit, engine FROM command_analytics
        WHERE run_id IN (${ids.map(() => '?').join(',')})`).all(...ids) as { command: string; description: string | null; ms: number; outcome: string; hit: number | null; engine: string | null }[]
    : [];
  const finds = rows.filter((r) => FIND_COMMANDS.includes(r.command));
  const findTimes = finds.map((r) => r.ms).sort((a, b) => a - b);
  const hits = finds.filter((r) => r.hit === 1).length;
  const engines: Record<string, number> = {};
  for (const r of finds) if (r.engine) engines[r.engine] = (engines[r.engine] ?? 0) + 1;

  const group = <K extends string>(list: typeof rows, key: (r: (typeof rows)[number]) => K | null) => {
    const groups = new Map<K, typeof rows>();
    for (const r of list) {
      const k = key(r);
      if (k === null) continue;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k)!.push(r);
    }
    return groups;
  };
  const described = group(rows.filter((r) => r.description), (r) => `${r.command}\u0000${r.description}`);
  const slow = [...described.entries()].map(([k, list]) => {
    const times = list.map((r) => r.ms).sort((a, b) => a - b);
    const [command, description] = k.split('\u0000');
    return { description, command, count: list.length, medianMs: quantile(times, 0.5)!, maxMs: Math.round(times.at(-1)! * 10) / 10 };
  }).sort((a, b) => b.medianMs - a.medianMs).slice(0, slowest);
  const commands = [...group(rows, (r) => r.command).entries()].map(([command, list]) => ({
    command, count: list.length, medianMs: quantile(list.map((r) => r.ms).sort((a, b) => a - b), 0.5)!, errors: list.filter((r) => r.outcome === 'error').length,
  })).sort((a, b) => b.count - a.count);
  return {
    runs: recent.map((r) => ({ ...r, errors: Number(r.errors), notFound: Number(r.notFound) })),
    locate: {
      finds: finds.length, medianMs: quantile(findTimes, 0.5), p90Ms: quantile(findTimes, 0.9),
      cacheHits: hits, cacheHitRate: finds.length ? Math.round((hits / finds.length) * 1000) / 1000 : null, engines,
    },
    slowest: slow,
    commands,
  };
}
