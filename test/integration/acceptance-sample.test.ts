import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { spawnSync } from 'child_process';
import { REPO_ROOT } from '../helpers/glance';

// A small sample of the acceptance suite (its @sample scenarios) on real programs and sites,
// through the same runner as `npm run acceptance`; the whole suite runs there, three times over.
test('the acceptance suite\'s sample passes', () => {
  const run = spawnSync(process.execPath, ['-r', './lib/runtime/register.js', 'acceptance/run.ts', '--tags', '@sample'], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 600_000, env: { ...process.env, GLANCE_TAGS: '' },
  });
  const summary = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'reports', 'acceptance', 'summary.json'), 'utf8'));
  assert.ok(summary.total >= 5, `the sample ran: ${run.stdout.slice(-2000)}`);
  assert.deepEqual(summary.failures, [], run.stdout.slice(-4000));
  assert.equal(run.status, 0, run.stderr.slice(-2000));
});
