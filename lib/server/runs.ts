import fs from 'fs';
import path from 'path';
import type { Db } from '../store/db';
import type { EvidenceRow, ResultRow, ScenarioReport } from '../types/runs';

export type { EvidenceRow, ResultRow, ScenarioReport };

/**
 * Runs reported to the team server: one row per scenario attempt, with its
 * evidence files (the failure's screenshot, the dashcam clip) kept under the
 * state folder. A run is one GLANCE_RUN_ID, so the shards of a pipeline show
 * as one run; a scenario is its feature file and name (and example row), so
 * its history survives edits that move its line.
 */
export interface RunSummary {
  runId: string;
  startedAt: string;
  finishedAt: string;
  scenarios: number;
  passed: number;
  failed: number;
  flaky: number;
  durationMs: number;
}

export interface ScenarioHistory {
  scenario: string;
  /** Each run's final word, newest first: passed, failed, or flaky (passed only on a retry). */
  outcomes: { runId: string; outcome: 'passed' | 'failed' | 'flaky' | 'other'; durationMs: number; finishedAt: string }[];
  /** Share of those runs where it was flaky. */
  flakeRate: number;
}

const EVIDENCE_TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'video/mp4': 'mp4' };
export const EVIDENCE_CONTENT_TYPES = Object.keys(EVIDENCE_TYPES);

export function recordResult(db: Db, team: number, r: ScenarioReport): number {
  return Number(db.prepare(`INSERT INTO scenario_results
      (team_id, run_id, scenario, feature, name, attempt, outcome, will_retry, duration_ms, failing_step, error, finished_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(team, r.runId, r.scenario, r.feature, r.name, r.attempt, r.outcome, Number(r.willRetry), r.durationMs, r.failingStep, r.error, new Date().toISOString()).lastInsertRowid);
}

/** Whether the result is the team's (evidence is added only to one's own results). */
export function ownsResult(db: Db, team: number, resultId: number): boolean {
  return Boolean(db.prepare('SELECT 1 FROM scenario_results WHERE id = ? AND team_id = ?').get(resultId, team));
}

export function evidenceDir(stateDir: string, team: number): string {
  return path.join(stateDir, 'evidence', `team-${team}`);
}

export function addEvidence(db: Db, stateDir: string, team: number, resultId: number, kind: string, contentType: string, data: Buffer): number {
  const dir = evidenceDir(stateDir, team);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const id = Number(db.prepare('INSERT INTO evidence_files (team_id, result_id, kind, content_type, bytes, file, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(team, resultId, kind, contentType, data.length, '', new Date().toISOString()).lastInsertRowid);
  const file = `${resultId}-${id}.${EVIDENCE_TYPES[contentType]}`;
  fs.writeFileSync(path.join(dir, file), data, { mode: 0o600 });
  db.prepare('UPDATE evidence_files SET file = ? WHERE id = ?').run(file, id);
  return id;
}

/** An evidence file of the team, or null (another team's is answered as missing). */
export function evidenceFile(db: Db, stateDir: string, team: number, id: number): { file: string; contentType: string } | null {
  const row = db.prepare('SELECT file, content_type AS contentType FROM evidence_files WHERE id = ? AND team_id = ?').get(id, team) as { file: string; contentType: string } | undefined;
  return row ? { file: path.join(evidenceDir(stateDir, team), row.file), contentType: row.contentType } : null;
}

/** The attempt that is each scenario's last word in a run, and whether an earlier attempt failed (flaky). */
const FINAL = `WITH attempts AS (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY run_id, scenario ORDER BY attempt DESC, id DESC) AS latest,
      MAX(outcome = 'failed') OVER (PARTITION BY run_id, scenario) AS anyFailed
    FROM scenario_results WHERE team_id = ?)
  SELECT run_id AS runId, scenario, finished_at AS finishedAt, duration_ms AS durationMs,
    CASE WHEN outcome = 'passed' AND anyFailed THEN 'flaky' WHEN outcome IN ('passed', 'failed') THEN outcome ELSE 'other' END AS final
  FROM attempts WHERE latest = 1`;

export function listRuns(db: Db, team: number, limit = 50): RunSummary[] {
  return db.prepare(`WITH final AS (${FINAL})
    SELECT f.runId, MIN(r.finished_at) AS startedAt, MAX(r.finished_at) AS finishedAt,
      (SELECT COUNT(*) FROM final g WHERE g.runId = f.runId) AS scenarios,
      (SELECT COUNT(*) FROM final g WHERE g.runId = f.runId AND g.final = 'passed') AS passed,
      (SELECT COUNT(*) FROM final g WHERE g.runId = f.runId AND g.final = 'failed') AS failed,
      (SELECT COUNT(*) FROM final g WHERE g.runId = f.runId AND g.final = 'flaky') AS flaky,
      (SELECT SUM(duration_ms) FROM scenario_results s WHERE s.team_id = ? AND s.run_id = f.runId) AS durationMs
    FROM final f JOIN scenario_results r ON r.team_id = ? AND r.run_id = f.runId
    GROUP BY f.runId ORDER BY finishedAt DESC LIMIT ?`).all(team, team, team, limit) as RunSummary[];
}

export function runResults(db: Db, team: number, runId: string): ResultRow[] {
  const rows = db.prepare(`SELECT id, run_id AS runId, scenario, feature, name, attempt, outcome, will_retry AS willRetry, duration_ms AS durationMs,
      failing_step AS failingStep, error, finished_at AS finishedAt
    FROM scenario_results WHERE team_id = ? AND run_id = ? ORDER BY feature, name, attempt`).all(team, runId) as (Omit<ResultRow, 'willRetry'> & { willRetry: number })[];
  const evidence = db.prepare('SELECT id, kind, content_type AS contentType, bytes FROM evidence_files WHERE result_id = ? AND team_id = ? ORDER BY id');
  return rows.map((row) => ({ ...row, willRetry: Boolean(row.willRetry), evidence: evidence.all(row.id, team) as EvidenceRow[] }));
}

/** Each scenario's last `runs` outcomes, newest first, with its flake rate; the flakiest first. */
export function scenarioHistory(db: Db, team: number, runs = 20): ScenarioHistory[] {
  const rows = db.prepare(`WITH final AS (${FINAL}) SELECT * FROM final ORDER BY finishedAt DESC`).all(team) as
    { runId: string; scenario: string; finishedAt: string; durationMs: number; final: ScenarioHistory['outcomes'][number]['outcome'] }[];
  const byScenario = new Map<string, ScenarioHistory>();
  for (const row of rows) {
    let history = byScenario.get(row.scenario);
    if (!history) byScenario.set(row.scenario, (history = { scenario: row.scenario, outcomes: [], flakeRate: 0 }));
    if (history.outcomes.length < runs) history.outcomes.push({ runId: row.runId, outcome: row.final, durationMs: row.durationMs, finishedAt: row.finishedAt });
  }
  const all = [...byScenario.values()];
  for (const h of all) h.flakeRate = h.outcomes.filter((o) => o.outcome === 'flaky').length / h.outcomes.length;
  return all.sort((a, b) => b.flakeRate - a.flakeRate || a.scenario.localeCompare(b.scenario));
}

/** A run of SDK commands with no Cucumber scenarios (a script, another test runner), from the team's usage records. */
export interface CommandRun {
  runId: string;
  startedAt: string;
  commands: number;
  errors: number;
  durationMs: number;
}

export function commandRuns(db: Db, team: number, limit = 50): CommandRun[] {
  return db.prepare(`SELECT run_id AS runId, MIN(started_at) AS startedAt, COUNT(*) AS commands,
      SUM(outcome != 'success') AS errors, SUM(duration_ms) AS durationMs
    FROM command_analytics WHERE team_id = ? AND run_id NOT IN (SELECT run_id FROM scenario_results WHERE team_id = ?)
    GROUP BY run_id ORDER BY startedAt DESC LIMIT ?`).all(team, team, limit) as CommandRun[];
}

export interface CommandRow {
  command: string;
  description: string | null;
  startedAt: string;
  durationMs: number;
  outcome: string;
  errorName: string | null;
}

export function runCommands(db: Db, team: number, runId: string, limit = 2000): CommandRow[] {
  return db.prepare(`SELECT command, description, started_at AS startedAt, duration_ms AS durationMs, outcome, error_name AS errorName
    FROM command_analytics WHERE team_id = ? AND run_id = ? ORDER BY started_at LIMIT ?`).all(team, runId, limit) as CommandRow[];
}
