import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { openDb } from '../../lib/store/db';
import { createApiKey } from '../../lib/service/api-keys';
import { addEvidence, recordResult } from '../../lib/server/runs';
import { prune } from '../../lib/server/retention';
import { insertCommands } from '../../lib/store/analytics';
import { testState } from '../helpers/glance';

test('retention prunes runs with their evidence files, old screenshots, cache entries and usage records, and keeps what is recent', () => {
  const { stateDir } = testState();
  const db = openDb(stateDir);
  try {
    const team = createApiKey(db, 'qa').teamId;
    const now = Date.parse('2026-11-27T12:00:00Z');
    const report = { scenario: 'a.feature: A', feature: 'a.feature', name: 'A', attempt: 1, outcome: 'failed' as const, willRetry: false, durationMs: 10, failingStep: null, error: null };
    const old = recordResult(db, team, { ...report, runId: 'old' });
    const recent = recordResult(db, team, { ...report, runId: 'recent' });
    db.prepare('UPDATE scenario_results SET finished_at = ? WHERE id = ?').run('2026-09-01T00:00:00.000Z', old);
    db.prepare('UPDATE scenario_results SET finished_at = ? WHERE id = ?').run('2026-11-20T00:00:00.000Z', recent);
    addEvidence(db, stateDir, team, old, 'failure', 'image/png', Buffer.from('old picture'));
    addEvidence(db, stateDir, team, recent, 'failure', 'image/png', Buffer.from('recent picture'));
    const shots = path.join(stateDir, 'screenshots', `team-${team}`, 'login');
    fs.mkdirSync(shots, { recursive: true });
    fs.writeFileSync(path.join(shots, 'old.png'), 'x');
    fs.utimesSync(path.join(shots, 'old.png'), new Date('2026-09-01'), new Date('2026-09-01'));
    fs.writeFileSync(path.join(shots, 'recent.png'), 'x');
    fs.utimesSync(path.join(shots, 'recent.png'), new Date('2026-11-26'), new Date('2026-11-26'));
    db.prepare("INSERT INTO cache_screens (hash, width, height, format, data) VALUES ('s', 1, 1, 'rgba', x'00')").run();
    const entry = (description: string, usedAt: number) => db.prepare(`INSERT INTO cache_entries (cache_key, description, os, resolution, x, y, width, height, confidence, engine, reason, screen_hash, crop, created_at, last_used_at)
      VALUES ('team-1/k', ?, 'linux', '1x1', 0, 0, 1, 1, 1, 'ocr', 'r', 's', x'00', '2026-01-01', ?)`).run(description, usedAt);
    entry('stale', Date.parse('2026-09-01'));
    entry('fresh', Date.parse('2026-11-26'));
    const record = { sessionId: null, command: 'find', description: null, durationMs: 1, outcome: 'success' as const, errorName: null, cacheHit: null, engine: null };
    insertCommands(db, [{ ...record, runId: 'old', startedAt: '2026-09-01T00:00:00.000Z' }, { ...record, runId: 'recent', startedAt: '2026-11-26T00:00:00.000Z' }], undefined, team);

    const pruned = prune(db, stateDir, 30, now);
    assert.deepEqual(pruned, { results: 1, evidenceFiles: 1, screenshots: 1, cacheEntries: 1, commands: 1 });
    assert.deepEqual((db.prepare('SELECT run_id AS r FROM scenario_results').all() as { r: string }[]).map((r) => r.r), ['recent']);
    assert.deepEqual(fs.readdirSync(path.join(stateDir, 'evidence', `team-${team}`)), [`${recent}-2.png`]);
    assert.deepEqual(fs.readdirSync(shots), ['recent.png']);
    assert.deepEqual((db.prepare('SELECT description AS d FROM cache_entries').all() as { d: string }[]).map((r) => r.d), ['fresh']);
    assert.deepEqual((db.prepare('SELECT run_id AS r FROM command_analytics').all() as { r: string }[]).map((r) => r.r), ['recent']);
  } finally {
    db.close();
  }
});
