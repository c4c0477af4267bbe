import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../../lib/sdk';
import type { A11ySnapshot } from '../../lib/types/a11y';
import { cleanupAfterFile, newClient, testState } from '../helpers/glance';
import { waitFor } from '../../lib/util/wait';

/**
 * Qt's plain-text editors report every paragraph's characters on the text's
 * first line. The agent works out each paragraph's true place, so the tree
 * alone finds every copy of a word on its own line, where it is drawn.
 */
const state = testState();
const cleanup = cleanupAfterFile(state, after);

async function editorWith(lines: string[]): Promise<Client> {
  const client = newClient(state, { locator: 'a11y', cache: false, dashcam: false, redraw: false });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  await client.provision.app({ command: 'featherpad --standalone' });
  await client.type(lines.join('\n'));
  // With redraw off, nothing waits for the editor to take the text in: the tests look once its tree holds every line.
  const typed = lines.join(' ');
  await waitFor(`the editor's tree to hold the ${lines.length} lines typed`, async () => (await editorText(client)) === typed, { timeoutMs: 10_000 });
  return client;
}

/** The editor's text as its tree gives it: the lines joined with spaces. */
const editorText = async (client: Client): Promise<string | null | undefined> =>
  (await client.requireAgent().call<A11ySnapshot>('POST', '/a11y', { deadlineMs: 2000 })).nodes.find((n) => n.states.includes('multi-line'))?.value;

test("in a Qt editor, the tree finds each copy of a word on its own line, and a double-click on the third 'alpha' selects that one", async () => {
  const client = await editorWith(['alpha beta', 'gamma alpha', 'alpha again']);
  const copies = await client.findAll("'alpha'");
  assert.deepEqual(copies.map((c) => c.engine), ['a11y', 'a11y', 'a11y']);
  const [first, second, third] = copies.map((c) => ({ x: c.x!, y: c.y!, height: c.height! }));
  assert.ok(second.y >= first.y + first.height - 1 && third.y >= second.y + second.height - 1, `one copy per line, top to bottom: ${JSON.stringify(copies.map((c) => [c.x, c.y]))}`);
  assert.equal(third.x, first.x, 'the first and the third copy both start their lines');
  await (await client.find("the third 'alpha'")).doubleClick();
  await client.type('omega');
  // The tree's value joins the lines with spaces.
  assert.equal(await editorText(client), 'alpha beta gamma alpha omega again');
  await client.disconnect();
});

test('in a Qt editor holding more lines than it shows, the tree gives no boxes it cannot place', async () => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1} alpha`);
  const client = await editorWith(lines);
  // The tree holds all 40 lines (editorWith waited for them), but the editor shows only some: it places none.
  assert.deepEqual(await client.findAll("'alpha'"), [], 'no box from the tree for lines it cannot place');
  await client.disconnect();
});
