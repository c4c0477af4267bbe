import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containsText, punctuationExact, sameLetters, similarity, threshold } from '../../lib/locate/text-match';
import { findText, groupLines, phrases } from '../../lib/locate/ocr/analysis';
import { copiesCounted } from '../../lib/locate/ocr/engine';
import { OcrWord } from '../../lib/locate/ocr/tesseract';

const word = (text: string, x: number, y: number, width = text.length * 8, confidence = 90): OcrWord => ({ text, x, y, width, height: 14, confidence });

test('similarity tolerates case, edge punctuation and OCR confusions', () => {
  assert.equal(similarity('Sign up', 'sign up'), 1);
  assert.equal(similarity('Delete.', 'Delete'), 1);
  assert.ok(similarity('Chum rate', 'Churn rate') >= threshold('Churn rate'));
  assert.ok(similarity('14109120', '14/09/20') >= threshold('14/09/20'), 'a slash read as 1');
  assert.ok(similarity('Sett1ngs', 'Settings') >= threshold('Settings'));
  assert.ok(similarity('Submit', 'Sign up') < threshold('Sign up'));
  assert.ok(similarity('Last name', 'First name') < threshold('First name'));
  assert.ok(similarity('Cat', 'Car') < threshold('Car'), 'short words must match exactly');
});

test('a slip changes letters, never the number or a whole word', () => {
  assert.ok(similarity('page 3', 'page 2') < threshold('page 2'));
  assert.ok(similarity('Argon Dashboard', 'Argon Dashboard 5') < threshold('Argon Dashboard 5'), 'a number added is another name');
  assert.ok(similarity('Total 2 5', 'Total 25') >= threshold('Total 25'), 'a number read in two pieces is the same number');
  assert.ok(similarity('Tape x 8', 'Tape x 48') < threshold('Tape x 48'), 'another number in its place');
  assert.ok(similarity('Tape x8', 'Tape x 48') < threshold('Tape x 48'));
  assert.ok(similarity('763,245', '763,215') < threshold('763,215'));
  assert.ok(similarity('Add a container element with the', 'Remove a container element with the') < threshold('Remove a container element with the'));
  assert.ok(similarity('1/tcp', '13/tcp') < threshold('13/tcp'), 'a digit fewer is another number');
  assert.ok(similarity('Dropdowns', 'Dropdown') < threshold('Dropdown'), 'a plural is another name');
  assert.ok(similarity('Recent orders', 'Recent order') < threshold('Recent order'));
  assert.ok(similarity('Disabled Checked', 'Disabled unchecked') < threshold('Disabled unchecked'), 'a negation is another word');
  assert.equal(similarity('+', '+'), 1, 'a lone symbol is itself');
  assert.equal(similarity('×', '+'), 0);
  assert.equal(similarity('Add', '+'), 0);
  assert.ok(similarity('I am active', 'I am inactive') < threshold('I am inactive'));
  assert.ok(similarity('Dlsabled unchecked', 'Disabled unchecked') >= threshold('Disabled unchecked'));
  assert.ok(similarity('19109117', '89/09/17') < threshold('89/09/17'));
  // OCR's own slips still pass: a digit read as a letter, a letter dropped.
  assert.ok(similarity('l3/tcp', '13/tcp') >= threshold('13/tcp'));
  assert.ok(similarity('12,10OK', '12,100K') >= threshold('12,100K'));
  assert.ok(similarity('Add a contaner element with the', 'Add a container element with the') >= threshold('Add a container element with the'));
  assert.ok(similarity('Order 1O01', 'Order 1001') >= threshold('Order 1001'));
  assert.ok(similarity('238', '23g') >= threshold('23g'), "a small 'g' read as 8");
  assert.ok(similarity('28', '29') < threshold('29'), 'but 8 and 9 stay other digits');
  assert.ok(similarity('238', '239') < threshold('239'));
});

test('symbols that are the text itself tell texts apart: C, C++ and C# are three texts, 1 and -1 two', () => {
  const same = (read: string, wanted: string) => similarity(read, wanted) >= threshold(wanted);
  for (const [read, wanted] of [['C', 'C++'], ['C++', 'C'], ['C#', 'C'], ['C', 'C#'], ['C++', 'C#'], ['-1', '1'], ['1', '-1'], ['100%', '100'], ['Language (C++)', 'Language (C#)']]) {
    assert.ok(!same(read, wanted), `'${read}' is not '${wanted}' (${similarity(read, wanted)})`);
  }
  for (const text of ['C', 'C++', 'C#', '-1', '+', '=', '100%']) assert.equal(similarity(text, text), 1, text);
  assert.equal(similarity('=', '+'), 0);
  assert.equal(similarity('-', '='), 0);
  assert.ok(!sameLetters('C++', 'C'));
});

test('end punctuation and decoration are still no part of the text', () => {
  assert.equal(similarity('Email:', 'Email'), 1);
  assert.equal(similarity('Email', 'Email:'), 1);
  assert.equal(similarity('Email*', 'Email'), 1, "a required field's star");
  assert.equal(similarity('(C++)', 'C++'), 1);
  assert.equal(similarity('C++.', 'C++'), 1);
  assert.equal(similarity('+ Add', 'Add'), 1, 'an icon beside the label');
  assert.equal(similarity('Next >', 'Next'), 1);
  assert.ok(containsText('You are signed in as Ada.', 'signed in as Ada'));
});

test('punctuationExact: the same text with its punctuation kept, case and spacing aside', () => {
  assert.equal(punctuationExact('Email', 'email'), true);
  assert.equal(punctuationExact('Sign  up ', 'sign up'), true);
  assert.equal(punctuationExact('Email:', 'Email'), false);
  assert.equal(punctuationExact('C++', 'C'), false);
  assert.equal(punctuationExact('C++', 'c++'), true);
});

test('findText tells C, C++ and C# apart on one screen', () => {
  const lines = groupLines([word('C', 100, 50), word('C++', 200, 50), word('C#', 300, 50), word('-1', 100, 120), word('1', 200, 120)]);
  assert.deepEqual(findText(lines, 'C').map((m) => m.text), ['C']);
  assert.deepEqual(findText(lines, 'C++').map((m) => m.text), ['C++']);
  assert.deepEqual(findText(lines, 'C#').map((m) => m.text), ['C#']);
  assert.deepEqual(findText(lines, '-1').map((m) => m.text), ['-1']);
  assert.deepEqual(findText(lines, '1').map((m) => m.text), ['1']);
});

test('phrases match across word boxes on one line, and the best run wins', () => {
  const lines = groupLines([word('Add', 100, 50), word('to', 130, 51), word('cart', 150, 50), word('Add', 400, 50), word('user', 430, 50)]);
  const [match] = findText(lines, 'Add to cart');
  assert.deepEqual(match.box, { x: 100, y: 50, width: 82, height: 15 });
  assert.equal(match.text, 'Add to cart');
});

test('a placeholder\'s trailing dots do not keep it from its word', () => {
  const [match] = findText(groupLines([word('Search...', 960, 22)]), 'Search');
  assert.equal(match?.text, 'Search...');
});

test('a whole phrase ranks above the same word inside a longer one', () => {
  const lines = groupLines([word('New', 100, 200), word('customers', 132, 200), word('Customers', 20, 130)]);
  const matches = findText(lines, 'Customers');
  assert.equal(matches.length, 2);
  assert.equal(matches[0].box.x, 20);
  assert.ok(matches[0].standalone && !matches[1].standalone);
});

test('a text asked for in mixed case ranks the copy spelled so above a caption in capitals', () => {
  // The caption 'FORMS & TABLES' read surely, the sidebar link 'Tables' beside an icon less so.
  const lines = groupLines([word('FORMS', 33, 781, 45, 100), word('TABLES', 110, 781, 47, 100), word('Tables', 64, 920, 43, 84)]);
  const [first, second] = findText(lines, 'Tables');
  assert.equal(first.text, 'Tables');
  assert.equal(second.text, 'TABLES', 'the caption still matches: CSS often shows a label in capitals');
  // More than the candidate's OCR-confidence factor moves between these reads (0.990 for 84, 1 for 100).
  assert.ok(first.score * 0.99 > second.score, `${first.score} vs ${second.score}`);
  assert.equal(findText(lines, 'tables')[0].score, findText(lines, 'tables')[1].score, 'a text asked for in lower case takes either');
});

test('the symbols asked for rank first, and a word read in two pieces is one word', () => {
  // '<button>' in a sentence of code, read as two pieces; the word 'Button' as a heading.
  const lines = groupLines([word('Button', 40, 40), word('a', 690, 300), word('<but', 712, 300, 32), word('ton>.', 747, 300, 40), word('Input', 800, 300)]);
  const [match] = findText(lines, '<button>');
  assert.equal(match.text, '<but ton>.');
  assert.equal(findText(lines, 'Button')[0].text, 'Button', 'without symbols asked for, the heading is as good');
  // An exclamation asked for: the alert's 'Info!' over the button 'INFO'.
  const alert = groupLines([word('INFO', 40, 40), word('Info!', 300, 200), word('This', 345, 200), word('is', 382, 200)]);
  assert.equal(findText(alert, 'Info!')[0].text, 'Info!');
  // Pieces far apart are two words.
  assert.deepEqual(findText(groupLines([word('but', 100, 50), word('ton', 160, 50)]), 'button'), []);
});

test('a word of code is found among the tokens of a longer one: where it stands nowhere whole, as a copy an ordinal counts, and when asked for in quotes', () => {
  // 'scope="col">Heading</th>' read as one word, 8 px a character.
  const code = '<th scope="col">Heading</th>';
  const lines = groupLines([word('<th', 100, 300, 24), word(code.slice(4), 132, 300, 8 * (code.length - 4))]);
  const [scope] = findText(lines, 'scope');
  assert.deepEqual([scope.text, scope.box.x, scope.box.width, scope.standalone], ['scope', 132, 40, false]);
  assert.equal(findText(lines, '"col"')[0].box.x, 132 + 6 * 8);
  assert.equal(findText(lines, 'Heading')[0].box.x, 132 + 12 * 8);
  assert.equal(findText(lines, 'col')[0].text, '"col"', 'quotes are no part of what is compared');
  assert.deepEqual(findText(lines, 'cols'), [], 'a token is compared whole');
  // Found whole elsewhere, a token is not looked for; where copies are counted (an ordinal), it is one of them.
  const withProse = groupLines([...lines[0].words, word('Heading', 100, 40)]);
  assert.equal(findText(withProse, 'Heading').length, 1);
  assert.deepEqual(findText(withProse, 'Heading', { everyCopy: true }).map((m) => m.box.y), [40, 300]);
  // A quoted text is the quoted token ('"col"', an attribute's value), ahead of the word in the prose.
  const [quoted] = findText(groupLines([...lines[0].words, word('col', 100, 40)]), '"col"');
  assert.deepEqual([quoted.text, quoted.box.y], ['"col"', 300]);
});

test('a text of several words whose ends code runs into its neighbours is found with its ends cut at the punctuation, ahead of the words in prose', () => {
  // '<button class="btn btn-primary">primary button</button>', read as OCR reads it, 8 px a character.
  const lines = groupLines([word('<button', 100, 300), word('class="btn', 164, 300), word('btn-primary">primary', 252, 300), word('button</button>', 420, 300),
    word('btn', 100, 40), word('btn-primary', 132, 40)]);
  const [value] = findText(lines, '"btn btn-primary"');
  assert.deepEqual([value.text, value.box.x, value.box.y, value.box.width, value.standalone], ['"btn btn-primary"', 164 + 6 * 8, 300, 252 + 12 * 8 - (164 + 6 * 8), false]);
  // Unquoted, the words in the prose are the whole phrase, and the code's copy is looked for only when copies are counted.
  assert.deepEqual(findText(lines, 'btn btn-primary').map((m) => m.box.y), [40]);
  assert.deepEqual(findText(lines, 'btn btn-primary', { everyCopy: true }).map((m) => m.box.y), [40, 300]);
  // Only the ends are cut: a word between them with code's punctuation is no part of one value.
  assert.deepEqual(findText(groupLines([word('class="a', 100, 300), word('b>c', 180, 300), word('d">x', 220, 300)]), '"a b d"'), []);
});

test('two badges read as one word that runs digits into letters are each found in it; a name like x86 is not cut', () => {
  const lines = groupLines([word('100text', 143, 74, 72, 95), word('x86', 300, 74, 24, 95)]);
  const [count] = findText(lines, '100');
  assert.equal(count?.text, '100');
  assert.ok(count.box.x + count.box.width / 2 < 175, 'boxed by its share of the word');
  assert.equal(findText(lines, 'text')[0]?.text, 'text');
  assert.equal(findText(lines, 'text')[0]?.standalone, false);
  assert.deepEqual(findText(lines, '86'), []);
});

test('with symbols asked for, the copies that show them are the ones counted for ordinals', () => {
  const candidate = (text: string, y: number, confidence = 0.95) => ({ box: { x: 600, y, width: 50, height: 16 }, text, confidence, engine: 'ocr', reason: `read '${text}'` });
  const found = [candidate('SALES', 100), candidate('Sales:', 700), candidate('Sales', 650, 0.9), candidate('Sales:', 760), candidate('Sales:', 820)];
  assert.deepEqual(copiesCounted(found, 'Sales:').map((c) => c.box.y), [700, 760, 820]);
  assert.deepEqual(copiesCounted(found, 'Sales').map((c) => c.box.y), [100, 650, 700, 760, 820], 'without symbols asked for, every copy counts');
  // None read with the colon: the copies read without it still count.
  assert.equal(copiesCounted([candidate('Sales', 100), candidate('Sales', 200)], 'Sales:').length, 2);
  // A quoted text asked for: the quoted copies (an attribute's value in code), not the word in prose or a value cut short.
  const code = [candidate('tab-item', 420), candidate('"tab-item', 550), candidate('"tab-item"', 610), candidate('\u201ctab-item"', 670)];
  assert.deepEqual(copiesCounted(code, '"tab-item"').map((c) => c.box.y), [610, 670]);
  assert.equal(copiesCounted(code, 'tab-item').length, 4, 'without quotes asked for, every copy counts');
});

test('a glyph read inside its own ring is a whole label: page numbers side by side make no phrase, and a count on a badge ends its label', () => {
  const ringed = (text: string, x: number) => ({ ...word(text, x, 200, 36), height: 36, enclosed: true });
  const lines = groupLines([ringed('4', 100), ringed('5', 140), ringed('>', 180)]);
  assert.deepEqual(lines[0].words.map((w) => w.text), ['4', '5', '>'], 'a lone symbol in a ring is kept');
  const [five] = findText(lines, '5');
  assert.equal(five.text, '5');
  assert.ok(five.standalone);
  assert.deepEqual(findText(lines, '4 5'), []);
  // A label and its count on a badge after it are one text: 'Item 2'.
  const badge = { ...word('2', 92, 198, 18), height: 18, enclosed: true };
  const [item] = findText(groupLines([word('Item', 60, 200, 25), badge, word('Item', 160, 200, 25)]), 'Item 2');
  assert.deepEqual([item?.text, item?.box.x], ['Item 2', 60]);
});

test('an item of a menu bar is set apart from its neighbours, a word of a sentence is not', () => {
  // Menu items a bit more than a height apart (one phrase by the usual reach); words of a sentence a space apart.
  const bar = groupLines([word('File', 100, 50, 20), word('Edit', 135, 50, 23), word('Options', 173, 50, 46)]);
  const [edit] = findText(bar, 'Edit');
  assert.ok(!edit.standalone && edit.setApart);
  const [inSentence] = findText(groupLines([word('Please', 100, 50, 40), word('edit', 144, 50, 24), word('it', 172, 50, 8)]), 'Edit');
  assert.ok(!inSentence.standalone && !inSentence.setApart);
});

test('punctuation-only words (borders read as | [) are dropped', () => {
  const lines = groupLines([word('|', 90, 50, 4), word('Delete', 100, 50)]);
  assert.deepEqual(lines[0].words.map((w) => w.text), ['Delete']);
});

test('phrases split at wide gaps and leave out an excluded box', () => {
  const lines = groupLines([word('Already', 10, 10), word('have', 70, 10), word('Log', 200, 10), word('in', 228, 10)]);
  assert.deepEqual(phrases(lines).map((p) => p.text), ['Already have', 'Log in']);
  assert.deepEqual(phrases(lines, { x: 0, y: 0, width: 120, height: 40 }).map((p) => p.text), ['Log in']);
});

test('containsText tolerates a caret or border read as a stray character, and still tells different text apart', () => {
  assert.equal(containsText('Ada L]', 'Ada L.'), true);
  assert.equal(containsText('Saved: Countess, English, 1 email topics', 'Saved: Countess'), true);
  assert.equal(containsText('On call this week: Alice Martin', 'alice martin'), true);
  assert.equal(containsText('On call this week: nobody yet', 'Alice Martin'), false);
  assert.equal(containsText('Ada', 'Ada Lovelace'), false);
});

test('the same letters with a space dropped or added are the same text; other letters are not', () => {
  assert.ok(sameLetters('Divas Input', 'Div as Input'));
  assert.ok(sameLetters('Sign In', 'SignIn'));
  assert.ok(!sameLetters('Div as Inputs', 'Div as Input'));
});

test('a word joins the line it sits nearest, not the first it fits: a value boxed tall with its input keeps the label beside it on its line', () => {
  const sized = (text: string, x: number, y: number, height: number): OcrWord => ({ ...word(text, x, y), height });
  const lines = groupLines([
    sized('/home/alice', 697, 150, 19), // the value of the input above, boxed with its frame
    sized('Tags', 225, 161, 12), sized('from', 257, 160, 10), sized('filename:', 289, 160, 10),
    sized('%{track}', 357, 156, 19), // this row's value, boxed with its frame too
  ]);
  const label = lines.find((l) => l.words.some((w) => w.text === 'from'))!;
  assert.deepEqual(label.words.map((w) => w.text), ['Tags', 'from', 'filename:', '%{track}']);
  assert.equal(findText(lines, 'Tags from filename:').length, 1);
});
