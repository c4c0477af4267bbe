import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scenariosOfReport } from '../../lib/report/publish';
import { evidenceAttachment, STEP_EVIDENCE } from '../../lib/report/step-evidence';

const attached = (evidence: Parameters<typeof evidenceAttachment>[0]) => ({ mime_type: STEP_EVIDENCE, data: Buffer.from(evidenceAttachment(evidence)).toString('base64') });

test("a Cucumber JSON report's scenarios are published as the hooks report them: identity with the example row, outcome, failing step and evidence", () => {
  const [outline, plain] = scenariosOfReport([{
    uri: 'features/cart.feature',
    elements: [
      {
        name: 'Add <item>', keyword: 'Scenario Outline',
        before: [{ keyword: 'Before', result: { status: 'passed', duration: 2e6 }, embeddings: [attached({ kind: 'scenario', identity: 'features/cart.feature: Add <item> [socks | 2]' })] }],
        steps: [
          { keyword: 'Given ', name: 'I open the shop', result: { status: 'passed', duration: 1e9 } },
          { keyword: 'Then ', name: "I should see '2 items'", result: { status: 'failed', duration: 3e9, error_message: "Element not found: '2 items'" },
            embeddings: [attached({ kind: 'failure', at: 0, error: 'x', lookedFor: null, best: null, seenInstead: null, lastActed: null, picture: '/tmp/shot.jpg' })] },
        ],
        after: [{ keyword: 'After', result: { status: 'passed' }, embeddings: [attached({ kind: 'clip', file: '/tmp/clip.mp4', startedAt: 0, durationMs: 1, bytes: 1 })] }],
      },
      { name: 'Empty cart', steps: [{ keyword: 'Then ', name: 'I see nothing', result: { status: 'passed', duration: 5e8 } }] },
    ],
  }]);
  assert.deepEqual(outline.report, {
    scenario: 'features/cart.feature: Add <item> [socks | 2]', feature: 'features/cart.feature', name: 'Add <item>', attempt: 1, outcome: 'failed',
    willRetry: false, durationMs: 4002, failingStep: "Then I should see '2 items'", error: "Element not found: '2 items'",
  });
  assert.deepEqual(outline.files, [{ kind: 'failure', file: '/tmp/shot.jpg' }, { kind: 'clip', file: '/tmp/clip.mp4' }]);
  assert.equal(plain.report.scenario, 'features/cart.feature: Empty cart', 'without the hooks\' identity: the file and the name');
  assert.equal(plain.report.outcome, 'passed');
  assert.deepEqual(plain.files, []);
});
