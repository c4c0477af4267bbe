import { test } from 'node:test';
import assert from 'node:assert/strict';
import { neededCapability } from '../../lib/locate/engine';
import { parseQuery, withWholeText, wrapDescription } from '../../lib/locate/query';

const parse = (d: string) => {
  const q = parseQuery(d);
  return { text: q.text, role: q.role, ordinal: q.ordinal, relation: q.relation, hint: q.hint };
};

test('quoted text, role words and ordinals', () => {
  assert.deepEqual(parse("the second 'Edit' button"), { text: 'Edit', role: 'button', ordinal: 2, relation: null, hint: 'any' });
  assert.deepEqual(parse('the last "Delete" link'), { text: 'Delete', role: 'link', ordinal: -1, relation: null, hint: 'any' });
  assert.equal(parse("the 3rd 'Add to cart' button").ordinal, 3);
  assert.equal(parse("'I agree' checkbox").role, 'checkbox');
  assert.equal(parse("the 'Dark' radio button").role, 'radio');
  assert.equal(parse("the 'Billing' tab").role, 'tab');
  assert.equal(parse("the 'Export' menu item").role, 'menuitem');
  assert.equal(parse('the Language dropdown').role, 'dropdown');
  assert.equal(parse('the Search text box').role, 'field');
});

test('unquoted descriptions: the rest is the text', () => {
  assert.deepEqual(parse('Submit button'), { text: 'Submit', role: 'button', ordinal: null, relation: null, hint: 'any' });
  assert.equal(parse('the Email field').text, 'Email');
  assert.equal(parse('Log in link').text, 'Log in');
  assert.equal(parse('Terms of use link').text, 'Terms of use');
  const first = parseQuery('First name field');
  assert.equal(first.ordinal, 1);
  assert.equal(first.wholeText, 'First name');
  assert.deepEqual([parse('ORANGE 5 button').text, parseQuery('ORANGE 5 button').wholeText], ['5', 'ORANGE 5']);
  assert.deepEqual([parse('menus.ui tab').text, parse('List Box table cell').text, parse('Edit Image link').text], ['menus.ui', 'List Box', 'Edit Image']);
  assert.deepEqual([parse('Email input field').text, parse('Settings icon button').text], ['Email', 'Settings']);
  // A role word hyphenated to another is part of a name ('btn-tip', a class shown in the docs); a hyphenated role word is one.
  assert.deepEqual([parse('btn-tip').text, parse('btn-tip').role, parse('the nav-link link').text], ['btn-tip', null, 'nav-link']);
  assert.deepEqual([parse('the Email text-box').role, parse("the drop-down showing 'All'").role], ['field', 'dropdown']);
  // A desktop's spin box is a field whatever its name ('spin button' is not a button); a drop-down list is a dropdown.
  assert.deepEqual(['the Delay spin box', 'the Delay spinbox', 'the Delay spin button', 'the Delay spinner'].map((d) => [parse(d).text, parse(d).role]), Array(4).fill(['Delay', 'field']));
  assert.deepEqual([parse('the Type drop-down list').text, parse('the Type drop-down list').role], ['Type', 'dropdown']);
  // A badge, pill or chip is a text on a face of its own; 'the Badge text' names a text.
  assert.deepEqual(["the 'Warning' badge", 'the New pill', 'the 12 chip', "the 'Badge' text"].map((d) => !!parseQuery(d).badge), [true, true, true, false]);
  // A text area is a field of several lines.
  assert.deepEqual(['the Address text area', 'the Notes textarea', 'the Address field'].map((d) => [parseQuery(d).role, !!parseQuery(d).textArea]), [['field', true], ['field', true], ['field', false]]);
  // A little word in capitals is a name: 'UI Elements' in a sidebar.
  assert.deepEqual([parse('UI Elements in the sidebar').text, parse('THE END heading').text], ['UI Elements', 'THE END']);
  // 'Text' capitalised before the role word is the label, where nothing else names the field; lower case, it says what kind of field.
  assert.deepEqual([parse('the Text field'), parse('the Text input').text], [{ text: 'Text', role: 'field', ordinal: null, relation: null, hint: 'any' }, 'Text']);
  assert.deepEqual([parse('the Email text field').text, parse('the Link Text field').text], ['Email', 'Link']);
});

test('unquoted: the last role word names the thing, and a place at the end is not its text', () => {
  assert.deepEqual(parse('Tabs heading'), { text: 'Tabs', role: 'heading', ordinal: null, relation: null, hint: 'any' });
  assert.deepEqual([parse('Buttons link').text, parse('Buttons link').role], ['Buttons', 'link']);
  assert.deepEqual([parse('Menu button').text, parse('Menu button').role], ['Menu', 'button']);
  assert.deepEqual([parse('Settings icon button').text, parse('Settings icon button').role], ['Settings', 'button']);
  assert.deepEqual([parse('Name column header').text, parse('Name column header').role], ['Name', 'cell']);
  assert.deepEqual([parse('Sign in button in the header').text, parse('Sign in button in the header').role], ['Sign in', 'button']);
  assert.deepEqual([parse('Utilities link in the sidebar').text, parse('Utilities link in the sidebar').role], ['Utilities', 'link']);
  assert.deepEqual([parse('Utilities sidebar link').text, parse('Table List sidebar link').text, parse('Docs navbar link').text], ['Utilities', 'Table List', 'Docs']);
  assert.deepEqual([parse('Sidebar link').text, parse('Navigation menu item').text], ['Sidebar', 'Navigation']);
  assert.deepEqual([parseQuery("the 'Pages' link in the top bar").place, parseQuery('Utilities sidebar link').place, parseQuery("'Docs' in the navbar").place], ['top', 'side', 'top']);
  assert.deepEqual([parseQuery("the 'Name' column header").place, parseQuery("'Sidebar' link").place, parseQuery('About footer link').place], [undefined, undefined, 'bottom']);
  assert.deepEqual([parse('the 12 badge').text, parse('Pending badge').text, parse("the second 'Online' badge").text], ['12', 'Pending', 'Online']);
  // The text a field shows, not its label.
  assert.deepEqual([parseQuery("the field showing 'email@example.com'").shown, parseQuery("the input with 'Jane'").shown, parseQuery("the 'Email' field").shown], [true, true, undefined]);
  // ...unless the screen shows the word with it: a section titled 'Pill badges'.
  assert.deepEqual([parseQuery('Pill badges').text, parseQuery('Pill badges').wholeText, parseQuery('the text Welcome').wholeText], ['Pill', 'Pill badges', undefined]);
  // Any role word: 'Div as Select' may be a label shown so; read with its whole text, it is a text, not a dropdown.
  const divAsSelect = parseQuery('Div as Select');
  assert.deepEqual([divAsSelect.text, divAsSelect.role, divAsSelect.wholeText], ['Div as', 'dropdown', 'Div as Select']);
  assert.deepEqual([withWholeText(divAsSelect).text, withWholeText(divAsSelect).role, withWholeText(parseQuery('ORANGE 5 button')).role], ['Div as Select', null, 'button']);
  assert.equal(parse("'Pompeius René' in the table").text, 'Pompeius René');
  assert.deepEqual([parse('links').text, parse('links').role], ['links', null]);
  assert.deepEqual([parse('the gear icon').text, parse('the gear icon').role], [null, 'icon']);
  // A shape word may be what a control shows: text engines try it ('Star link'); a colour alone never is.
  assert.deepEqual([parseQuery('Star link').text, parseQuery('Star link').wholeText, parseQuery('the red button').wholeText], [null, 'Star', undefined]);
  assert.equal(neededCapability(parseQuery('Star link')), 'text');
  // A look word capitalised inside the description is a label ('the Round button'); at its start, or in lower case, a look.
  assert.deepEqual(['the Round button', 'Round button', 'the round button'].map((d) => parseQuery(d).wholeText), ['Round', undefined, undefined]);
  // A field is named by its label the same way: 'the Small box' is the box labelled Small, 'the small box' a look.
  assert.deepEqual(['the Small box', 'the Large input', 'the small box'].map((d) => parseQuery(d).wholeText), ['Small', 'Large', undefined]);
  // So is a filler word: 'the first Labeled button' names the button 'Labeled'; 'the button labeled Save' names 'Save'.
  assert.deepEqual(['the first Labeled button', 'the button labeled Save'].map((d) => [parseQuery(d).text, parseQuery(d).role]), [['Labeled', 'button'], ['Save', 'button']]);
  // Nothing but little words: they are the text shown ("With text", a section's caption).
  assert.deepEqual([parseQuery('With text').text, parseQuery('With text').role], ['With text', null]);
  assert.deepEqual([parseQuery('the second button').text, parseQuery('the second button').ordinal], [null, 2]);
  assert.equal(neededCapability(parseQuery('the red button')), 'visual');
  assert.deepEqual([parse('the red round icon').text, parse('the red round icon').role], [null, 'icon']);
  assert.deepEqual(parse('the icon next to \'Alice\'').text, null);
});

test('words inside quotes are never roles, relations or ordinals', () => {
  assert.deepEqual(parse("the 'Sort by date' button"), { text: 'Sort by date', role: 'button', ordinal: null, relation: null, hint: 'any' });
  assert.deepEqual(parse("the text 'Select items from the list below.'"), { text: 'Select items from the list below.', role: 'text', ordinal: null, relation: null, hint: 'any' });
  assert.deepEqual(parse("'Next to last' link").relation, null);
  assert.equal(parse("the 'First steps' link").ordinal, null);
});

test('positions relative to another text', () => {
  assert.deepEqual(parse("the 'Delete' button in the row of 'Bob Stone'").relation, { kind: 'row', anchor: 'Bob Stone' });
  assert.deepEqual(parse("the 'Edit' button in the row containing 'bob@example.com'").relation, { kind: 'row', anchor: 'bob@example.com' });
  assert.deepEqual(parse("the 'Delete' icon next to 'Alice'").relation, { kind: 'near', anchor: 'Alice' });
  assert.deepEqual(parse("the input right of 'First name'"), { text: null, role: 'field', ordinal: null, relation: { kind: 'right-of', anchor: 'First name' }, hint: 'any' });
  assert.equal(parse("the button left of 'Save'").relation!.kind, 'left-of');
  assert.equal(parse("the field below 'Email'").relation!.kind, 'below');
  assert.equal(parse("the heading above 'Price'").relation!.kind, 'above');
  assert.deepEqual(parse('the button by the logo').relation, { kind: 'near', anchor: 'logo' });
});

test('a relation word followed by nothing but the role word is part of the name: "the Sort by dropdown"', () => {
  assert.deepEqual(parse('the Sort by dropdown'), { text: 'Sort by', role: 'dropdown', ordinal: null, relation: null, hint: 'any' });
  assert.deepEqual(parse('Sort by button'), { text: 'Sort by', role: 'button', ordinal: null, relation: null, hint: 'any' });
  // A label copied with its colon: "Sort by:" on the screen.
  assert.deepEqual(parse('the Sort by: dropdown'), { text: 'Sort by:', role: 'dropdown', ordinal: null, relation: null, hint: 'any' });
});

test('a role word inside the whole text keeps the role when another names the control: "the Large input field"', () => {
  const large = withWholeText(parseQuery('the Large input field'));
  assert.equal(large.text, 'Large input');
  assert.equal(large.role, 'field');
  assert.equal(withWholeText(parseQuery('Div as Select')).role, null);
  assert.equal(parse('the Skills list box').role, 'dropdown');
  assert.equal(parse('the Skills listbox').text, 'Skills');
});

test('a switch or a toggle named last is a checkbox; the word alone, or before another role word, is not', () => {
  assert.deepEqual(parse('the Email notifications switch'), { text: 'Email notifications', role: 'checkbox', ordinal: null, relation: null, hint: 'any' });
  assert.deepEqual(parse("the 'Dark mode' toggle"), { text: 'Dark mode', role: 'checkbox', ordinal: null, relation: null, hint: 'any' });
  assert.equal(parse('the sidebar toggle button').role, 'button');
  assert.deepEqual(parse('Switch'), { text: 'Switch', role: null, ordinal: null, relation: null, hint: 'any' });
});

test('the type hint wraps the description, and the wrapped forms parse', () => {
  assert.equal(wrapDescription('Welcome', 'text'), 'The text "Welcome"');
  assert.equal(wrapDescription('logo', 'image'), 'The image "logo"');
  assert.equal(wrapDescription('Save', 'ui'), 'The UI element "Save"');
  assert.equal(wrapDescription('Save', 'any'), 'Save');
  assert.deepEqual(parse('The text "Welcome back"'), { text: 'Welcome back', role: 'text', ordinal: null, relation: null, hint: 'text' });
  assert.equal(parse('The UI element "Save button"').text, 'Save');
  assert.equal(parse('The image "company logo"').role, 'image');
});

test('visual words are kept apart from the text', () => {
  const q = parseQuery('the red logo');
  assert.equal(q.text, null);
  assert.deepEqual(q.visualWords, ['red', 'logo']);
});

test('a role word that ends the only quoted text names the control', () => {
  assert.deepEqual([parse("'Submit button'").text, parse("'Submit button'").role], ['Submit', 'button']);
  assert.deepEqual([parse("'Delete buttons'").text, parse("'Delete buttons'").role], ['Delete', 'button']);
  assert.deepEqual([parse('"Terms of use link"').text, parse('"Terms of use link"').role], ['Terms of use', 'link']);
  // Labels that merely end in a word like "title", and roles said outside the quotes, stay as written.
  assert.deepEqual([parse("'Job title'").text, parse("'Job title'").role], ['Job title', null]);
  assert.deepEqual([parse("the 'Add button' link").text, parse("the 'Add button' link").role], ['Add button', 'link']);
  assert.deepEqual([parse("'button'").text, parse("'button'").role], ['button', null]);
});

test('a column is a second anchor: "in the \'City\' column"', () => {
  const cell = parseQuery("the cell in the 'City' column in the row of 'Grace Hopper'");
  assert.equal(cell.column, 'City');
  assert.equal(cell.role, 'cell');
  assert.equal(cell.text, null);
  assert.deepEqual(cell.relation, { kind: 'row', anchor: 'Grace Hopper' });
  const london = parseQuery("the 'London' cell in column \"City\"");
  assert.equal(london.text, 'London');
  assert.equal(london.column, 'City');
  assert.equal(parseQuery("the 'Save' button").column, undefined);
});

test("a window or dialog named by its title at the end: the rest describes the element inside it", () => {
  const q = parseQuery("the second 'Edit' button in the row of 'Carol' in the 'Team members' dialog");
  assert.equal(q.within, 'Team members');
  assert.deepEqual({ text: q.text, role: q.role, ordinal: q.ordinal, relation: q.relation }, { text: 'Edit', role: 'button', ordinal: 2, relation: { kind: 'row', anchor: 'Carol' } });
  assert.equal(parseQuery('"Total" inside the "Invoice" window').within, 'Invoice');
  // Words inside the quotes, a dialog not named, and a window that is the text itself are no window.
  assert.equal(parseQuery("the 'Close the Billing dialog' link").within, undefined);
  assert.equal(parseQuery("'Save' in the dialog").within, undefined);
  assert.equal(parseQuery("the 'Billing' dialog").within, undefined);
});
