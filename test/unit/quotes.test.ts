import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quotedTexts, trimQuoteMarks, unquote } from '../../lib/util/quotes';
import { parseQuery } from '../../lib/locate/query';
import { onlyClaimsVisibleText } from '../../lib/service/statement';
import { compilePhrase } from '../../steps/phrase';

test('every kind of quote: straight and curly, single and double', () => {
  assert.deepEqual(quotedTexts(`'one' "two" \u2018three\u2019 \u201cfour\u201d`), ['one', 'two', 'three', 'four']);
  assert.deepEqual(quotedTexts('no quotes here'), []);
});

test('an apostrophe inside or before a quote is not a quote mark', () => {
  assert.deepEqual(quotedTexts('the \u2018Don\u2019t save\u2019 button'), ['Don\u2019t save']);
  assert.deepEqual(quotedTexts("the 'Don't save' button"), ["Don't save"]);
  assert.deepEqual(quotedTexts("the user's 'Save' button"), ['Save']);
  assert.deepEqual(quotedTexts('the user\u2019s \u2018Save\u2019 button'), ['Save']);
});

test('unquote takes off one pair of any kind; trimQuoteMarks takes off stray marks too', () => {
  assert.equal(unquote("'Save'"), 'Save');
  assert.equal(unquote('"Save"'), 'Save');
  assert.equal(unquote('\u2018Save\u2019'), 'Save');
  assert.equal(unquote('\u201cSave\u201d'), 'Save');
  assert.equal(unquote('\u201cSave"'), '\u201cSave"', 'marks of two kinds are no pair');
  assert.equal(unquote("''"), '');
  assert.equal(trimQuoteMarks(' \u201cSave '), 'Save');
});

test('descriptions read every kind of quote', () => {
  for (const description of ["the 'Add user' button", 'the "Add user" button', 'the \u2018Add user\u2019 button', 'the \u201cAdd user\u201d button']) {
    const query = parseQuery(description);
    assert.deepEqual({ text: query.text, role: query.role }, { text: 'Add user', role: 'button' }, description);
  }
  assert.equal(parseQuery('the cell in the \u2018City\u2019 column in the row of \u2018Ada\u2019').relation?.anchor, 'Ada');
});

test('assert statements read every kind of quote', () => {
  for (const statement of ["'Saved' is shown", '"Saved" is shown', '\u2018Saved\u2019 is shown', '\u201cSaved\u201d is shown', 'the header says \u2018Don\u2019t panic\u2019']) {
    assert.equal(onlyClaimsVisibleText(statement), true, statement);
  }
  assert.equal(onlyClaimsVisibleText('the \u2018Save\u2019 button is green'), false);
});

test('step arguments read every kind of quote', () => {
  const typeInto = compilePhrase('I type {quoted} into (the ){element}');
  for (const [open, close] of [["'", "'"], ['"', '"'], ['\u2018', '\u2019'], ['\u201c', '\u201d']]) {
    const match = typeInto.exec(`I type ${open}ada@example.com${close} into the ${open}Email${close} field`);
    assert.ok(match, `${open}…${close}`);
    assert.equal(unquote(match[1]), 'ada@example.com');
    assert.equal(match[2], `${open}Email${close} field`);
  }
});
