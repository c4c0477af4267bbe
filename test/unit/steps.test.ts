import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { definitionPattern, STEP_REGISTRY } from '../../steps';
import { parseSuffixes } from '../../steps/phrase';
import { stepCatalogue } from '../../steps/catalogue';

const FEATURES = path.resolve(__dirname, '..', '..', 'features');

/** Every step line of the example features, keyword dropped. */
function exampleSteps(): string[] {
  return fs.readdirSync(FEATURES).filter((f) => f.endsWith('.feature')).flatMap((f) => fs.readFileSync(path.join(FEATURES, f), 'utf8').split('\n'))
    .map((line) => /^\s*(?:Given|When|Then|And|But)\s+(.*?)\s*$/.exec(line)?.[1])
    .filter((s): s is string => !!s);
}

test('every step phrasing is used by the example features', () => {
  const steps = exampleSteps();
  const unused = STEP_REGISTRY.filter((d) => !steps.some((s) => d.pattern.test(s))).map((d) => d.phrase);
  assert.deepEqual(unused, []);
  assert.ok(STEP_REGISTRY.length >= 36, `the step contract has ${STEP_REGISTRY.length} phrasings`);
});

test('every example step has exactly one definition', () => {
  for (const text of exampleSteps()) {
    const matching = STEP_REGISTRY.filter((d) => definitionPattern(d).test(text)).map((d) => d.phrase);
    assert.equal(matching.length, 1, `'${text}' matches ${JSON.stringify(matching)}`);
  }
});

test('suffixes set find options, combined and in any order', () => {
  assert.deepEqual(parseSuffixes(' using zoom and verify within 20 seconds'), { timeout: 20_000, zoom: true, verify: true });
  assert.deepEqual(parseSuffixes(' with confidence 0.8'), { confidence: 0.8 });
  const click = STEP_REGISTRY.find((d) => d.phrase === 'I click (on )(the ){description}')!;
  assert.match("I click the 'gear icon' using zoom and verify within 20 seconds", click.pattern);
  assert.match('I click on "Save"', click.pattern);
});

test('the editors\' step catalogue is current with the registry', () => {
  const file = fs.readFileSync(path.resolve(__dirname, '..', '..', 'support', 'step-catalogue.js'), 'utf8');
  assert.equal(file, stepCatalogue(), "support/step-catalogue.js is stale: run 'npm run steps:catalogue'");
  assert.equal(file.split('\n').filter((l) => l.startsWith('defineStep(')).length, STEP_REGISTRY.length);
});
