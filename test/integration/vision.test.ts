import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AssertionError, Client, VisionModelError, VisionModelRequiredError } from '../../lib/sdk';
import type { ClientOptions } from '../../lib/config/options';
import type { AiUsageEvent } from '../../lib/client/client';
import type { Box } from '../../lib/types/screen';
import { FAMILIES, FamilyName } from '../../lib/config/vision';
import { clientOnPage, fixtureServer, newClient, testState, waitForPageState } from '../helpers/glance';
import { groundTruth, inside, STUDIO } from '../support/ground-truth';
import { VisionServer } from '../support/vision-server';

// The vision engine in a real sandbox: Chromium on Xvfb, real OCR and the
// accessibility tree, and the test model server speaking the real chat
// completions protocol to the real openai client.
const state = testState();
const server = new VisionServer({ family: 'pixels' });
let pages: Awaited<ReturnType<typeof fixtureServer>>;
let holder: Client;
let sandboxId: string;
let targets: Record<string, Box[]>;
const MODEL_VARS = ['GLANCE_AI_BASE_URL', 'GLANCE_AI_API_KEY', 'GLANCE_AI_MODEL', 'GLANCE_AI_FAMILY', 'GLANCE_AI_TIMEOUT', 'GLANCE_AI_RETRIES', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'];
const open: Client[] = [];

before(async () => {
  pages = await fixtureServer();
  await server.start();
  holder = await clientOnPage(state, `${pages.url}/app/studio.html`);
  sandboxId = holder.getInstance()!.instanceId;
  targets = (await groundTruth('app/studio.html', STUDIO)).targets;
  await server.show({ screen: await holder.captureScreen(), targets, facts: FACTS });
});

const FACTS = {
  'the cart shows 2 items': { verdict: true, reason: 'the cart in the top right reads Cart (2)' },
  'the banner is green': { verdict: false, reason: 'the banner is red' },
  'the picture shows a mountain': { verdict: true, reason: 'a grey mountain under a yellow sun' },
};

after(async () => {
  for (const client of open) await client.disconnect().catch(() => undefined);
  await holder?.disconnect(); // keepAlive 0: the sandbox stops
  await server.close();
  await pages?.close();
});

/** A client on the studio sandbox whose environment names a vision model (or none). */
async function connectWith(env: Record<string, string>, options: ClientOptions = {}): Promise<Client> {
  const saved = Object.fromEntries(MODEL_VARS.map((name) => [name, process.env[name]]));
  for (const name of MODEL_VARS) delete process.env[name];
  Object.assign(process.env, env);
  let client: Client;
  try {
    client = newClient(state, { sandboxId, ...options });
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  await client.auth();
  await client.connect({ keepAlive: 60_000 });
  open.push(client);
  return client;
}

const centre = (box: Box) => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
const truthOf = (description: string) => targets[description];
const usageOf = (client: Client) => {
  const events: AiUsageEvent[] = [];
  client.getEmitter().on('ai:usage', (e: AiUsageEvent) => events.push(e));
  return events;
};

test('every family: the model answers in its own convention and the click lands inside the target', async () => {
  const plays: { family: FamilyName; pointForBox?: boolean }[] = [...FAMILIES.map((family) => ({ family })), { family: 'pixels', pointForBox: true }];
  for (const play of plays) {
    const label = `${play.family}${play.pointForBox ? ' (point for a box)' : ''}`;
    server.play({ ...play, model: `model-${play.family}` });
    const client = await connectWith(server.env(), { cacheKey: `family-${label}` });
    const before = server.requests.length;
    for (const description of ['the gear icon', 'the blue square', 'the picture of a mountain']) {
      const element = await client.find(description, { timeout: 0 });
      assert.equal(element.found(), true, `${label}: '${description}' found (${element.reason}; the model answered: ${server.requests.at(-1)?.answer ?? 'nothing'})`);
      assert.equal(element.engine, 'vision');
      assert.ok(truthOf(description).some((box) => inside({ x: element.centerX!, y: element.centerY! }, box)), `${label}: '${description}' at ${element.centerX},${element.centerY} lies inside ${JSON.stringify(truthOf(description))}`);
    }
    const sent = server.requests.slice(before);
    assert.equal(sent.length, 3, `${label}: one model call per find`);
    assert.ok(sent.every((r) => r.images.length === 1 && r.model === `model-${play.family}`));
    // Qwen2.5-VL gets an image its processor leaves as it is: sides multiples of 28.
    if (play.family === 'qwen2.5-vl') assert.deepEqual(sent[0].images[0], { width: 1316, height: 728 });
    if (play.family === 'pixels') assert.deepEqual(sent[0].images[0], { width: 1366, height: 768 });
    await client.disconnect();
  }
  // And a click really lands: the page records what was clicked.
  server.play({ family: 'ui-tars-1.5', model: 'model-ui-tars-1.5', pointForBox: false });
  const client = await connectWith(server.env(), { cacheKey: 'family-click' });
  await client.find('the gear icon').click();
  await waitForPageState(client, (s: { clicked?: string[] }) => !!s.clicked?.includes('gear'));
  await client.disconnect();
});

test('findAll asks for every match; zoom sends the 30% crop; verify rejects a wrong box at temperature 0', async () => {
  server.play({ family: 'gemini', model: 'model-gemini' });
  const client = await connectWith(server.env(), { cacheKey: 'zoom-verify' });
  const trash = await client.findAll('trash icons');
  assert.equal(trash.length, 3);
  trash.forEach((element, i) => assert.ok(inside({ x: element.centerX!, y: element.centerY! }, truthOf('trash icons')[i]), `trash icon ${i + 1} inside its box`));
  assert.equal(server.requests.at(-1)!.task, 'locate-all');

  let mark = server.requests.length;
  const zoomed = await client.find('the bell icon', { zoom: true, timeout: 0 });
  assert.equal(zoomed.found(), true);
  assert.ok(inside(centre(zoomed.boundingBox!), truthOf('the bell icon')[0]));
  assert.match(zoomed.reason!, /zoomed into 410x230/);
  const [rough, fine] = server.requests.slice(mark);
  assert.deepEqual(rough.images[0], { width: 1366, height: 768 });
  assert.deepEqual(fine.images[0], { width: 820, height: 460 }, 'phase 2 sees the 30% crop, enlarged');

  mark = server.requests.length;
  const verified = await client.find('the magnifier icon', { verify: true, timeout: 0 });
  assert.equal(verified.found(), true);
  assert.match(verified.reason!, /verified: the vision model says it matches/);
  const check = server.requests.slice(mark).find((r) => r.task === 'verify')!;
  assert.equal(check.temperature, 0);

  server.fail('wrong-box');
  const wrong = await client.find('the bell icon', { verify: true, timeout: 0, cacheThreshold: -1 });
  assert.equal(wrong.found(), false);
  assert.match(wrong.reason!, /verify rejected the match: the vision model says it does not match/);
  await client.disconnect();
});

test('failures are retried with backoff and then named; not found keeps the model\'s reason', async () => {
  server.play({ family: 'norm-1000', model: 'model-norm' });
  const client = await connectWith(server.env({ GLANCE_AI_TIMEOUT: '1500', GLANCE_AI_RETRIES: '3' }), { cacheKey: 'retries' });
  const usage = usageOf(client);
  server.fail(500, 429, 'malformed');
  assert.equal((await client.find('the gear icon', { timeout: 0 })).found(), true);
  assert.equal(usage.at(-1)!.attempts, 4, '500, 429 and an unreadable answer, then the answer');

  server.fail('timeout');
  const started = Date.now();
  assert.equal((await client.find('the bell icon', { timeout: 0 })).found(), true);
  assert.equal(usage.at(-1)!.attempts, 2);
  assert.ok(Date.now() - started < 6000, 'a call that hangs is cut at GLANCE_AI_TIMEOUT');

  server.fail(500, 500, 500, 500);
  await assert.rejects(client.find('the blue square', { timeout: 0 }), (e: Error) => e instanceof VisionModelError && !e.fatal && /failed 4 time\(s\).*HTTP 500.*GLANCE_AI_RETRIES/s.test(e.message));

  // The call's ai settings reach the request; top.k as an extra body field.
  assert.equal((await client.find('the picture of a mountain', { timeout: 0, ai: { top: { k: 1, p: 0.5 } } })).found(), true);
  const sampled = server.requests.at(-1)!;
  assert.deepEqual([sampled.temperature, sampled.top_p, sampled.top_k], [0, 0.5, 1], 'grounding defaults to temperature 0');

  // The client's own ai option reaches every request; a call's ai overrides it where it says.
  const tuned = await connectWith(server.env(), { cacheKey: 'client-ai', ai: { temperature: 0.3, top: { p: 0.8, k: 5 } } });
  assert.equal((await tuned.find('the picture of a mountain', { timeout: 0 })).found(), true);
  let sent = server.requests.at(-1)!;
  assert.deepEqual([sent.temperature, sent.top_p, sent.top_k], [0.3, 0.8, 5], 'the client option');
  assert.equal((await tuned.find('the gear icon', { timeout: 0, ai: { top: { k: 2 } } })).found(), true);
  sent = server.requests.at(-1)!;
  assert.deepEqual([sent.temperature, sent.top_p, sent.top_k], [0.3, 0.8, 2], 'the call overrides top.k alone');
  await tuned.disconnect();

  server.fail('not-found');
  const missing = await client.find('the magnifier icon', { timeout: 0, cacheThreshold: -1 });
  assert.equal(missing.found(), false);
  assert.match(JSON.parse(JSON.stringify(missing)).aiResponse, /no such element/i, 'the model\'s answer is kept in aiResponse');
  assert.match(missing.reason!, /vision model said: There is no such element/);
  await client.disconnect();
});

test('a bad key or model name stops at once, and the key shows nowhere', async () => {
  const key = 'sk-glance-test-0123456789abcdef';
  server.play({ family: 'pixels', model: 'model-keyed', apiKey: key });
  try {
    const seen: string[] = [];
    const watch = (client: Client) => {
      for (const name of ['command:start', 'command:success', 'command:error', 'log:info', 'ai:usage']) {
        client.getEmitter().on(name, (payload: unknown) => seen.push(JSON.stringify(payload, (_k, v) => (v instanceof Error ? v.message : v))));
      }
    };
    const wrongKey = 'sk-wrong-key-9876543210fedcba';
    const bad = await connectWith(server.env({ GLANCE_AI_API_KEY: wrongKey }), { cacheKey: 'keys' });
    watch(bad);
    let mark = server.posts;
    const refused = await bad.find('the gear icon', { timeout: 0 }).then(() => null, (e: Error) => e);
    assert.ok(refused instanceof VisionModelError && refused.fatal, `a fatal model error, got ${refused}`);
    assert.match(refused.message, /refused the API key \(HTTP 401.*GLANCE_AI_API_KEY/s);
    assert.equal(server.posts - mark, 1, 'no retry for a bad key');
    for (const text of [refused.message, refused.stack ?? '', ...seen]) {
      assert.ok(!text.includes(wrongKey) && !text.includes(wrongKey.slice(0, 6)) && !text.includes(wrongKey.slice(-4)), `no part of the key in: ${text}`);
    }

    const unknown = await connectWith(server.env({ GLANCE_AI_MODEL: 'no-such-model' }), { cacheKey: 'keys' });
    mark = server.posts;
    await assert.rejects(unknown.find('the gear icon', { timeout: 0 }), (e: Error) => e instanceof VisionModelError && e.fatal && /'no-such-model'.*does not exist.*GLANCE_AI_MODEL/s.test(e.message));
    assert.equal(server.posts - mark, 1, 'no retry for an unknown model');

    const good = await connectWith(server.env(), { cacheKey: 'keys' });
    watch(good);
    assert.equal((await good.find('the gear icon', { timeout: 0 })).found(), true);
    assert.equal(server.requests.at(-1)!.authorization, `Bearer ${key}`, 'the key reached the server');
    assert.ok(seen.some((s) => s.includes('ai:usage') || s.includes('promptTokens')), 'the events were watched');
    for (const text of seen) assert.ok(!text.includes(key) && !text.includes(key.slice(0, 6)), `no key in: ${text}`);
  } finally {
    server.play({ apiKey: undefined });
  }
});

test('auto: the tree and OCR answer what they can; the model answers icons and what they find nothing for, and the evidence overrules it', async () => {
  server.play({ family: 'qwen2.5-vl', model: 'model-auto' });
  const client = await connectWith(server.env(), { cacheKey: 'hybrid' });
  const usage = usageOf(client);
  assert.match(client.getLocator(), /^auto \(a11y, ocr, vision \(model-auto, qwen2\.5-vl\)\)$/);

  const exported = await client.find("the 'Export' button", { timeout: 0 });
  assert.ok(exported.engine === 'a11y' || exported.engine === 'ocr', `answered by ${exported.engine}`);
  assert.equal(usage.length, 0, 'no model call for what the tree or OCR answer');

  assert.equal((await client.find('the gear icon', { timeout: 0 })).engine, 'vision');
  const layers = await client.find("the 'Layers' label", { timeout: 0 });
  assert.equal(layers.engine, 'vision', 'vertical text on a canvas: neither the tree nor OCR finds it');
  assert.ok(inside(centre(layers.boundingBox!), truthOf("the 'Layers' label")[0]));
  assert.deepEqual(usage.map((u) => [u.command, u.description, u.purpose]), [['find', 'the gear icon', 'locate'], ['find', "the 'Layers' label", 'locate']]);
  assert.ok(usage.every((u) => u.promptTokens > 0 && u.totalTokens > u.promptTokens && u.latencyMs > 0 && u.model === 'model-auto'));

  // A model that points at the 'Export' button for 'Layers': the tree (or OCR) reads 'Export' there, so the box is dropped.
  await server.show({ screen: await client.captureScreen(), targets: { ...targets, "the 'Layers' label": truthOf("the 'Export' button") }, facts: FACTS });
  try {
    const misled = await client.find("the 'Layers' label", { timeout: 0, cacheThreshold: -1 });
    assert.equal(misled.found(), false);
    assert.match(misled.reason!, /the vision model pointed at .* where (a11y|ocr) reads 'Export', not 'Layers'/);
  } finally {
    await server.show({ screen: await client.captureScreen(), targets, facts: FACTS });
  }
  await client.disconnect();
});

test('assert: true, false with the reason, sampling in the request, cached on its screen; without a model only quoted text', async () => {
  server.play({ family: 'pixels', model: 'model-assert' });
  const client = await connectWith(server.env(), { cacheKey: 'asserts' });
  let mark = server.requests.length;
  assert.equal(await client.assert('the cart shows 2 items'), true);
  assert.equal(server.requests.at(-1)!.task, 'assert');
  assert.equal(server.requests.at(-1)!.temperature, undefined, "assert leaves the temperature to the model's default");

  const failed = await client.assert('the banner is green').then(() => null, (e: Error) => e);
  assert.ok(failed instanceof AssertionError);
  assert.equal(failed.reason, 'the banner is red');
  assert.match(failed.message, /the banner is green.*the banner is red/);

  assert.equal(await client.assert('the picture shows a mountain', { ai: { temperature: 0.2, top: { p: 0.9, k: 5 } } }), true);
  const sampled = server.requests.at(-1)!;
  assert.deepEqual([sampled.temperature, sampled.top_p, sampled.top_k], [0.2, 0.9, 5]);

  assert.equal(await client.assert('"Cart (2)" is shown'), true);
  assert.equal(server.requests.length - mark, 3, 'quoted text alone is read by OCR and the tree, not the model');

  await client.commitCache();
  mark = server.requests.length;
  assert.equal(await client.assert('the cart shows 2 items'), true);
  assert.equal(server.requests.length, mark, 'a passed assertion on the same screen needs no call');
  assert.equal(await client.assert('the cart shows 2 items', { threshold: -1 }), true);
  assert.equal(server.requests.length, mark + 1, 'threshold -1 leaves the cache out');
  await assert.rejects(client.assert('the cart shows 2 items', { threshold: 2 }), /threshold/);
  await client.disconnect();

  const plain = await connectWith({}, { cacheKey: 'asserts-no-model' });
  assert.match(plain.getLocator(), /^auto \(a11y, ocr\)$/);
  assert.equal(await plain.assert('"Cart (2)" is shown'), true);
  await assert.rejects(plain.assert('"Refund issued" is shown'), (e: Error) => e instanceof AssertionError && /does not show 'Refund issued'/.test(e.message));
  await assert.rejects(plain.assert('the cart shows 2 items'), (e: Error) => e instanceof VisionModelRequiredError && /needs a vision model.*GLANCE_AI_MODEL/s.test(e.message));
  const icon = await plain.find('the gear icon', { timeout: 0 });
  assert.equal(icon.found(), false);
  assert.match(icon.reason!, /need a vision model: set GLANCE_AI_MODEL/);
  await plain.disconnect();
});

test('a vision find that passed is cached: a rerun on the same screen makes no model call', async () => {
  server.play({ family: 'ui-tars-1.0', model: 'model-rerun' });
  const first = await connectWith(server.env(), { cacheKey: 'rerun' });
  const cold = usageOf(first);
  assert.equal((await first.find('the red banner')).found(), true);
  assert.equal(cold.length, 1);
  await first.disconnect(); // a passing run commits its finds

  const second = await connectWith(server.env(), { cacheKey: 'rerun' });
  const warm = usageOf(second);
  const again = await second.find('the red banner');
  assert.equal(again.found(), true);
  assert.equal(again.cache.hit, true);
  assert.equal(warm.length, 0, 'no model call on the warm rerun');
  await second.disconnect();
});
