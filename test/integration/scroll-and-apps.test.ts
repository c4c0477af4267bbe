import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../../lib/sdk';
import { clientOnPage, fixtureServer, testState, waitForPageState } from '../helpers/glance';

let server: Awaited<ReturnType<typeof fixtureServer>>;
let client: Client;
const state = testState();

before(async () => {
  server = await fixtureServer();
  client = await clientOnPage(state, `${server.url}/scroll-lab.html`);
});

after(async () => {
  await client?.disconnect();
  await server?.close();
});

const near = (value: number, target: number) => Math.abs(value - target) <= 60;

// The page mirrors its position into its title, which the window shows some frames later and one scroll
// event at a time: the test waits for the position to come to rest, then checks where it rests.
test('scroll moves the page in all four directions by about the amount', async () => {
  const rest = async (moved: (s: { x: number; y: number }) => boolean) => {
    const seen = await waitForPageState<{ x: number; y: number }>(client, moved);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await waitForPageState<{ x: number; y: number }>(client, () => true);
    assert.deepEqual(after, seen, 'the page kept scrolling after it reached the amount');
    return after;
  };
  await client.scroll('down', { amount: 240, x: 600, y: 400 });
  const down = await rest((s) => near(s.y, 240));
  assert.equal(down.x, 0);
  await client.scroll('right', { amount: 600 });
  const right = await rest((s) => near(s.x, 600));
  assert.ok(near(right.y, 240), `the page moved vertically too: ${JSON.stringify(right)}`);
  await client.scroll('up', { amount: 240 });
  await rest((s) => s.y === 0 && near(s.x, 600));
  await client.scroll('left', { amount: 600 });
  await rest((s) => s.x === 0 && s.y === 0);
});

test('provision.app waits for the window, and focusApplication brings one to the front', async () => {
  await client.provision.app({ command: 'xmessage -name glance-first -title "First window" first' });
  await client.provision.app({ command: 'xmessage -name glance-second -title "Second window" second' });
  const active = async () => (await client.requireAgent().call<{ title: string; active: boolean }[]>('GET', '/windows')).find((w) => w.active)?.title;
  await client.focusApplication('First window');
  assert.equal(await active(), 'First window');
  await client.focusApplication('glance-second');
  assert.equal(await active(), 'Second window');
  await assert.rejects(client.focusApplication('No such window'), /No window matches 'No such window'. Open windows: .*First window/);
});

test('a program that exits without a window fails the launch with its output', async () => {
  await assert.rejects(client.provision.app({ command: 'echo cannot start >&2; exit 3', timeout: 5000 }), /exited with code 3.*\n.*cannot start/s);
});
