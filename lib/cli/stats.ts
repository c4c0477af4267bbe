import fs from 'fs';
import { parseFlags } from './flags';
import { defaultStateDir } from '../config/state-dir';
import { dbPath, openDb } from '../store/db';
import { summarize } from '../store/analytics';
import type { AnalyticsSummary } from '../types/analytics';

/** `glance stats [--runs N] [--json]`: what the local usage analytics say about the last runs. */
export async function statsCommand(args: string[]): Promise<number> {
  const { flags } = parseFlags(args, ['json']);
  const runs = flags.runs === undefined ? 10 : Number(flags.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number of runs from 1, got '${flags.runs}'.`);
  const dir = defaultStateDir();
  if (!fs.existsSync(dbPath(dir))) {
    console.log(`No Glance state in ${dir}: nothing recorded yet.`);
    return 0;
  }
  const db = openDb(dir);
  try {
    const summary = summarize(db, { runs });
    console.log(flags.json ? JSON.stringify(summary, null, 2) : formatSummary(summary));
  } finally {
    db.close();
  }
  return 0;
}

const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);

export function formatSummary(s: AnalyticsSummary): string {
  if (!s.runs.length) return 'No commands recorded yet (analytics is on by default; analytics: false records nothing).';
  const lines = [`Last ${s.runs.length} run(s), newest first:`];
  for (const run of s.runs) {
    lines.push(`  ${run.startedAt}  ${run.runId}  ${run.commands} commands, ${run.errors} failed, ${run.notFound} not found, ${Math.round(run.totalMs / 100) / 10} s in commands`);
  }
  const { locate } = s;
  const rate = locate.cacheHitRate === null ? '-' : `${Math.round(locate.cacheHitRate * 100)}%`;
  const engines = Object.entries(locate.engines).map(([engine, n]) => `${engine} ${n}`).join(', ') || '-';
  lines.push('', `Locating: ${locate.finds} finds, median ${ms(locate.medianMs)}, p90 ${ms(locate.p90Ms)}, cache hits ${locate.cacheHits} (${rate}); engines: ${engines}`);
  if (s.slowest.length) {
    lines.push('', 'Slowest descriptions (median):');
    for (const d of s.slowest) lines.push(`  ${String(d.medianMs).padStart(8)} ms  ${d.command} '${d.description}' (${d.count}x, max ${d.maxMs} ms)`);
  }
  lines.push('', 'Commands:');
  for (const c of s.commands) lines.push(`  ${c.command.padEnd(18)} ${String(c.count).padStart(6)}x  median ${ms(c.medianMs)}${c.errors ? `, ${c.errors} failed` : ''}`);
  return lines.join('\n');
}
