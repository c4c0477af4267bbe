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

/**
 * A page that answers waitForPaintedPage() and waitForInput() as a loaded, full-screen page does; the
 * question whether its frame is on the screen is held until `shown` is called. `asked` lists what it was asked.
 */
function loadedPage() {
  const { input, cdp, answer } = pipes();
  const asked: string[] = [];
  let heldId: number | null = null;
  let shownAnswer: string | null = null;
  input.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\0').filter(Boolean)) {
      const { id, method, params } = JSON.parse(line);
      const expression: string = params?.expression ?? '';
      const what = method !== 'Runtime.evaluate' ? method : /innerWidth/.test(expression) ? 'ready?' : /gpuBenchmarking/.test(expression) ? 'shown?' : /paint/.test(expression) ? 'painted?' : 'pointer';
      asked.push(what);
      if (method === 'Target.attachToTarget') answer({ id, result: { sessionId: 'S' } });
      else if (what === 'painted?') answer({ id, result: { result: { value: 'painted' } } });
      else if (what === 'shown?') {
        if (shownAnswer) answer({ id, result: { result: { value: shownAnswer } } });
        else heldId = id;
      } else if (method === 'Runtime.evaluate') answer({ id, result: { result: { value: true } } });
      else answer({ id, result: {} });
    }
  });
  return {
    cdp, asked,
    shown(value: string) {
      shownAnswer = value;
      if (heldId !== null) answer({ id: heldId, result: { result: { value } } });
    },
  };
}

test('a page is ready for input only once its frame is on the screen, which the page is asked after it filled the screen and saw the pointer', async () => {
  const page = loadedPage();
  await page.cdp.waitForPaintedPage('http://localhost/page.html', Date.now() + 5000, 'T');
  const ready = outcome(page.cdp.waitForInput(Date.now() + 5000, async () => undefined));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(page.asked.at(-1), 'shown?', `the last question is whether the frame is on the screen (${page.asked.join(', ')})`);
  assert.ok(page.asked.indexOf('shown?') > page.asked.lastIndexOf('ready?') && page.asked.indexOf('shown?') > page.asked.lastIndexOf('pointer'), page.asked.join(', '));
  assert.ok(!page.asked.includes('Target.detachFromTarget'), 'not done before the answer');
  page.shown('shown');
  assert.deepEqual(await ready, { answered: undefined });
  assert.equal(page.asked.at(-1), 'Target.detachFromTarget');
});

test('a page that never says its frame is on the screen is taken as it is after a bound', async () => {
  const page = loadedPage();
  await page.cdp.waitForPaintedPage('http://localhost/page.html', Date.now() + 5000, 'T');
  const started = Date.now();
  assert.deepEqual(await outcome(page.cdp.waitForInput(Date.now() + 5000, async () => undefined)), { answered: undefined });
  const waited = Date.now() - started;
  assert.ok(waited >= 900 && waited < 1500, `the wait ended at its bound of 1 s (${waited} ms)`);
});

test('a page too busy to answer whether it is ready fails the wait at its deadline instead of holding it', async () => {
  const { input, cdp, answer } = pipes();
  input.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\0').filter(Boolean)) {
      const { id, method, params } = JSON.parse(line);
      if (method === 'Target.attachToTarget') answer({ id, result: { sessionId: 'S' } });
      else if (method === 'Runtime.evaluate' && /paint/.test(params.expression) && !/innerWidth/.test(params.expression)) answer({ id, result: { result: { value: 'painted' } } });
      else if (method !== 'Runtime.evaluate') answer({ id, result: {} });
      // The question whether it fills the screen gets no answer.
    }
  });
  await cdp.waitForPaintedPage('http://localhost/page.html', Date.now() + 5000, 'T');
  const started = Date.now();
  const waited = await outcome(cdp.waitForInput(Date.now() + 1000, async () => undefined));
  assert.match(String((waited as { failed?: string }).failed), /did not fill the screen/);
  assert.ok(Date.now() - started < 4000, `failed ${Date.now() - started} ms after the start`);
});
