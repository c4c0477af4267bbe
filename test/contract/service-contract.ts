import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import { PNG } from 'pngjs';
import type { LocateRequest, SandboxSession, Service } from '../../lib/service/service';
import { AgentClient } from '../../lib/sandbox/agent-client';

/**
 * The Service's contract: what any transport (the embedded LocalService, a
 * remote one) must do. Run it with a factory for the transport under test.
 */
export interface ServiceUnderTest {
  service: Service;
  apiKey: string;
  /** Where the Service keeps its state (screenshots land below it). */
  stateDir: string;
  /** A URL of the fixture app, e.g. `${base}/app/users.html`. */
  base: string;
  cleanup(): Promise<void>;
}

const SETTINGS = {
  locator: 'auto' as const, os: 'linux' as const,
  cache: { enabled: true, thresholds: { find: { screen: 0.05, element: 0.8 }, assert: 0.05 }, maxEntries: 100 },
  vision: null,
};

function request(description: string, overrides: Partial<LocateRequest> = {}): LocateRequest {
  return { description, cacheKey: 'contract', cacheThreshold: 0.05, timeout: 0, type: 'any', zoom: false, verify: false, ai: {}, ...overrides };
}

/** True when a value survives JSON unchanged: no Buffers, functions, class instances, Maps, Dates or cycles. */
function plain(value: unknown): boolean {
  try {
    assert.deepStrictEqual(JSON.parse(JSON.stringify(value)), value);
    return true;
  } catch {
    return false;
  }
}

export function serviceContract(name: string, factory: () => Promise<ServiceUnderTest>): void {
  describe(`Service contract: ${name}`, () => {
    let it: ServiceUnderTest;
    let token: string;
    let sandbox: SandboxSession;
    let session: string;
    let agent: AgentClient;

    const open = async (page: string) => {
      // As a scenario of a reused sandbox opens its page: the programs before it closed, the page in a fresh context of the kept browser.
      await agent.call('POST', '/apps/close', {}, 15_000);
      await agent.call('POST', '/launch/chrome', { url: `${it.base}/app/${page}`, timeout: 30_000 }, 35_000);
    };

    before(async () => {
      it = await factory();
      token = (await it.service.auth(it.apiKey)).token;
      sandbox = await it.service.createSandbox(token, { os: 'linux', width: 1366, height: 768, keepAlive: 0, environment: {}, preview: 'none' });
      agent = new AgentClient(sandbox.agent);
      await agent.call('POST', '/session', { keepAlive: 0 });
      session = (await it.service.openSession(token, sandbox.instance.instanceId, SETTINGS)).sessionId;
      await open('users.html');
    });

    after(async () => {
      agent?.close();
      if (session) await it.service.stopSandbox(session, { keepAlive: 0 }).catch(() => undefined);
      await it?.cleanup();
    });

    test('auth refuses an unknown key and names the fix', async () => {
      await assert.rejects(it.service.auth('glance_unknown_key'), /API key is not valid.*glance (init|keys create)/s);
    });

    test('a session needs a sandbox of this service and a valid token', async () => {
      await assert.rejects(it.service.openSession(token, 'no-such-sandbox', SETTINGS), /no-such-sandbox/);
      await assert.rejects(it.service.openSession('forged.token', sandbox.instance.instanceId, SETTINGS), /session token's signature is invalid/);
      await assert.rejects(it.service.locate('no-such-session', request('Users')), /No open session/);
    });

    test('locate answers with a plain result: box, text, engine, cache info, attempts', async () => {
      const result = await it.service.locate(session, request('Add user button'));
      assert.ok(plain(result), 'the result is plain data');
      assert.equal(result.element?.text, 'Add user', result.notFound ?? undefined);
      assert.ok(['a11y', 'ocr'].includes(result.engine), `answered by ${result.engine}`);
      assert.equal(result.element?.engine, result.engine);
      assert.equal(result.notFound, null);
      assert.equal(result.attempts, 1);
      const box = result.element!.box;
      assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1366 && box.y + box.height <= 768, JSON.stringify(box));
      assert.equal(Buffer.from(result.element!.crop!, 'base64').subarray(1, 4).toString(), 'PNG');
      assert.equal(result.cache.hit, false);
    });

    test('a miss says why, what the screen showed, and where its screenshot is', async () => {
      const result = await it.service.locate(session, request("the 'Archive' button", { screenshotName: 'contract/0001-find-notfound-archive.png' }));
      assert.ok(plain(result));
      assert.equal(result.element, null);
      assert.match(result.notFound!, /Element not found: 'the 'Archive' button'/);
      assert.match(result.notFound!, /seen instead: /);
      assert.ok(result.debugScreenshot && fs.existsSync(result.debugScreenshot) && result.debugScreenshot.startsWith(it.stateDir), String(result.debugScreenshot));
      assert.ok(result.notFound!.includes(`screenshot: ${result.debugScreenshot}`), 'the message names the screenshot where the caller finds it');
      await assert.rejects(it.service.locate(session, request('Nothing like this', { screenshotName: '../../escape.png' })), /leaves the screenshots folder/);
    });

    test('locateAll gives every match in reading order; a refusal is an answer, not an error', async () => {
      const all = await it.service.locateAll(session, request('Delete buttons', { cacheThreshold: -1 }));
      assert.ok(plain(all));
      assert.equal(all.elements.length, 5);
      const ys = all.elements.map((e) => e.box.y);
      assert.deepEqual([...ys].sort((a, b) => a - b), ys);
      const refused = await it.service.locateAll(session, request('the red round icon', { cacheThreshold: -1 }));
      assert.deepEqual(refused.elements, []);
      assert.match(refused.refusal!, /vision model/);
    });

    test('readText reads a box; assert checks quoted text and says what needs a model', async () => {
      const heading = await it.service.locate(session, request('Add user button', { cacheThreshold: -1 }));
      assert.match(await it.service.readText(session, heading.element!.box), /Add user/);
      const judged = (statement: string) => it.service.assert(session, { statement, threshold: 0.05, cacheKey: null, ai: {} });
      const shown = await judged("the page shows 'Add user'");
      assert.ok(plain(shown));
      assert.deepEqual({ passed: shown.passed, reason: shown.reason, calls: shown.modelCalls }, { passed: true, reason: "the screen shows 'Add user'", calls: [] });
      assert.equal((await judged("the page shows 'Refund issued'")).passed, false);
      await assert.rejects(judged('the page looks tidy'), /needs a vision model.*GLANCE_AI_MODEL/s);
    });

    test("the recorder's calls: a view, the element at a point of it described in words found again there, and a description found on it", async () => {
      const view = await it.service.captureView(session);
      assert.ok(plain(view));
      assert.deepEqual({ width: view.width, height: view.height, tree: view.tree }, { width: 1366, height: 768, tree: true });
      const button = (await it.service.locate(session, request('Add user button', { cacheThreshold: -1 }))).element!.box;
      const described = await it.service.describeAt(session, { viewId: view.viewId, x: button.x + button.width / 2, y: button.y + button.height / 2, intent: 'click' });
      assert.ok(plain(described));
      assert.deepEqual({ description: described.description, refound: described.refound, source: described.source, flags: described.flags }, { description: "the 'Add user' button", refound: true, source: 'a11y', flags: [] });
      assert.deepEqual(await it.service.findOnView(session, view.viewId, "the 'Add user' button"), described.box);
      assert.equal(await it.service.findOnView(session, view.viewId, "the 'Archive' button"), null);
      await assert.rejects(it.service.describeAt(session, { viewId: 'no-such-view', x: 1, y: 1, intent: 'click' }), /view 'no-such-view' is not kept/);
      // Nothing appeared between a view and itself; a view of the same screen adds nothing either.
      assert.deepEqual(await it.service.textsAdded(session, view.viewId, view.viewId), []);
      assert.deepEqual(await it.service.textsAdded(session, view.viewId, (await it.service.captureView(session)).viewId), []);
      // The step list's picture: the screen around the element, outlined in red, scaled to 360 wide; a masked box is grey.
      const pixels = (png: PNG) => Array.from({ length: png.width * png.height }, (_, i) => [...png.data.subarray(i * 4, i * 4 + 3)]);
      const count = (png: PNG, like: (rgb: number[]) => boolean) => pixels(png).filter(like).length;
      const red = ([r, g, b]: number[]) => r > 200 && g < 80 && b < 80;
      const grey = ([r, g, b]: number[]) => r === 128 && g === 128 && b === 128;
      const picture = PNG.sync.read(Buffer.from(await it.service.viewPicture(session, { viewId: view.viewId, box: described.box, masks: [] }), 'base64'));
      assert.deepEqual({ width: picture.width, height: picture.height }, { width: 360, height: 203 });
      assert.ok(count(picture, red) > 50, `the element is outlined in red (${count(picture, red)} red pixels)`);
      const masked = PNG.sync.read(Buffer.from(await it.service.viewPicture(session, { viewId: view.viewId, box: described.box, masks: [described.box!] }), 'base64'));
      // 480 px of screen shown in 360: the box covers 0.75² of its pixels in the picture.
      const covered = described.box!.width * described.box!.height * 0.75 * 0.75;
      assert.ok(count(masked, grey) >= covered * 0.6 && count(picture, grey) < covered * 0.1, `the masked box is grey (${count(masked, grey)} grey pixels, ${count(picture, grey)} unmasked, box ${Math.round(covered)})`);
    });

    test('the cache: commit writes what was found, the next locate hits, discard drops', async () => {
      await it.service.discardCache(session);
      const first = await it.service.locate(session, request('Add user button', { cacheKey: 'contract-cache' }));
      assert.equal(first.cache.hit, false);
      assert.equal(await it.service.commitCache(session), 1);
      const again = await it.service.locate(session, request('Add user button', { cacheKey: 'contract-cache' }));
      assert.equal(again.cache.hit, true);
      assert.deepEqual(again.element!.box, first.element!.box);
      await it.service.locate(session, request('Edit button', { cacheKey: 'contract-cache' }));
      assert.equal(await it.service.discardCache(session), 1);
      assert.equal(await it.service.commitCache(session), 0);
    });

    test('a waiting find on a still screen looks once, even with a cache entry for the description', async () => {
      await open('cache-lab.html');
      const key = { cacheKey: 'contract-wait' };
      assert.ok((await it.service.locate(session, request('Publish button', key))).element);
      assert.equal(await it.service.commitCache(session), 1);
      // The bare desktop: X11 leaves the fourth byte of its pixels at 0, which the cache's
      // comparison must not rewrite in the captured screen (the next look would differ).
      await agent.call('POST', '/exec', { code: "pkill -f '[c]hromium-'; sleep 1", timeout: 10_000 }, 15_000);
      const waited = await it.service.locate(session, request('Publish button', { ...key, cacheThreshold: 1, timeout: 2000 }));
      assert.equal(waited.element, null);
      assert.ok(waited.elapsedMs >= 1900, `waited ${waited.elapsedMs} ms`);
      assert.equal(waited.attempts, 1, 'the engines ran once: the screen did not change');
    });

    test('stopSandbox ends the session', async () => {
      await it.service.stopSandbox(session, { keepAlive: 0 });
      const ended = session;
      session = '';
      await assert.rejects(it.service.locate(ended, request('Users')), /No open session/);
    });
  });
}
