import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'stream';
import { CdpPipe } from '../../lib/sandbox/agent/cdp-pipe';
import { PageLoads } from '../../lib/sandbox/agent/page-loads';

/**
 * A browser's end of the debugging pipe, as Chromium speaks it: calls are
 * answered at once (a frame asked for is drawn at once), and `emit` sends an
 * event. Each call is noted with when it came.
 */
function browserPipe() {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const calls: { method: string; at: number }[] = [];
  let buffered = '';
  toBrowser.setEncoding('utf8');
  toBrowser.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\0')) >= 0) {
      const call = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      calls.push({ method: call.method, at: Date.now() });
      const result = call.method === 'Runtime.evaluate' ? { result: { type: 'boolean', value: true } } : {};
      fromBrowser.write(`${JSON.stringify({ id: call.id, result, ...(call.sessionId ? { sessionId: call.sessionId } : {}) })}\0`);
    }
  });
  const emit = (method: string, params: unknown, sessionId?: string) => fromBrowser.write(`${JSON.stringify({ method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
  return { cdp: new CdpPipe(toBrowser, fromBrowser), calls, emit, close: () => { toBrowser.destroy(); fromBrowser.destroy(); } };
}

test('input counts as reported only once the page reported it: a frame drawn before the report proves nothing', async () => {
  const browser = browserPipe();
  const loads = new PageLoads();
  try {
    await loads.watch(browser.cdp, null);
    browser.emit('Target.attachedToTarget', { sessionId: 'page-1', targetInfo: { type: 'page', targetId: 'target-1' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = loads.inputsHandled();
    loads.awaitReleases(before + 1);
    let reportedAt = Infinity;
    setTimeout(() => {
      reportedAt = Date.now();
      browser.emit('Runtime.bindingCalled', { name: '__glanceInputHandled', payload: 'pointerup' }, 'page-1');
    }, 80);
    const bound = 20_000;
    await loads.inputReported(bound);
    const heardAt = Date.now();
    assert.equal(loads.inputsHandled(), before + 1, 'the report was counted');
    assert.ok(heardAt >= reportedAt, 'not before the page reported the click');
    assert.ok(heardAt - reportedAt < bound / 2, `the wait ended on the report, not at its bound (${heardAt - reportedAt} ms after the report)`);
  } finally {
    browser.close();
  }
});
