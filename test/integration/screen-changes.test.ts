import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '../../lib/sdk';
import { cleanupAfterFile, newClient, testState } from '../helpers/glance';

/** The agent counts the screen's changes from the X server's damage reports; a find waits on them instead of looking again and again. */
const state = testState();
const cleanup = cleanupAfterFile(state, after);

test("a wait on the screen's changes holds while nothing is drawn, and ends when something is", async () => {
  const client = newClient(state, { dashcam: false });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  const agent = client.requireAgent();
  const still = await agent.screenChanges(-1, 0);
  assert.equal(typeof still, 'number', 'the sandbox counts changes');
  // Nothing runs on the bare desktop: a short wait ends with the count as it was.
  assert.equal(await agent.screenChanges(still!, 300), still);
  const waiting = agent.screenChanges(still!, 8000);
  const drawnAt = Date.now();
  await client.provision.chrome({ url: 'data:text/html,<h1 style="font-size:60px">Drawn</h1>' });
  const changed = await waiting;
  assert.ok(changed! > still!, `the count went from ${still} to ${changed}`);
  assert.ok(Date.now() - drawnAt < 8000, 'the wait ended with the drawing, not at its bound');
  // A wait that is abandoned ends at once, with the request's own error.
  const abandon = new AbortController();
  const abandoned = agent.screenChanges(changed! + 1000, 8000, abandon.signal);
  abandon.abort();
  await assert.rejects(abandoned, { name: 'AbortError' });
});

/**
 * Asserts that a wait ignoring a caret runs to its bound while the caret
 * blinks, and ends when letters are typed. A program may redraw its whole
 * window once after it takes the focus (Chromium does, about 3.5 s later),
 * which rightly ends a wait: of three waits, one must run to its bound.
 */
async function caretIgnored(client: Client): Promise<void> {
  const agent = client.requireAgent();
  const mark = (await agent.screenChanges(-1, 0))!;
  // The caret blinks every 500 ms or so: a wait for any drawing ends with a blink.
  const blinked = await agent.screenChanges(mark, 3000);
  assert.ok(blinked! > mark, 'the caret blinked within 3 s');
  const waits: { waitedMs: number; before: number; after: number; ignoring: number }[] = [];
  const throughBlinks = (w: typeof waits[number]) => w.waitedMs >= 1400 && w.after > w.before && w.ignoring <= w.before;
  while (waits.length < 3 && !waits.some(throughBlinks)) {
    const before = (await agent.screenChanges(-1, 0))!;
    const started = Date.now();
    const ignoring = (await agent.screenChanges(before, 1500, undefined, true))!;
    const waitedMs = Date.now() - started;
    waits.push({ waitedMs, before, after: (await agent.screenChanges(-1, 0))!, ignoring });
  }
  assert.ok(waits.some(throughBlinks), `a wait ran to its bound while the caret blinked, the blinks not counted: ${JSON.stringify(waits)}`);
  const typing = agent.screenChanges((await agent.screenChanges(-1, 0, undefined, true))!, 8000, undefined, true);
  const typedAt = Date.now();
  await client.type('Ada');
  await typing;
  assert.ok(Date.now() - typedAt < 4000, 'the letters typed ended the wait');
}

test("a caret blinking in a field does not end a find's wait for a change, and a letter typed there does: Chromium, and a GTK program", async () => {
  const client = newClient(state, { dashcam: false });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  // Chromium reports the blink as the caret's own line.
  await client.provision.chrome({ url: 'data:text/html,<input autofocus style="font-size:24px" placeholder="Name">' });
  await (await client.find('the Name field')).click();
  await caretIgnored(client);
  // GTK redraws the whole entry at each blink: the agent reads it, and finds only the caret changed.
  await client.provision.app({ command: 'zenity --entry --text=Name' });
  await caretIgnored(client);
});
