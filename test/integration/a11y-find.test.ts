import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'path';
import { execFile } from 'child_process';
import { promisify } from 'util';
import { Client, Element } from '../../lib/sdk';
import { serveFolder } from '../../lib/util/static-server';
import { waitFor } from '../../lib/util/wait';
import { clientOnPage, FIXTURES, newClient, REPO_ROOT, testState, waitForPageState } from '../helpers/glance';

// Finding through the accessibility tree in a real sandbox: Chromium and GTK
// publish one; Tk and a <canvas> do not, and OCR answers there.
const state = testState();
let server: Awaited<ReturnType<typeof serveFolder>>;
let client: Client;

type Box = [number, number, number, number];
// The page's own boxes, once the window has taken the screen's width (before that they are stale).
const page = (): Promise<Record<string, any>> => waitForPageState(client, (state) => state.fits === true);

function assertBox(element: Element, [x, y, width, height]: Box, what: string): void {
  assert.ok(element.found(), `${what} is found: ${element.reason}`);
  const off = Math.max(Math.abs(element.x! - x), Math.abs(element.y! - y), Math.abs(element.width! - width), Math.abs(element.height! - height));
  assert.ok(off <= 2, `${what}: ${JSON.stringify(element.boundingBox)} is the page's ${JSON.stringify({ x, y, width, height })}`);
}

before(async () => {
  server = await serveFolder(path.join(REPO_ROOT, 'test', 'fixtures'));
  client = await clientOnPage(state, `${server.url}/a11y/workbench.html`, { cache: false });
});

after(async () => {
  await client?.disconnect();
  await server?.close();
});

test('an icon-only button is found by its accessible name, as a button and as an icon', async () => {
  const { search } = await page();
  const button = await client.find("the 'Search' button");
  assert.equal(button.engine, 'a11y');
  assertBox(button, search, "the 'Search' button");
  assert.match(JSON.parse(JSON.stringify(button)).selector, /^window\[name=".*"\] >> role=button\[name="Search"\]$/);
  assertBox(await client.find('the search icon'), search, 'the search icon');
});

test('a field by its label; its value read back from the tree', async () => {
  const { password } = await page();
  const field = await client.find('the Password field');
  assert.equal(field.engine, 'a11y');
  assertBox(field, password, 'the Password field');
  await client.find('the Email field').click();
  await client.type('ada@example.com');
  const email = await client.find('the Email field');
  assert.equal(await client.readText(email), 'ada@example.com');
  // Quoted, its label's words are read back on the pixels where the label is drawn, not in the field, which shows its value.
  const quoted = await client.find("the 'Email' field");
  assert.equal(quoted.engine, 'a11y', quoted.reason ?? '');
  assert.deepEqual(quoted.boundingBox, email.boundingBox);
});

test('a menu item inside an open menu', async () => {
  await client.find("the 'Actions' button").click();
  await waitFor('the menu to open', async () => (await page()).menu === true, { timeoutMs: 3000 });
  const item = await client.find("the 'Duplicate' menu item", { timeout: 3000 });
  assert.equal(item.engine, 'a11y');
  assertBox(item, (await page()).duplicate, 'the Duplicate menu item');
  assert.equal((await client.find("the 'Archive' menu item", { timeout: 0 })).engine, 'a11y');
  await item.click();
  await waitFor('the click to land', async () => (await page()).clicked === 'duplicate', { timeoutMs: 3000 });
});

test('a table cell by row and column, and a button in a row', async () => {
  const { graceCity, turingEdit } = await page();
  const cell = await client.find("the cell in the 'City' column in the row of 'Grace Hopper'");
  assert.equal(cell.engine, 'a11y');
  assert.equal(cell.text, 'New York');
  assertBox(cell, graceCity, "Grace Hopper's city");
  assertBox(await client.find("the 'Edit' button in the row of 'Alan Turing'"), turingEdit, "Alan Turing's Edit button");
  assert.equal((await client.findAll('Edit buttons')).length, 3);
  assertBox(await client.find("the third 'Edit' button"), turingEdit, 'the third Edit button');
});

test('text drawn on a canvas has no tree: OCR answers on the same page', async () => {
  const drawn = await client.find('Canvas total: 42');
  assert.equal(drawn.engine, 'ocr');
  assert.ok(drawn.x! > 20 && drawn.y! > 200, JSON.stringify(drawn.boundingBox));
});

test('glance a11y dump and glance locate --engine a11y look at the running sandbox', async () => {
  const glance = (...args: string[]) => promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'bin/glance.js'), ...args],
    { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, GLANCE_STATE_DIR: state.stateDir }, timeout: 60_000 });
  const id = client.getInstance()!.instanceId;
  const dump = (await glance('a11y', 'dump', '--sandbox', id)).stdout;
  assert.match(dump, new RegExp(`^sandbox ${id}: \\d+ visible elements`));
  assert.match(dump, /push button "Search" .*\d+,\d+ 36x36/);
  assert.match(dump, /entry "Email"/);
  const located = JSON.parse((await glance('locate', "the 'Search' button", '--engine', 'a11y', '--sandbox', id, '--json')).stdout);
  assert.equal(located.found, true);
  assert.match(located.selector, /role=button\[name="Search"\]/);
  await assert.rejects(glance('a11y', 'dump', '--sandbox', 'sbx-nope'), /No running sandbox 'sbx-nope'/);
});

test('a hung program does not hold up a find beyond the tree\'s bound', async () => {
  await client.exec('sh', 'gtk3-widget-factory >/dev/null 2>&1 & echo $! > /tmp/glance-hung.pid; sleep 2; kill -STOP $(cat /tmp/glance-hung.pid)');
  try {
    await client.focusApplication('Chromium');
    const started = Date.now();
    const found = await client.find("the 'Settings' button", { timeout: 0 });
    assert.ok(found.found(), found.reason ?? '');
    assert.equal(found.engine, 'a11y', 'the tree answered, past the hung program');
    assert.ok(Date.now() - started < 2500, `took ${Date.now() - started} ms`);
  } finally {
    await client.exec('sh', 'kill -CONT $(cat /tmp/glance-hung.pid); kill $(cat /tmp/glance-hung.pid); rm -f /tmp/glance-hung.pid');
  }
});

test('GTK: a field by its label in a dialog; Tk publishes nothing, and OCR finds the same kind of description', async () => {
  const desktop = newClient(state, { cache: false });
  await desktop.auth();
  await desktop.connect({ keepAlive: 0 });
  try {
    await desktop.provision.app({ command: 'zenity --forms --title=Signup --text=Signup --add-entry=Email --add-password=Password' });
    const email = await desktop.find('the Email field', { timeout: 5000 });
    assert.equal(email.engine, 'a11y', email.reason ?? '');
    await email.click();
    await desktop.type('grace@example.com');
    assert.equal(await desktop.readText(await desktop.find('the Email field')), 'grace@example.com');
    await desktop.resetApps();

    await desktop.provision.app({ command: path.join(FIXTURES, 'bin', 'stockroom') });
    const add = await desktop.find("the 'Add item' button", { timeout: 5000 });
    assert.equal(add.engine, 'ocr', add.reason ?? '');
    assert.ok(add.width! > 40, JSON.stringify(add.boundingBox));
  } finally {
    await desktop.disconnect();
  }
});
