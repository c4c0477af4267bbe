import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'stream';
import { CdpPipe } from '../../lib/sandbox/agent/cdp-pipe';

/** A pipe pair like Chromium's fds 3 and 4; `browser` answers from the other side. */
function pipes() {
  const input = new PassThrough();
  const output = new PassThrough();
  const cdp = new CdpPipe(input, output);
  const answer = (message: object) => output.write(`${JSON.stringify(message)}\0`);
  return { input, output, cdp, answer };
}

const BOUND_MS = 2000;
/** The call's outcome, or 'waiting' when it has none within the bound. */
function outcome(call: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout;
  const waiting = new Promise((resolve) => { timer = setTimeout(() => resolve('waiting'), BOUND_MS); });
  return Promise.race([call.then((v) => ({ answered: v }), (e: Error) => ({ failed: e.message })), waiting]).finally(() => clearTimeout(timer));
}

test('a call is answered by the reply with its id', async () => {
  const { input, cdp, answer } = pipes();
  input.once('data', (chunk: Buffer) => answer({ id: JSON.parse(chunk.toString().replace(/\0$/, '')).id, result: { ok: 1 } }));
  assert.deepEqual(await outcome(cdp.send('Browser.getVersion')), { answered: { ok: 1 } });
});

test('a call made once the browser is gone fails at once rather than waiting for ever', async () => {
  // The browser killed from outside: its end of the command pipe closes first; the agent learns of it while
  // it awaits something else (the window list), and only then sends.
  const closedInput = pipes();
  closedInput.input.destroy();
  await new Promise((r) => setImmediate(r));
  assert.match(String((await outcome(closedInput.cdp.send('Target.createBrowserContext')) as { failed?: string }).failed), /closed its debugging pipe/);
  assert.equal(closedInput.cdp.open, false);

  const closedOutput = pipes();
  closedOutput.output.destroy();
  await new Promise((r) => setImmediate(r));
  assert.match(String((await outcome(closedOutput.cdp.send('Target.createBrowserContext')) as { failed?: string }).failed), /closed its debugging pipe/);
});

test('a call waiting for its answer fails when the browser goes; a broken pipe does not throw', async () => {
  const { output, cdp } = pipes();
  const waiting = outcome(cdp.send('Runtime.evaluate'));
  output.destroy(new Error('read ECONNRESET'));
  assert.deepEqual(await waiting, { failed: 'read ECONNRESET' });
});
