import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../../lib/sdk';
import { X11Driver } from '../../lib/sandbox/agent/x11-driver';
import { InputRecording } from '../../lib/sandbox/agent/input-recording';
import { clientOnPage, fixtureServer, testState, waitForPageState } from '../helpers/glance';

// The recorder's first part: the agent records what a person does on the
// display, from any X client (here another connection that sends XTEST
// input, as VNC or xdotool do), and leaves out what it injects itself.

interface Recorded { seq: number; kind: 'key' | 'button' | 'motion'; pressed: boolean; detail: number; keysym: number; x: number; y: number }

let server: Awaited<ReturnType<typeof fixtureServer>>;
let client: Client;
let person: X11Driver;
const state = testState();

before(async () => {
  server = await fixtureServer();
  client = await clientOnPage(state, `${server.url}/input-lab.html`);
  person = await X11Driver.connect(client.getInstance()!.display!);
});

after(async () => {
  await person?.close();
  await client?.disconnect();
  await server?.close();
});

async function recorded(after: number, until: (events: Recorded[]) => boolean): Promise<Recorded[]> {
  const events: Recorded[] = [];
  for (const end = Date.now() + 5_000; Date.now() < end && !until(events);) {
    const last = events.length ? events[events.length - 1].seq : after;
    events.push(...(await client.requireAgent().call<{ events: Recorded[] }>('GET', `/record/events?after=${last}&timeoutMs=1000`)).events);
  }
  return events;
}

test("input from another X client is recorded, with its keys' keysyms; the agent's own input is left out", async () => {
  const agent = client.requireAgent();
  await agent.call('POST', '/record/start', {});
  try {
    // The agent's own commands: a click on the toggle and typed text.
    await client.click(60, 20);
    await client.type('zz', { into: { x: 300, y: 178 } });
    await waitForPageState(client, (s) => String(s.value).endsWith('zz'));
    // A person, through another connection: a click into the field, then 'Hi'.
    await person.moveTo(310, 180);
    await person.button('left', true);
    await person.button('left', false);
    await person.typeText('Hi', 0);
    await waitForPageState(client, (s) => String(s.value).endsWith('zzHi'));
    const events = await recorded(0, (e) => e.filter((x) => x.kind === 'key' && !x.pressed).length >= 3);
    const buttons = events.filter((e) => e.kind === 'button');
    assert.deepEqual(buttons.map((e) => [e.pressed, e.detail, e.x, e.y]), [[true, 1, 310, 180], [false, 1, 310, 180]], 'only the person\'s click');
    const keysDown = events.filter((e) => e.kind === 'key' && e.pressed).map((e) => e.keysym);
    // Shift (0xffe1), then 'H' (shifted), then 'i': none of the agent's 'z' keys.
    assert.deepEqual(keysDown, [0xffe1, 0x48, 0x69]);
    assert.ok(!events.some((e) => e.kind === 'button' && e.x === 60 && e.y === 20), "the agent's click is not recorded");
  } finally {
    await agent.call('POST', '/record/stop', {});
  }
  await assert.rejects(agent.call('GET', '/record/events?after=0'), /nothing is being recorded: POST \/record\/start first/);
  await assert.rejects(agent.call('POST', '/record/stop', { after: -1 }), /'after' must be a whole number from 0, got -1/);
  await assert.rejects(agent.call('POST', '/record/start', {}).then(() => agent.call('GET', '/record/events?after=-1')), /'after' must be a whole number/);
  await agent.call('POST', '/record/stop', {});
});

test('a stop answers with every input the display handled before it, however soon after the input it comes', async () => {
  const agent = client.requireAgent();
  for (let round = 0; round < 5; round++) {
    await agent.call('POST', '/record/start', {});
    const at = { x: 200 + round * 10, y: 300 };
    await person.moveTo(at.x, at.y);
    await person.button('left', true);
    await person.button('left', false);
    // A round trip on the person's own connection: the display has handled the click (as xdotool's exit waits for).
    await person.pointer();
    const { events } = await agent.call<{ events: Recorded[] }>('POST', '/record/stop', { after: 0 });
    assert.deepEqual(events.filter((e) => e.kind === 'button').map((e) => [e.pressed, e.x, e.y]), [[true, at.x, at.y], [false, at.x, at.y]], `round ${round}`);
  }
});

test("a long recording keeps no reply of the X server's once it has read it: its memory stays flat", async () => {
  // Recorded here, beside the agent's own recording: its injections are those of a connection that sends none.
  const quiet = await X11Driver.connect(client.getInstance()!.display!);
  const recording = await InputRecording.start(client.getInstance()!.display!, quiet.inputClient());
  try {
    for (let i = 0; i < 500; i++) await person.moveTo(100 + (i % 200), 400);
    await person.pointer();
    const events = await recording.after(0, 1_000);
    assert.ok(events.length >= 400, `the motions are recorded (${events.length})`);
    // The x11 connection keeps a multi-reply series' replies until its end unless they are taken away as they come.
    const series = Object.values((recording as unknown as { data: { replies: Record<string, unknown[]> } }).data.replies);
    const held = series.map((handler) => (handler[3] as unknown[] | undefined)?.length ?? 0);
    assert.ok(held.every((n) => n <= 1), `replies held: ${held.join(', ')}`);
  } finally {
    await recording.stop();
    await quiet.close();
  }
});
