import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { A11yNode } from '../../lib/types/a11y';
import { TreeMatcher } from '../../lib/locate/a11y/match';
import { EngineContext, LocateEngine, NotThere, ScreenMoved } from '../../lib/locate/engine';
import { confirmOnPixels } from '../../lib/locate/cross-check';
import { parseQuery } from '../../lib/locate/query';

// Matching descriptions against a tree shaped as Chromium publishes a page: names repeat down a branch.
let next = 0;
function node(role: string, name: string, box: [number, number, number, number], extra: Partial<A11yNode> = {}): A11yNode {
  const [x, y, width, height] = box;
  return { path: `:1.1/${next++}`, parent: null, role, name, description: '', value: null, states: [], box: { x, y, width, height }, app: 'Chromium', window: 'Page', labelledBy: [], ...extra };
}
const inside = (parent: A11yNode, child: A11yNode): A11yNode => ({ ...child, parent: parent.path });
const find = (nodes: A11yNode[], description: string) => new TreeMatcher(nodes).locate(parseQuery(description));

test('a heading and the text it holds are one thing: the text\'s own box answers', () => {
  const heading = node('heading', '\ue001 12,100K', [1009, 477, 297, 34]);
  const text = inside(heading, node('static', '12,100K', [1030, 480, 86, 26]));
  assert.deepEqual(find([heading, text], "the text '12,100K'").map((c) => c.box), [text.box]);
  assert.deepEqual(find([heading, text], "'12,100K'").map((c) => c.box), [text.box]);
  assert.deepEqual(find([heading, text], "the '12,100K' heading").map((c) => c.box), [heading.box]);
});

test('a control keeps its name over the text inside it, and counts once for ordinals', () => {
  const links = [0, 1, 2].map((i) => node('link', 'Docs', [10, 100 + i * 50, 200, 40]));
  const texts = links.map((link) => inside(link, node('static', 'Docs', [20, link.box.y + 10, 40, 18])));
  const nodes = [...links, ...texts];
  assert.deepEqual(find(nodes, "'Docs'")[0].box, links[0].box);
  assert.deepEqual(new TreeMatcher(nodes).locate(parseQuery("'Docs'"), true).map((c) => c.box), links.map((l) => l.box));
  assert.deepEqual(find(nodes, "the third 'Docs'").map((c) => c.box), [links[2].box]);
});

test('a navbar the page gives twice, one over the other, is one thing seen: it counts once for ordinals', () => {
  const bars = [0, 1].map(() => node('landmark', '', [0, 0, 1351, 70]));
  const brands = bars.map((bar) => inside(bar, node('link', 'ACME - ADMIN', [7, 10, 303, 50])));
  const footer = node('link', 'Acme - Admin', [101, 711, 176, 16]);
  const nodes = [...bars, ...brands, footer];
  assert.deepEqual(find(nodes, "the second 'ACME - ADMIN' link").map((c) => c.box), [footer.box]);
  assert.throws(() => find(nodes, "the third 'ACME - ADMIN' link"), NotThere);
});

test('a lone symbol names only the control showing that symbol', () => {
  const add = node('push button', '+', [10, 10, 30, 30]);
  const close = node('push button', '×', [50, 10, 30, 30]);
  assert.deepEqual(find([add, close], "the '+' button").map((c) => c.box), [add.box]);
  assert.deepEqual(find([add, close], "the '-' button"), []);
});

test('a label and the field it names are one thing: the label for its words, the field for a field', () => {
  const label = node('label', 'Company', [824, 193, 69, 18]);
  const field = node('entry', '', [824, 220, 400, 38], { labelledBy: [label.path], states: ['editable'] });
  const other = node('label', 'Company', [824, 400, 69, 18]);
  const nodes = [label, field, other];
  assert.deepEqual(find(nodes, "'Company'")[0].box, label.box);
  assert.deepEqual(find(nodes, 'the Company field')[0].box, field.box);
  assert.deepEqual(find(nodes, "the second 'Company'").map((c) => c.box), [other.box]);
});

test('Chromium\'s <label>: its text is its value, and the field it names takes the same name', () => {
  const label = node('label', '', [1161, 448, 88, 25], { value: 'Postal Code' });
  const text = inside(label, node('static', 'Postal Code', [1161, 451, 88, 18]));
  const field = node('entry', 'Postal Code', [1161, 480, 139, 39], { labelledBy: [label.path], states: ['editable'] });
  const nodes = [label, text, field];
  assert.deepEqual(find(nodes, 'Postal Code').map((c) => c.box), [text.box]);
  assert.deepEqual(find(nodes, 'the Postal Code field')[0].box, field.box);
});

test('past the last copy the tree holds, there is nothing, and the engine says so', () => {
  const nodes = [node('link', 'Tables', [50, 200, 60, 20]), node('heading', 'Tables', [330, 260, 80, 30])];
  assert.throws(() => find(nodes, "the third 'Tables'"), (error: Error) => error instanceof NotThere && /shows 'Tables' 2 times, so there is no third/.test(error.message));
  assert.deepEqual(find(nodes, "the second 'Tables'").map((c) => c.box), [nodes[1].box]);
  // A text the tree does not have at all is for the next engine to look for.
  assert.deepEqual(find(nodes, "the third 'Charts'"), []);
});

test('a place in the description ranks the copies standing there first, and counts ordinals among them', () => {
  const screen = { width: 1366, height: 768 };
  const top = node('link', 'Pages', [314, 18, 38, 16]);
  const side = [node('link', 'Pages', [40, 400, 120, 30]), node('link', 'Pages', [40, 450, 120, 30])];
  const nodes = [top, ...side];
  const matcher = new TreeMatcher(nodes, screen);
  assert.deepEqual(matcher.locate(parseQuery("the 'Pages' link in the top bar"))[0].box, top.box);
  assert.deepEqual(matcher.locate(parseQuery("the second 'Pages' link in the sidebar"))[0].box, side[1].box);
  assert.deepEqual(matcher.locate(parseQuery("the second 'Pages' link"))[0].box, side[0].box);
  // A sidebar's first link may stand in the top row, at the screen's very edge.
  const first = node('link', 'Components', [14, 17, 60, 14]);
  const body = node('static', 'Components', [700, 500, 90, 16]);
  assert.deepEqual(new TreeMatcher([body, first], { width: 1920, height: 1080 }).locate(parseQuery("'Components' in the sidebar"))[0].box, first.box);
  // Nothing where it says: the place ranks, it never hides.
  assert.deepEqual(matcher.locate(parseQuery("the 'Pages' link in the footer"))[0].box, top.box);
});

test("a checkbox named by the label beside it is on the label's own row, never the next row's", () => {
  // A todo list: each row a checkbox, then its label, with no relation between them.
  const rows = ['Buy milk', 'Renew passport', 'Call Ada'].map((text, i) => ({
    box: node('check box', '', [20, 100 + i * 40, 20, 20]),
    label: node('label', '', [60, 100 + i * 40, 200, 20], { value: text }),
  }));
  const nodes = rows.flatMap((r) => [r.box, r.label]);
  assert.deepEqual(find(nodes, "the checkbox for 'Renew passport'").map((c) => c.box), [rows[1].box.box]);
  assert.deepEqual(find([rows[0].label, rows[1].box], "the 'Buy milk' checkbox"), [], 'the next row\'s box is not this label\'s');
  // A field under its label is that label's field.
  const label = node('label', '', [40, 300, 80, 18], { value: 'Street' });
  const field = node('entry', '', [40, 322, 300, 30], { value: '' });
  assert.deepEqual(find([label, field], 'the Street field').map((c) => c.box), [field.box]);
});

test('bare quoted text counts what is shown: not an aria-label, not a field\'s own name, not a placeholder behind a value', () => {
  const icon = node('push button', 'Search', [10, 10, 30, 30], { nameShown: false });
  const field = node('entry', 'Repeat Password', [10, 60, 200, 30], { description: 'Repeat Password', value: 'typed' });
  assert.deepEqual(find([icon, field], "'Search'"), []);
  assert.deepEqual(find([icon, field], "the 'Search' button").map((c) => c.box), [icon.box]);
  assert.deepEqual(find([icon, field], "'Repeat Password'"), []);
  assert.deepEqual(find([icon, field], "the 'Repeat Password' field").map((c) => c.box), [field.box]);
  const empty = { ...field, value: '' };
  assert.deepEqual(find([empty], "'Repeat Password'").map((c) => c.box), [field.box], 'an empty field shows its placeholder');
});

test("two fields that answer to 'Search': the one whose shown label reads 'Search:' is 'the Search: field'", () => {
  const aria = node('entry', 'Search', [10, 10, 200, 30], { value: '' });
  const label = node('label', '', [10, 60, 60, 20], { value: 'Search:' });
  const labelled = node('entry', 'Search:', [80, 60, 200, 30], { value: '', labelledBy: [label.path] });
  assert.deepEqual(find([aria, label, labelled], "the 'Search:' field")[0].box, labelled.box);
});

test('an element the tree puts partly off the screen is left to the pixels: its box may lag a scroll', () => {
  // Chromium reported 'Back to top' cut at the screen's left edge after the page had scrolled back into view.
  const stale = node('push button', 'Back to top', [0, 704, 44, 38], { partlyOffScreen: true });
  assert.deepEqual(find([stale], "the 'Back to top' button"), []);
  const shown = node('push button', 'Back to top', [40, 704, 124, 38]);
  assert.deepEqual(find([shown], "the 'Back to top' button").map((c) => c.box), [shown.box]);
});

test('words a desktop program places through its Text interface are not read back from the pixels; a whole node\'s box is, and so is any box in a web page', async () => {
  const cell = node('cell', 'Grace Hopper, rear admiral', [10, 100, 600, 30], { value: 'Grace Hopper, rear admiral' });
  const words = { path: cell.path, text: 'Grace Hopper', start: 0, end: 12, box: { x: 14, y: 106, width: 90, height: 18 } };
  const [placed] = new TreeMatcher([cell], undefined, [words]).locate(parseQuery("'Grace Hopper'"));
  assert.equal(placed.drawnHere, true);
  const [whole] = new TreeMatcher([node('button', 'Grace Hopper', [10, 200, 200, 30])]).locate(parseQuery("'Grace Hopper'"));
  assert.equal(whole.drawnHere, undefined);
  // In a web page the same words are read back: its boxes lag a scroll.
  const page = node('document web', 'Staff', [0, 0, 1366, 768]);
  const [inPage] = new TreeMatcher([page, inside(page, cell)], undefined, [words]).locate(parseQuery("'Grace Hopper'"));
  assert.equal(inPage.drawnHere, undefined);
  // A reader that would see other words in every box: only the box the tree merely gives is dropped.
  let reads = 0;
  const pixels = { name: 'ocr', readBox: async () => { reads++; return 'Something else entirely'; } } as unknown as LocateEngine;
  const screen = { width: 1366, height: 768, data: Buffer.alloc(0) } as unknown as EngineContext['screen'];
  const kept = await confirmOnPixels([placed, whole], parseQuery("'Grace Hopper'"), { screen, deadline: Date.now() + 1000 } as EngineContext, [pixels]);
  assert.deepEqual(kept, [placed]);
  assert.equal(reads, 1, 'the placed words were not read');
});

test("a lone button in a row is 'the button in the row of' its text, nameless or showing only a glyph", () => {
  for (const name of ['', '×', '✖']) {
    const rows = ['Renew passport', 'Buy milk'].map((text, i) => {
      const item = node('list item', '', [100, 200 + i * 60, 550, 58]);
      const label = inside(item, node('label', text, [160, 215 + i * 60, 200, 24]));
      const remove = inside(item, node('button', name, [600, 215 + i * 60, 40, 28]));
      return { item, label, remove };
    });
    const nodes = rows.flatMap((r) => [r.item, r.label, r.remove]);
    assert.deepEqual(find(nodes, "the button in the row of 'Buy milk'").map((c) => c.box), [rows[1].remove.box], `a button named '${name}'`);
  }
});

test("quoted words that end in a role word ('Basic Inputs') are asked for whole inside a heading, and found at the words' box", () => {
  const heading = node('heading', 'Forms / Basic Inputs', [286, 100, 1039, 57]);
  const query = parseQuery("'Forms / Basic Inputs'");
  assert.ok(new TreeMatcher([heading]).textRequests(query).some((r) => r.text === 'Forms / Basic Inputs' && r.whole), 'the whole text is asked for');
  const words = { path: heading.path, text: 'Forms / Basic Inputs', start: 0, end: 20, box: { x: 286, y: 115, width: 212, height: 25 } };
  assert.deepEqual(new TreeMatcher([heading], undefined, [words]).locate(query).map((c) => c.box), [words.box]);
});

test('a box the pixels confirm is kept without asking whether the screen moved; other words there refuse it only on the screen still shown', async () => {
  const [button] = new TreeMatcher([node('button', 'Order confirmed', [10, 200, 200, 30])]).locate(parseQuery("'Order confirmed'"));
  const screen = { width: 1366, height: 768, data: Buffer.alloc(0) } as unknown as EngineContext['screen'];
  const reading = (text: string) => ({ name: 'ocr', readBox: async () => text }) as unknown as LocateEngine;
  let checks = 0;
  const staleness = (moved: boolean) => ({ signal: new AbortController().signal, check: async () => { checks++; return moved; } });
  const context = (moved: boolean) => ({ screen, deadline: Date.now() + 1000, stale: staleness(moved) }) as unknown as EngineContext;
  const query = parseQuery("'Order confirmed'");
  assert.deepEqual(await confirmOnPixels([button], query, context(true), [reading('Order confirmed')]), [button]);
  assert.equal(checks, 0, 'a confirmed box costs no look at the screen');
  assert.deepEqual(await confirmOnPixels([button], query, context(false), [reading('Shipping address')]), [], 'other words on the screen still shown refuse the box');
  // The tree, read after the capture, may be ahead of pixels that are gone: the look is made again, not refused.
  await assert.rejects(confirmOnPixels([button], query, context(true), [reading('Shipping address')]), ScreenMoved);
  assert.equal(checks, 2);
  // A box not read back, or where nothing legible is drawn, is no more evidence than the tree: kept only on the screen still shown.
  await assert.rejects(confirmOnPixels([{ ...button, drawnHere: true }], query, context(true), [reading('Order confirmed')]), ScreenMoved);
  await assert.rejects(confirmOnPixels([button], query, context(true), [reading('')]), ScreenMoved);
  assert.deepEqual(await confirmOnPixels([button], query, context(false), [reading('')]), [button]);
});
