import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcomesOf, summarise } from '../../acceptance/run';

// The acceptance runner's reading of cucumber's messages, and what it calls flaky.
const messages = (outcomes: [string, 'PASSED' | 'FAILED', string?][]) => [
  { gherkinDocument: { feature: { children: outcomes.map(([name], i) => ({ scenario: { id: `s${i}`, location: { line: 10 + i } } })) } } },
  ...outcomes.map(([name], i) => ({ pickle: { id: `p${i}`, name, uri: 'acceptance/demo.feature', astNodeIds: [`s${i}`] } })),
  ...outcomes.map((_, i) => ({ testCase: { id: `c${i}`, pickleId: `p${i}` } })),
  ...outcomes.flatMap(([, status, message], i) => [
    { testCaseStarted: { id: `r${i}`, testCaseId: `c${i}` } },
    { testStepFinished: { testCaseStartedId: `r${i}`, testStepResult: { status: 'PASSED' } } },
    { testStepFinished: { testCaseStartedId: `r${i}`, testStepResult: { status, message } } },
    { testCaseFinished: { testCaseStartedId: `r${i}`, willBeRetried: false } },
  ]),
].map((m) => JSON.stringify(m)).join('\n');

test('each scenario\'s outcome and the first line of its failure are read from the message stream', () => {
  const outcomes = outcomesOf(messages([['Saves a file', 'PASSED'], ['Opens a menu', 'FAILED', "Error: Element not found: 'File'.\n  why: nothing matched"]]));
  assert.deepEqual(outcomes, [
    { scenario: 'acceptance/demo.feature:10 Saves a file', passed: true, cause: null },
    { scenario: 'acceptance/demo.feature:11 Opens a menu', passed: false, cause: "FAILED: Error: Element not found: 'File'." },
  ]);
});

test('a scenario that passes in one run and fails in another is flaky; one that always fails is not', () => {
  const run1 = outcomesOf(messages([['A', 'PASSED'], ['B', 'FAILED', 'boom'], ['C', 'PASSED']]));
  const run2 = outcomesOf(messages([['A', 'FAILED', 'timing'], ['B', 'FAILED', 'boom'], ['C', 'PASSED']]));
  const summary = summarise([run1, run2]);
  assert.deepEqual(summary.flaky, ['acceptance/demo.feature:10 A']);
  assert.equal(summary.scenarios, 3);
  assert.equal(summary.passed, 3);
  assert.equal(summary.total, 6);
  assert.equal(summary.passRate, 50);
  assert.equal(summary.failures.length, 3);
});
