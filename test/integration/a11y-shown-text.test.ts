import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'path';
import { Client } from '../../lib/sdk';
import { serveFolder } from '../../lib/util/static-server';
import { clientOnPage, REPO_ROOT, testState, waitForPageState } from '../helpers/glance';
import { TreeMatcher } from '../../lib/locate/a11y/match';
import { AgentClient } from '../../lib/sandbox/agent-client';
import { parseQuery } from '../../lib/locate/query';
import type { A11yTextBox } from '../../lib/types/a11y';

// The tree's text as a person sees it: bare quoted text counts only what the
// screen shows, names answer to a role word, and words inside a text have
// boxes of their own.
const state = testState();
let server: Awaited<ReturnType<typeof serveFolder>>;
let client: Client;
type Box = [number, number, number, number];
const page = (): Promise<Record<string, Box>> => waitForPageState<Record<string, unknown>>(client, (s) => s.fits === true) as Promise<Record<string, Box>>;
const centreIn = (x: number, y: number, [bx, by, bw, bh]: Box) => x >= bx && x <= bx + bw && y >= by && y <= by + bh;

before(async () => {
  server = await serveFolder(path.join(REPO_ROOT, 'test', 'fixtures'));
  client = await clientOnPage(state, `${server.url}/a11y/shown-text.html`, { cache: false, locator: 'a11y' });
});

after(async () => {
  await client?.disconnect();
  await server?.close();
});

test("'Search:' is the field whose shown label reads so, not the field above it whose aria-label is 'Search'", async () => {
  const { search, quick } = await page();
  const field = await client.find("the 'Search:' field");
  assert.equal(field.engine, 'a11y');
  assert.ok(centreIn(field.centerX!, field.centerY!, search), `${JSON.stringify(field.boundingBox)} is the labelled field ${search}, not ${quick}`);
  assert.match(field.selector ?? '', /^window\[name=".*"\] >> role=textbox\[name="Search:"\]$/);
});

test('an aria-label is a name, not shown text: found with a role word, not as bare text', async () => {
  assert.ok((await client.find("the 'Find' button", { timeout: 0 })).found(), 'the icon button answers to its name');
  assert.equal((await client.find("'Find'", { timeout: 0 })).found(), false, 'no one can read "Find" on the screen');
});

test('a placeholder is shown text only while its field is empty; the field still answers to it by name', async () => {
  const { repeat } = await page();
  assert.ok((await client.find("'Repeat Password'", { timeout: 0 })).found(), 'the empty field shows its placeholder');
  const field = await client.find("the 'Repeat Password' field");
  assert.ok(centreIn(field.centerX!, field.centerY!, repeat));
  assert.equal(await client.readText(field), '', 'an empty field reads as empty, not as its placeholder');
  await field.click();
  await client.type('s3cret!');
  assert.equal((await client.find("'Repeat Password'", { timeout: 0 })).found(), false, 'hidden by the value typed');
  const named = await client.find("the 'Repeat Password' field", { timeout: 0 });
  assert.ok(named.found() && centreIn(named.centerX!, named.centerY!, repeat), 'still found by its name with a role word');
  // Words are never looked for inside a password field's text, not even its own name.
  const snapshot = await client.requireAgent().a11ySnapshot({ texts: ['s3cret', 'Repeat Password'] });
  const secret = snapshot.nodes.find((n) => n.role === 'password text');
  assert.ok(secret, 'the password field is in the tree');
  assert.deepEqual(snapshot.textBoxes!.filter((b) => b.path === secret.path), []);
});

test("the third 'alpha' inside a text area is found at its own box, counted in reading order; a heading's box is its words'", async () => {
  const { notes, heading, headingWords } = await page();
  const all = await client.findAll("'alpha'");
  assert.equal(all.length, 4, 'every copy, within one node');
  const third = await client.find("the third 'alpha'", { timeout: 0 });
  assert.ok(third.found(), third.reason ?? '');
  assert.ok(centreIn(third.centerX!, third.centerY!, notes), 'inside the text area');
  assert.ok(third.width! < 80, `the word's own box, not the text area's: ${JSON.stringify(third.boundingBox)}`);
  assert.deepEqual([all[2].x, all[2].y], [third.x, third.y]);
  assert.ok(all[0].y! < all[1].y! && all[1].y! < all[2].y! && all[2].y === all[3].y && all[2].x! < all[3].x!, 'top to bottom, then left to right');
  assert.equal(third.selector, null, 'a range of a node has no selector of its own');
  const title = await client.find("the 'Release notes' heading");
  assert.ok(title.width! < heading[2] / 2, `the heading's words (${JSON.stringify(title.boundingBox)}), not the full-width heading ${heading}`);
  assert.ok(centreIn(title.centerX!, title.centerY!, headingWords));
});

test('a snapshot asked about texts places them as its walk meets them, where asking afterwards would, and a find asks no more', async () => {
  const agent = client.requireAgent();
  const snapshot = await agent.a11ySnapshot({ texts: ['alpha', 'Release notes'] });
  const requests = ["'alpha'", "the 'Release notes' heading"].flatMap((d) => new TreeMatcher(snapshot.nodes).textRequests(parseQuery(d)));
  const byPlace = (a: A11yTextBox, b: A11yTextBox) => a.path.localeCompare(b.path) || a.text.localeCompare(b.text) || a.start - b.start;
  const placed = snapshot.textBoxes!.filter((b) => requests.some((r) => r.path === b.path && r.text === b.text)).sort(byPlace);
  assert.equal(placed.filter((b) => b.text === 'alpha').length, 4);
  assert.equal(placed.filter((b) => b.text === 'Release notes').length, 1);
  assert.deepEqual(placed, (await agent.a11yTextBoxes(requests)).sort(byPlace));
  // Every agent client of this process (the find's own is the service's, not this one).
  const askedAfterwards = AgentClient.prototype.a11yTextBoxes;
  let asked = 0;
  AgentClient.prototype.a11yTextBoxes = function (...args) { asked++; return askedAfterwards.apply(this, args); };
  try {
    assert.ok((await client.find("the third 'alpha'", { timeout: 0 })).found());
  } finally {
    AgentClient.prototype.a11yTextBoxes = askedAfterwards;
  }
  assert.equal(asked, 0, 'the words were placed by the snapshot');
});

test("one line of text is one text, however the page splits it: '<strong>1</strong> item left'", async () => {
  const line = await client.find("'1 item left'", { timeout: 0 });
  assert.ok(line.found(), line.reason ?? '');
  assert.equal(line.engine, 'a11y');
  assert.ok(line.width! < 200, `the line's own box, not the paragraph's width: ${JSON.stringify(line.boundingBox)}`);
});

test('a double-click on a word found inside a text selects that word', async () => {
  await (await client.find("the third 'alpha'")).doubleClick();
  await client.type('BETA');
  const notes = (await client.requireAgent().a11ySnapshot()).nodes.find((n) => n.name === 'Notes');
  assert.equal(notes?.value, 'first line with alpha second alpha and more the BETA at the end: alpha');
});

test("a lone button in a row is 'the button in the row of' its text, when it shows only a glyph", async () => {
  const { dropPassport, dropMilk } = await page();
  for (const [text, box] of [['Renew passport', dropPassport], ['Buy milk', dropMilk]] as const) {
    const button = await client.find(`the button in the row of '${text}'`, { timeout: 0 });
    assert.ok(button.found(), button.reason ?? '');
    assert.ok(centreIn(button.centerX!, button.centerY!, box), `${text}: at ${button.centerX},${button.centerY}, the row's button is ${box}`);
  }
});

test("a link whose words sit in a block inside it shows them: bare 'Quarterly reports' finds it", async () => {
  const { reports } = await page();
  const link = await client.find("'Quarterly reports'", { timeout: 0 });
  assert.ok(link.found(), link.reason ?? '');
  assert.ok(centreIn(link.centerX!, link.centerY!, reports), `at ${link.centerX},${link.centerY}, the link is ${reports}`);
});
