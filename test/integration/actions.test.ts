import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import { Client } from '../../lib/sdk';
import { ExecError } from '../../lib/config/errors';
import { clientOnPage, fixtureServer, testState, waitForPageState } from '../helpers/glance';
import { waitFor } from '../../lib/util/wait';

// One sandbox with Chromium on the input lab page, driven like a user would.
let server: Awaited<ReturnType<typeof fixtureServer>>;
let client: Client;
const state = testState();

before(async () => {
  server = await fixtureServer();
  client = await clientOnPage(state, `${server.url}/input-lab.html`);
});

after(async () => {
  await client?.disconnect();
  await server?.close();
});

/** The swatch's colour at (420, 80), straight from the screen's raw pixels (BGRX). */
async function swatchColour(): Promise<[number, number, number]> {
  const screen = await client.requireAgent().screenRaw();
  const i = (80 * screen.width + 420) * 4;
  return [screen.data[i + 2], screen.data[i + 1], screen.data[i]];
}

test('a click changes the page, checked by pixels', async () => {
  assert.deepEqual(await swatchColour(), [255, 255, 255]);
  await client.click(160, 80);
  const red = await waitFor('the swatch to turn red', async () => {
    const c = await swatchColour();
    return c[0] > 200 && c[1] < 60 ? c : undefined;
  }, { timeoutMs: 3000, intervalMs: 10 });
  assert.deepEqual(red, [220, 30, 30]);
  await client.click({ x: 160, y: 80 });
  await waitForPageState(client, (s) => s.clicks === 2 && s.on === false);
  assert.deepEqual(await swatchColour(), [255, 255, 255]);
});

test('right-click and double-click reach the page as such', async () => {
  await client.click(700, 500, 'right-click');
  await waitForPageState(client, (s) => s.combo === 'contextmenu');
  await client.click(700, 500, 'double-click');
  await waitForPageState(client, (s) => s.combo === 'dblclick');
});

test('typing reproduces every printable ASCII character, shifted ones included', async () => {
  await client.click(300, 178);
  await client.pressKeys(['ctrl+a']);
  await client.pressKeys(['backspace']);
  let ascii = '';
  for (let c = 0x20; c <= 0x7e; c++) ascii += String.fromCharCode(c);
  await client.type(ascii);
  const s = await waitForPageState(client, (st) => st.value.length >= ascii.length);
  assert.equal(s.value, ascii);
});

test('non-ASCII text is typed through a spare keycode', async () => {
  await client.pressKeys(['ctrl+a']);
  await client.type('Grüße, café — ✓');
  const s = await waitForPageState(client, (st) => st.value.endsWith('✓'));
  assert.equal(s.value, 'Grüße, café — ✓');
});

test('key combinations arrive with their modifiers', async () => {
  await client.pressKeys(['ctrl+shift+k']);
  await waitForPageState(client, (s) => s.combo === 'ctrl+shift+k');
  await client.pressKeys(['alt', 'x']);
  await waitForPageState(client, (s) => s.combo === 'alt+x');
  await client.pressKeys(['Escape']);
  await waitForPageState(client, (s) => s.combo === 'escape');
});

test('a key pressed several times arrives as often as asked, with one redraw wait after the last', async () => {
  await client.pressKeys(['ctrl+a']);
  await client.type('abcdefgh');
  await waitForPageState(client, (st) => st.value === 'abcdefgh');
  const redraws: unknown[] = [];
  const listener = (e: { command?: string; redraw?: unknown }) => { if (e.command === 'pressKeys') redraws.push(e.redraw); };
  client.getEmitter().on('command:success', listener);
  await client.pressKeys(['backspace'], { times: 5 });
  client.getEmitter().off('command:success', listener);
  const s = await waitForPageState(client, (st) => st.value.length <= 3);
  assert.equal(s.value, 'abc');
  assert.equal(redraws.length, 1, 'one command');
  assert.ok(redraws[0], 'with its redraw wait');
  await assert.rejects(client.pressKeys(['backspace'], { times: 0 }), /Invalid option 'times': got 0; expected a whole number from 1 to 100/);
  await assert.rejects(client.pressKeys(['backspace'], { times: 2.5 }), /Invalid option 'times'/);
});

test('a secret typed is masked in events', async () => {
  const seen: unknown[] = [];
  const listener = (e: unknown) => seen.push(e);
  client.getEmitter().on('command:success', listener);
  await client.pressKeys(['ctrl+a']);
  await client.type('s3cret-Value!', { secret: true, delay: 2 });
  client.getEmitter().off('command:success', listener);
  const s = await waitForPageState(client, (st) => st.value === 's3cret-Value!');
  assert.equal(s.value, 's3cret-Value!');
  const json = JSON.stringify(seen);
  assert.ok(json.includes('****'));
  assert.ok(!json.includes('s3cret-Value!'));
});

test('exec returns stdout, and rejects with stderr on failure or timeout', async () => {
  assert.equal(await client.exec('sh', 'printf "%s" "$DISPLAY" | head -c 1'), ':');
  await assert.rejects(client.exec('sh', 'echo broken >&2; exit 4'), (e: Error) =>
    e instanceof ExecError && e.exitCode === 4 && /code 4/.test(e.message) && /broken/.test(e.message));
  await assert.rejects(client.exec('sh', 'sleep 5', { timeout: 300 }), /timed out after 300 ms/);
  await assert.rejects(client.exec('python' as 'sh', 'print(1)'), /'language'|runs 'sh'/);
});

test('screenshot() writes a PNG file and returns its path', async () => {
  const file = await client.screenshot();
  const png = fs.readFileSync(file);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(png.readUInt32BE(16), 1366);
  assert.equal(png.readUInt32BE(20), 768);
  // In the background: the path at once, the file once the screenshots are flushed.
  const later = await client.screenshot('later', { background: true });
  assert.notEqual(later, file);
  await client.flushScreenshots();
  const written = fs.readFileSync(later);
  assert.equal(written.subarray(1, 4).toString(), 'PNG');
  assert.equal(written.readUInt32BE(16), 1366);
});

test('typing into a point clicks it first, in one command with one redraw wait', async () => {
  await client.click(160, 80); // the button takes the focus from the field
  const before = (await waitForPageState(client, () => true)).value;
  const commands: string[] = [];
  const record = (e: { command: string }) => commands.push(e.command);
  client.getEmitter().on('command:success', record);
  await client.type(' into', { into: { x: 300, y: 178 } });
  client.getEmitter().off('command:success', record);
  assert.deepEqual(commands, ['type'], 'the click is part of the typing');
  const s = await waitForPageState(client, (st) => st.value.endsWith(' into'));
  assert.equal(s.value, `${before} into`, 'the keys went to the field the click focused');
  await assert.rejects(client.type('x', { into: { x: 5000, y: 10 } }), /not on the 1366x768 screen/);
});

test('the page reports the clicks and wheel notches it handled, so the keys after it go without waiting for a long still screen', async () => {
  type Reply = { pacing: { waitedMs: number; previousEchoed: boolean | null } };
  const agent = client.requireAgent();
  await agent.call('POST', '/pointer', { action: 'click', x: 160, y: 80 }); // the button takes the focus
  await agent.call('POST', '/pointer', { action: 'click', x: 300, y: 178 });
  const typed = await agent.call<Reply>('POST', '/type', { text: ' echo' });
  assert.equal(typed.pacing.previousEchoed, true, 'the page reported the click on the field');
  const s = await waitForPageState(client, (st) => st.value.endsWith(' echo'));
  assert.ok(s.value.endsWith(' echo'), 'the keys went to the field the click focused');
  const pressed = await agent.call<Reply>('POST', '/keys', { keys: ['shift+a'] });
  assert.equal(pressed.pacing.previousEchoed, true, 'the page reported every key release of the typed text');
  await waitForPageState(client, (st) => st.value.endsWith(' echoA'));
  await agent.call('POST', '/scroll', { direction: 'down', clicks: 3, x: 300, y: 300 });
  const afterScroll = await agent.call<Reply>('POST', '/keys', { keys: ['shift'] });
  assert.equal(afterScroll.pacing.previousEchoed, true, 'the page reported every notch of the wheel');
  await agent.call('POST', '/scroll', { direction: 'up', clicks: 3, x: 300, y: 300 });
});

test('invalid action input is refused with the fix', async () => {
  await assert.rejects(client.click(5000, 10), /not on the 1366x768 screen/);
  await assert.rejects(client.click(10, 10, 'triple-click' as 'click'), /click action 'triple-click'.*double-click/);
  await assert.rejects(client.pressKeys(['ctrl+shfit']), /Did you mean 'shift'/);
  await assert.rejects(client.scroll('sideways' as 'up'), /scroll direction 'sideways'/);
  await assert.rejects(client.type('a\u0007b'), /control characters/);
});

test("a release that a select's open list took is not awaited as the page's report, and one the page took is", async () => {
  type Reply = { pageReport: boolean };
  type Stacked = { menu?: boolean; pid: number | null };
  const agent = client.requireAgent();
  await client.provision.chrome({ url: `${server.url}/acme/settings.html` });
  const list = await client.find("the 'Language' dropdown");
  assert.ok(list.found(), list.reason ?? undefined);
  const [x, y] = [list.centerX!, list.centerY!];
  // The press opens the list, which takes the pointer: the release goes to the list, and the page never hears of it.
  await agent.call('POST', '/pointer', { action: 'mouse-down', x, y });
  const menu = await waitFor('the list to open', async () => (await agent.call<Stacked[]>('GET', '/windows/stack')).find((w) => w.menu), { timeoutMs: 5000, intervalMs: 20 });
  assert.ok(menu.pid !== null, 'the list says which process it belongs to');
  const released = await agent.call<Reply>('POST', '/pointer', { action: 'mouse-up', x, y });
  assert.equal(released.pageReport, false, 'the release went to the open list: no report of it is awaited');
  await agent.call('POST', '/keys', { keys: ['Escape'] });
  await waitFor('the list to close', async () => !(await agent.call<Stacked[]>('GET', '/windows/stack')).some((w) => w.menu) || undefined, { timeoutMs: 5000, intervalMs: 20 });
  const clicked = await agent.call<Reply>('POST', '/pointer', { action: 'click', x: 600, y: 600 });
  assert.equal(clicked.pageReport, true, "a click on the page waits for the page's report");
});
