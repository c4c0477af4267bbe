import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { supportCodeLibraryBuilder } from '@cucumber/cucumber';
import { cucumberSteps, registerSteps, STEP_REGISTRY, stepArguments } from '../../steps';
import { parseSuffixes } from '../../steps/phrase';
import { RESOLUTION_STEP } from '../../steps/setup';
import { stepCatalogue } from '../../steps/catalogue';

const FEATURES = path.resolve(__dirname, '..', '..', 'features');

// Glance's steps as Cucumber builds them for a run: its parameter types, expressions and matching.
let ids = 0;
supportCodeLibraryBuilder.reset(process.cwd(), () => String(ids++));
registerSteps();
const library = supportCodeLibraryBuilder.finalize();
const { expressions } = cucumberSteps(STEP_REGISTRY);

/** Every step line of the example features, keyword dropped. */
function exampleSteps(): string[] {
  return fs.readdirSync(FEATURES).filter((f) => f.endsWith('.feature')).flatMap((f) => fs.readFileSync(path.join(FEATURES, f), 'utf8').split('\n'))
    .map((line) => /^\s*(?:Given|When|Then|And|But)\s+(.*?)\s*$/.exec(line)?.[1])
    .filter((s): s is string => !!s);
}

/** The definitions Cucumber finds for a step text, each with what its handler gets and whether its arity suits Cucumber. */
async function definitionsOf(text: string) {
  // A step ending in a colon takes a data table.
  const step = { text, ...(text.endsWith(':') ? { argument: { dataTable: { rows: [] } } } : {}) } as never;
  return Promise.all(library.stepDefinitions.filter((d) => d.matchesStepName(text)).map(async (d) => {
    const glance = STEP_REGISTRY[expressions.indexOf(String(d.pattern))];
    const { parameters, validCodeLengths } = await d.getInvocationParameters({ step, world: {} } as never);
    const { args, options } = stepArguments(glance, parameters);
    return { phrase: glance.phrase, args, options, arityFits: validCodeLengths.includes(d.code.length) };
  }));
}

test('every step phrasing is used by the example features', () => {
  const steps = exampleSteps();
  const unused = library.stepDefinitions.filter((d) => !steps.some((s) => d.matchesStepName(s))).map((d) => d.pattern);
  assert.deepEqual(unused, []);
  assert.equal(library.stepDefinitions.length, STEP_REGISTRY.length);
  assert.ok(STEP_REGISTRY.length >= 36, `the step contract has ${STEP_REGISTRY.length} phrasings`);
});

test('every example step has exactly one definition, whose function Cucumber accepts', async () => {
  for (const text of exampleSteps()) {
    const matching = await definitionsOf(text);
    assert.equal(matching.length, 1, `'${text}' matches ${JSON.stringify(matching.map((m) => m.phrase))}`);
    assert.ok(matching[0].arityFits, `'${text}': the step function's arity`);
  }
});

test('arguments: descriptions as written, values unquoted, find options from the suffixes', async () => {
  const cases: [string, string, string[], object][] = [
    ["I click the 'gear icon' using zoom and verify within 20 seconds", 'I click (on )(the ){element}', ["'gear icon'"], { timeout: 20_000, zoom: true, verify: true }],
    ['I click on "Save"', 'I click (on )(the ){element}', ['"Save"'], {}],
    ["I click the second 'Edit' button", 'I click (on )(the ){element}', ["second 'Edit' button"], {}],
    ["I click the 'Remove' button in the row of 'Carol White' with confidence 0.8", 'I click (on )(the ){element}', ["'Remove' button in the row of 'Carol White'"], { confidence: 0.8 }],
    ["I click the text 'Forgot password?'", 'I click (on )(the ){element}', ["text 'Forgot password?'"], {}],
    ['I click at 666, 330', 'I click at {int}, {int}', ['666', '330'], {}],
    ["I type '$ADMIN_PASSWORD' into \"the Email field\"", 'I type {quoted} into (the ){element}', ['$ADMIN_PASSWORD', '"the Email field"'], {}],
    ["I press '\\'", 'I press {quoted}', ['\\'], {}],
    ["I press 'Tab' 3 times", 'I press {quoted} {int} times', ['Tab', '3'], {}],
    ["I select 'Deutsch' from the 'Language' dropdown", 'I select {quoted} from (the ){element}', ['Deutsch', "'Language' dropdown"], {}],
    ["I drag 'Alice Martin' to 'On call this week'", 'I drag (the ){element} to (the ){element}', ["'Alice Martin'", "'On call this week'"], {}],
    ['I scroll left 900 pixels', 'I scroll {direction} {int} pixels', ['left', '900'], {}],
    ["I scroll down until I see 'Version 1.0' within 30 seconds", 'I scroll {direction} until I see (the ){element}', ['down', "'Version 1.0'"], { timeout: 30_000 }],
    ['I wait 1 second', 'I wait {int} second(s)', ['1'], {}],
    ["I wait for 'Settings saved' to disappear within 5 seconds", 'I wait for (the ){element} to disappear', ["'Settings saved'"], { timeout: 5000 }],
    // A confidence outside 0 to 1 reaches the find, which names it; an undefined step would not say why.
    ["I click 'Save' with confidence 1.5", 'I click (on )(the ){element}', ["'Save'"], { confidence: 1.5 }],
    ["I should see the text 'Saved: Countess' with confidence 0.8", 'I should see the text {quoted}', ['Saved: Countess'], { confidence: 0.8 }],
    ["I should see the text 'Hi' in the 'Header'", 'I should see (the ){element}', ["text 'Hi' in the 'Header'"], {}],
    ["I should see 3 'Delete buttons'", 'I should see {int} {element}', ['3', "'Delete buttons'"], {}],
    ["I should see at least 2 'Editor'", 'I should see at least {int} {element}', ['2', "'Editor'"], {}],
    ["I should see that 'the cart shows 2 items'", 'I should see that {quoted}', ['the cart shows 2 items'], {}],
    ["I should see that 'Save' button", 'I should see (the ){element}', ["that 'Save' button"], {}],
    ["the 'Display name' field should contain the text 'Ada L.'", '(the ){element} should contain (the )text {quoted}', ["'Display name' field", 'Ada L.'], {}],
    ['I fill in:', 'I fill in:', [], {}],
    // Curly quotes, as editors write them, and an apostrophe inside them.
    ['I click the \u2018Save\u2019 button', 'I click (on )(the ){element}', ['\u2018Save\u2019 button'], {}],
    ['I should see the text \u201cWelcome, Ada\u201d', 'I should see the text {quoted}', ['Welcome, Ada'], {}],
    ['I type \u2018Don\u2019t panic\u2019 into the \u201cNotes\u201d field', 'I type {quoted} into (the ){element}', ['Don\u2019t panic', '\u201cNotes\u201d field'], {}],
  ];
  for (const [text, phrase, args, options] of cases) {
    assert.deepEqual(await definitionsOf(text), [{ phrase, args, options, arityFits: true }], text);
  }
  assert.equal(RESOLUTION_STEP.exec("the screen resolution is '1280x800'")?.[1], "'1280x800'");
  // Text that runs two phrasings together fits both; Cucumber's ambiguity error names them.
  assert.deepEqual((await definitionsOf("I click 'A' should contain the text 'B'")).map((d) => d.phrase).sort(),
    ['(the ){element} should contain (the )text {quoted}', 'I click (on )(the ){element}']);
});

test('suffixes set find options, combined and in any order', () => {
  assert.deepEqual(parseSuffixes(' using zoom and verify within 20 seconds'), { timeout: 20_000, zoom: true, verify: true });
  assert.deepEqual(parseSuffixes(' with confidence 0.8'), { confidence: 0.8 });
});

test('the patterns users see (usage, ambiguity errors, the editors\' catalogue) are short', () => {
  const long = library.stepDefinitions.map((d) => String(d.pattern)).filter((pattern) => pattern.length > 200);
  assert.deepEqual(long, []);
  assert.ok(library.stepDefinitions.every((d) => typeof d.pattern === 'string'), 'every step is a Cucumber Expression');
});

test('the editors\' step catalogue is current with the registry', () => {
  const file = fs.readFileSync(path.resolve(__dirname, '..', '..', 'support', 'step-catalogue.js'), 'utf8');
  assert.equal(file, stepCatalogue(), "support/step-catalogue.js is stale: run 'npm run steps:catalogue'");
  const steps = file.split('\n').filter((l) => /^(?:Given|When|Then)\(/.test(l));
  assert.equal(steps.length, STEP_REGISTRY.length);
  assert.ok(steps.every((l) => l.length <= 200), 'each step is one short line');
});
