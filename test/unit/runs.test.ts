import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDb } from '../../lib/store/db';
import { createApiKey } from '../../lib/service/api-keys';
import { listRuns, recordResult, runResults, scenarioHistory } from '../../lib/server/runs';
import { testState } from '../helpers/glance';

test('a scenario that passes only on a retry is flaky in its run and in its history; runs and teams stay apart', () => {
  const { stateDir } = testState();
  const db = openDb(stateDir);
  try {
    const qa = createApiKey(db, 'qa').teamId;
    const other = createApiKey(db, 'other').teamId;
    const base = { feature: 'a.feature', failingStep: null, error: null, durationMs: 100, willRetry: false };
    const attempt = (team: number, runId: string, name: string, n: number, outcome: 'passed' | 'failed', willRetry = false) =>
      recordResult(db, team, { ...base, runId, scenario: `a.feature: ${name}`, name, attempt: n, outcome, willRetry, durationMs: 100 * n });
    // Run 1 (two CI shards share the id): Login passes after a retry; Search passes; Checkout fails.
    attempt(qa, 'ci-1', 'Login', 1, 'failed', true);
    attempt(qa, 'ci-1', 'Login', 2, 'passed');
    attempt(qa, 'ci-1', 'Search', 1, 'passed');
    attempt(qa, 'ci-1', 'Checkout', 1, 'failed');
    // Run 2: all pass at once.
    attempt(qa, 'ci-2', 'Login', 1, 'passed');
    attempt(other, 'ci-2', 'Login', 1, 'failed');

    const runs = listRuns(db, qa);
    const first = runs.find((r) => r.runId === 'ci-1')!;
    assert.deepEqual({ scenarios: first.scenarios, passed: first.passed, flaky: first.flaky, failed: first.failed }, { scenarios: 3, passed: 1, flaky: 1, failed: 1 });
    const second = runs.find((r) => r.runId === 'ci-2')!;
    assert.deepEqual({ scenarios: second.scenarios, passed: second.passed, failed: second.failed }, { scenarios: 1, passed: 1, failed: 0 }, "the other team's failure is not in the first team's run");
    assert.equal(runResults(db, qa, 'ci-1').length, 4, 'every attempt is kept');

    const login = scenarioHistory(db, qa).find((h) => h.scenario === 'a.feature: Login')!;
    assert.deepEqual(login.outcomes.map((o) => o.outcome).sort(), ['flaky', 'passed']);
    assert.equal(login.flakeRate, 0.5);
    assert.equal(scenarioHistory(db, qa)[0].scenario, 'a.feature: Login', 'the flakiest first');
    assert.deepEqual(scenarioHistory(db, other).map((h) => h.outcomes.map((o) => o.outcome)), [['failed']]);
  } finally {
    db.close();
  }
});
