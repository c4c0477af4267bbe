import fs from 'fs';
import path from 'path';
import type { Db } from '../store/db';
import { evidenceDir } from './runs';
import { UNUSED_SCREENS } from '../cache/store';

export const DEFAULT_RETAIN_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface Pruned {
  results: number;
  evidenceFiles: number;
  screenshots: number;
  cacheEntries: number;
  commands: number;
}

/**
 * Removes what is older than the retention: runs and their evidence files,
 * not-found screenshots, cache entries not used since, usage records and the
 * history of ended sandboxes. Runs at the server's start and then daily.
 */
export function prune(db: Db, stateDir: string, retainDays: number, now = Date.now()): Pruned {
  const cutoff = now - retainDays * DAY_MS;
  const iso = new Date(cutoff).toISOString();
  const files = db.prepare('SELECT team_id AS team, file FROM evidence_files WHERE result_id IN (SELECT id FROM scenario_results WHERE finished_at < ?)').all(iso) as { team: number; file: string }[];
  for (const f of files) fs.rmSync(path.join(evidenceDir(stateDir, f.team), f.file), { force: true });
  const crops = db.prepare('SELECT crop_path AS file FROM cache_entries WHERE last_used_at < ? AND crop_path IS NOT NULL').all(cutoff) as { file: string }[];
  for (const c of crops) fs.rmSync(c.file, { force: true });
  const counts = db.transaction(() => ({
    evidenceFiles: db.prepare('DELETE FROM evidence_files WHERE result_id IN (SELECT id FROM scenario_results WHERE finished_at < ?)').run(iso).changes,
    results: db.prepare('DELETE FROM scenario_results WHERE finished_at < ?').run(iso).changes,
    cacheEntries: db.prepare('DELETE FROM cache_entries WHERE last_used_at < ?').run(cutoff).changes
      + db.prepare('DELETE FROM cache_assertions WHERE last_used_at < ?').run(cutoff).changes,
    commands: db.prepare('DELETE FROM command_analytics WHERE started_at < ?').run(iso).changes,
    ended: db.prepare('DELETE FROM sandbox_owners WHERE ended_at IS NOT NULL AND ended_at < ?').run(iso).changes,
  })).immediate();
  db.prepare(UNUSED_SCREENS).run();
  return { results: counts.results, evidenceFiles: counts.evidenceFiles, cacheEntries: counts.cacheEntries, commands: counts.commands, screenshots: pruneFiles(path.join(stateDir, 'screenshots'), cutoff) };
}

/** Files under a folder last written before the cutoff; empty folders go too. Returns how many files. */
function pruneFiles(dir: string, cutoff: number): number {
  if (!fs.existsSync(dir)) return 0;
  let removed = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += pruneFiles(full, cutoff);
      if (!fs.readdirSync(full).length) fs.rmdirSync(full);
    } else if (fs.statSync(full).mtimeMs < cutoff) {
      fs.rmSync(full, { force: true });
      removed++;
    }
  }
  return removed;
}
