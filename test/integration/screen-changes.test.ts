import { after, test } from 'node:test';
import assert from 'node:assert/strict';
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

test("a caret blinking in a field does not end a find's wait for a change, and a letter typed there does", async () => {
  const client = newClient(state, { dashcam: false });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  await client.provision.chrome({ url: 'data:text/html,<input autofocus style="font-size:24px" placeholder="Name">' });
  await (await client.find('the Name field')).click();
  const agent = client.requireAgent();
  const mark = (await agent.screenChanges(-1, 0))!;
  // Chromium blinks the caret every 500 ms: a wait for any drawing ends with a blink.
  const blinked = await agent.screenChanges(mark, 3000);
  assert.ok(blinked! > mark, 'the caret blinked within 3 s');
  const started = Date.now();
  const ignoring = await agent.screenChanges(blinked!, 1500, undefined, true);
  const waited = Date.now() - started;
  assert.ok(waited >= 1400, `the wait ran to its bound through the blinks (${waited} ms)`);
  assert.ok(ignoring! <= blinked!, `the blinks were not counted (${ignoring} after ${blinked})`);
  const counted = await agent.screenChanges(-1, 0);
  assert.ok(counted! > blinked!, `the caret went on blinking (the count of every drawing went from ${blinked} to ${counted})`);
  const typing = agent.screenChanges(counted!, 8000, undefined, true);
  const typedAt = Date.now();
  await client.type('Ada');
  await typing;
  assert.ok(Date.now() - typedAt < 4000, 'the letters typed ended the wait');
});
