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
