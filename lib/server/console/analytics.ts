import type { Db } from '../../store/db';
import type { AnalyticsView } from './pages';
import { median } from '../../util/median';

const RUNS_SHOWN = 12;

/** The console's charts from the team's command records: locate time by engine, cache hit rate and model finds per run. */
export function analyticsView(db: Db, team: number): AnalyticsView {
  const finds = db.prepare(`SELECT run_id AS runId, command, engine, duration_ms AS ms, cache_hit AS hit, model_calls AS calls, model_tokens AS tokens
    FROM command_analytics WHERE team_id = ? AND command IN ('find', 'findAll', 'assert') ORDER BY id DESC LIMIT 20000`).all(team) as
    { runId: string; command: string; engine: string | null; ms: number; hit: number | null; calls: number | null; tokens: number | null }[];
  const locates = finds.filter((f) => f.command !== 'assert');
  const byEngine = new Map<string, number[]>();
  for (const f of locates) {
    const engine = f.hit ? 'cache' : f.engine ?? 'none';
    byEngine.set(engine, [...(byEngine.get(engine) ?? []), f.ms]);
  }
  const runs = [...new Set(finds.map((f) => f.runId))].slice(0, RUNS_SHOWN).reverse();
  const ofRun = (run: string) => finds.filter((f) => f.runId === run);
  const label = (run: string) => run.slice(-8);
  return {
    locateByEngine: [...byEngine].map(([engine, ms]) => ({ label: engine, value: median(ms) })),
    hitRateByRun: runs.map((run) => {
      const own = ofRun(run).filter((f) => f.command !== 'assert');
      return { label: label(run), value: (100 * own.filter((f) => f.hit).length) / Math.max(1, own.length) };
    }),
    modelCallsByRun: runs.map((run) => ({ label: label(run), value: ofRun(run).reduce((sum, f) => sum + (f.calls ?? 0), 0) })),
    modelTokensByRun: runs.map((run) => ({ label: label(run), value: ofRun(run).reduce((sum, f) => sum + (f.tokens ?? 0), 0) })),
  };
}
