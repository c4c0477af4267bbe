import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import dotenv from 'dotenv';
import { PassThrough } from 'stream';
import { confirm } from '../../lib/cli/confirm';
import { addScenario, insertAfter, insertedStepLines, markFailedSteps, recordedStepLines, scenarioAt, upTo } from '../../lib/cli/feature-file';
import { addExampleNames, saveSecrets } from '../../lib/cli/env-files';

const scenario = {
  name: 'Sign up',
  setup: "Given I open 'http://127.0.0.1:8080/signup.html' in the browser",
  lines: ["When I type 'ada@example.com' into the 'Work email' field", '# check: not found again', "And I click the 'Create account' button"],
};

test('a recorded scenario becomes a new feature file', () => {
  assert.equal(addScenario(null, scenario), [
    'Feature: Recorded scenarios', '',
    '  Scenario: Sign up',
    "    Given I open 'http://127.0.0.1:8080/signup.html' in the browser",
    "    When I type 'ada@example.com' into the 'Work email' field",
    '    # check: not found again',
    "    And I click the 'Create account' button", '',
  ].join('\n'));
});

test("it goes after the file's last scenario, in the file's indentation, with its comments kept and its Background reused", () => {
  const existing = [
    '# Sign-up journeys',
    '@web',
    'Feature: Accounts',
    '',
    '    Background:',
    "        Given I open 'http://127.0.0.1:8080/signup.html' in the browser",
    '',
    '    # the happy path',
    '    Scenario: Log in',
    "        When I click 'Log in'",
    '',
    '',
  ].join('\n');
  const text = addScenario(existing, scenario);
  assert.ok(text.startsWith(existing.trimEnd()), 'what was there stays as it was');
  assert.equal(text.slice(existing.trimEnd().length), [
    '', '',
    '    Scenario: Sign up',
    "        When I type 'ada@example.com' into the 'Work email' field",
    '        # check: not found again',
    "        And I click the 'Create account' button", '',
  ].join('\n'));
  // Without the same step in the Background, the scenario opens the page itself.
  assert.ok(addScenario(existing.replace('signup.html', 'login.html'), scenario).includes("    Scenario: Sign up\n        Given I open 'http://127.0.0.1:8080/signup.html' in the browser"));
  // Windows line ends stay Windows line ends.
  assert.ok(!addScenario(existing.replace(/\n/g, '\r\n'), scenario).replace(/\r\n/g, '').includes('\n'));
});

test('steps that failed on replay are marked with a comment above them', () => {
  const text = addScenario(null, scenario);
  const lines = recordedStepLines(text, scenario);
  assert.deepEqual(lines, [5, 7]);
  const marked = markFailedSteps(text, [{ line: 7, message: "Element not found: 'the 'Create account' button'.\nmore" }]);
  assert.deepEqual(marked.split('\n').slice(6, 8), [
    "    # check: failed on replay: Element not found: 'the 'Create account' button'.",
    "    And I click the 'Create account' button",
  ]);
});

test('secret names go to .env.example without values; values to a git-ignored .env only when saved', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'env-files-'));
  try {
    fs.writeFileSync(path.join(dir, '.env.example'), 'GLANCE_API_KEY=\nPASSWORD=');
    assert.deepEqual(addExampleNames(dir, ['PASSWORD', 'PIN']), ['PIN']);
    assert.equal(fs.readFileSync(path.join(dir, '.env.example'), 'utf8'), 'GLANCE_API_KEY=\nPASSWORD=\nPIN=\n');
    assert.deepEqual(addExampleNames(dir, ['PIN']), []);
    fs.writeFileSync(path.join(dir, '.env'), 'GLANCE_API_KEY=glance_x\nPASSWORD=old\n');
    saveSecrets(dir, { PASSWORD: 'Tr0ub4dor "&" 3', PIN: '1234' });
    const env = dotenv.parse(fs.readFileSync(path.join(dir, '.env')));
    assert.deepEqual(env, { GLANCE_API_KEY: 'glance_x', PASSWORD: 'Tr0ub4dor "&" 3', PIN: '1234' });
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\.env$/m);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--from names a step of a scenario: the replay runs up to it, and the recorded steps go right after it', () => {
  const text = ['Feature: Accounts', '', '  Background:', "    Given I open 'x' in the browser", '', '  Scenario: Sign up', "    When I type 'a' into the 'Email' field", "    Then I should see 'Email'", '',
    '  Scenario Outline: Many', "    When I type '<v>' into the 'Email' field", ''].join('\n');
  assert.deepEqual(scenarioAt(text, 7), { name: 'Sign up', line: 6 });
  assert.throws(() => scenarioAt(text, 4), /in the Background/);
  assert.throws(() => scenarioAt(text, 6), /line 6 is not a step: 'Scenario: Sign up'/);
  assert.throws(() => scenarioAt(text, 11), /Scenario Outline/);
  assert.throws(() => scenarioAt(text, 99), /line 99 is not one of them/);
  assert.ok(upTo(text, 7).endsWith("into the 'Email' field\n"));
  const recorded = ["When I click the 'Save' button", '# check: coordinates', 'And I click at 3, 4'];
  assert.deepEqual(insertAfter(text, 7, recorded).split('\n').slice(6, 11), [
    "    When I type 'a' into the 'Email' field", "    And I click the 'Save' button", '    # check: coordinates', '    And I click at 3, 4', "    Then I should see 'Email'",
  ]);
  assert.deepEqual(insertedStepLines(7, recorded), [8, 10]);
});

test('the question whether to save the secrets: yes saves, anything else or no answer within the bound does not, and without a terminal nothing is asked', async () => {
  const terminal = () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = Object.assign(new PassThrough(), { isTTY: true });
    let shown = '';
    output.on('data', (d) => { shown += d; });
    return { input, output, shown: () => shown };
  };
  for (const [answer, saved] of [['y', true], ['Yes', true], ['n', false], ['', false], ['sure', false]] as const) {
    const t = terminal();
    const asked = confirm('Save? [y/N] ', 5000, t.input, t.output);
    t.input.write(`${answer}\n`);
    assert.equal(await asked, saved, `'${answer}'`);
    assert.match(t.shown(), /Save\? \[y\/N\]/);
  }
  const silent = terminal();
  const started = Date.now();
  assert.equal(await confirm('Save? [y/N] ', 200, silent.input, silent.output), false);
  assert.ok(Date.now() - started < 2000, 'no answer is no, at the bound');
  assert.match(silent.shown(), /no answer: not saved/);
  assert.equal(await confirm('Save? [y/N] ', 5000, new PassThrough(), new PassThrough()), false, 'no terminal: not asked');
});
