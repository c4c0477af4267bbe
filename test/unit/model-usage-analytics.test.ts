import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analytics, runId } from '../../lib/client/analytics';
import { LocalService } from '../../lib/service/local-service';
import { openDb } from '../../lib/store/db';
import { analyticsView } from '../../lib/server/console/analytics';
import { testState } from '../helpers/glance';

test("a command's vision-model calls and tokens are kept with its usage record, and the console charts them by run", async () => {
  const state = testState();
  const service = new LocalService(state.stateDir);
  try {
    const { token } = await service.auth(state.apiKey);
    const analytics = new Analytics(true, service, () => ({ token, sessionId: 's' }), (line) => assert.fail(line));
    const base = { label: '', startedAt: Date.now(), durationMs: 120, errorName: null, errorMessage: null };
    analytics.observe({ ...base, command: 'find', description: 'the gear icon', outcome: 'success', engine: 'vision', cacheHit: false, modelCalls: 1, modelTokens: 1500 });
    analytics.observe({ ...base, command: 'assert', description: 'the page looks tidy', outcome: 'success', engine: 'vision', cacheHit: false, modelCalls: 2, modelTokens: 900 });
    analytics.observe({ ...base, command: 'find', description: "the 'Save' button", outcome: 'success', engine: 'ocr', cacheHit: true, modelCalls: 0, modelTokens: 0 });
    analytics.observe({ ...base, command: 'click', outcome: 'success' });
    await analytics.flush();
    const db = openDb(state.stateDir);
    try {
      const rows = db.prepare('SELECT command, model_calls AS calls, model_tokens AS tokens FROM command_analytics ORDER BY id').all();
      assert.deepEqual(rows, [
        { command: 'find', calls: 1, tokens: 1500 }, { command: 'assert', calls: 2, tokens: 900 },
        { command: 'find', calls: 0, tokens: 0 }, { command: 'click', calls: null, tokens: null },
      ]);
      const team = (db.prepare('SELECT team_id AS t FROM command_analytics LIMIT 1').get() as { t: number }).t;
      const view = analyticsView(db, team);
      const label = runId().slice(-8);
      assert.deepEqual(view.modelCallsByRun, [{ label, value: 3 }]);
      assert.deepEqual(view.modelTokensByRun, [{ label, value: 2400 }]);
      assert.deepEqual(view.hitRateByRun, [{ label, value: 50 }], 'finds only: one hit of two');
      assert.deepEqual(view.locateByEngine.map((b) => b.label).sort(), ['cache', 'vision']);
    } finally {
      db.close();
    }
  } finally {
    await service.shutdown();
  }
});
