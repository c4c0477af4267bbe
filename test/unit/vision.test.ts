import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { FAMILIES, FamilyName, guessFamily, resolveVisionModel } from '../../lib/config/vision';
import { FAMILY_ADAPTERS } from '../../lib/locate/vision/families';
import { redactKey } from '../../lib/locate/vision/client';
import { readJudgement, readName } from '../../lib/locate/vision/prompts';
import { OfflineLocator } from '../../lib/service/offline';
import { onlyClaimsVisibleText } from '../../lib/service/statement';
import { mergeAi } from '../../lib/config/options';
import { addUsage, noUsage, sumUsage, usageText } from '../../lib/report/model-usage';
import type { Screen } from '../../lib/types/screen';
import { REPO_ROOT } from '../helpers/glance';
import { VisionServer } from '../support/vision-server';

const SENT = { width: 1366, height: 768 };

test('each family reads its answers, tolerantly, into fractions of the image sent', () => {
  const near = (a: number, b: number) => Math.abs(a - b) < 0.002;
  const cases: [FamilyName, string, [number, number, number, number]][] = [
    ['pixels', '```json\n{"found": true, "boxes": [[136.6, 76.8, 273.2, 153.6]]}\n```', [0.1, 0.1, 0.2, 0.2]],
    ['pixels', 'The button is at [136.6, 76.8, 273.2, 153.6] in the image.', [0.1, 0.1, 0.2, 0.2]],
    ['pixels', "{'x': 136.6, 'y': 76.8, 'width': 136.6, 'height': 76.8,}", [0.1, 0.1, 0.2, 0.2]],
    // Qwen2.5-VL answers in its resized grid: 1372x756 for a 1366x768 image.
    ['qwen2.5-vl', '[{"bbox_2d": [137.2, 75.6, 274.4, 151.2], "label": "x"}]', [0.1, 0.1, 0.2, 0.2]],
    ['norm-1000', 'Found it: <|begin_of_box|>[100, 100, 200, 200]<|end_of_box|>', [0.1, 0.1, 0.2, 0.2]],
    ['norm-1000', '<bbox>100 100 200 200</bbox>', [0.1, 0.1, 0.2, 0.2]],
    ['gemini', '```json\n[{"box_2d": [100, 300, 200, 400], "label": "x"}]\n```', [0.3, 0.1, 0.4, 0.2]],
    ['ui-tars-1.0', "Thought: there it is.\nAction: click(start_box='(150,250)')", [0.15, 0.25, 0.15, 0.25]],
    // UI-TARS 1.5 points are pixels of its resized image (1372x756 here).
    ['ui-tars-1.5', "Action: click(start_box='<|box_start|>(686,378)<|box_end|>')", [0.5, 0.5, 0.5, 0.5]],
  ];
  for (const [family, answer, [x1, y1, x2, y2]] of cases) {
    const [box] = FAMILY_ADAPTERS[family].read(answer, SENT).boxes;
    assert.ok(box && near(box.x1, x1) && near(box.y1, y1) && near(box.x2, x2) && near(box.y2, y2), `${family}: ${answer} → ${JSON.stringify(box)}`);
  }
  // A point where a box was asked for, and an explicit "not found" with its reason.
  assert.equal(FAMILY_ADAPTERS.pixels.read('{"point": [683, 384]}', SENT).boxes[0].point, true);
  assert.deepEqual(FAMILY_ADAPTERS.pixels.read('{"found": false, "reason": "no gear on this screen"}', SENT), { boxes: [], notFound: 'no gear on this screen' });
  assert.match(FAMILY_ADAPTERS['ui-tars-1.0'].read("Action: finished(content='there is no gear')", SENT).notFound!, /no gear/);
  assert.match(FAMILY_ADAPTERS.gemini.read('```json\n[]\n```\nThere is no red banner.', SENT).notFound!, /no red banner/);
  // Neither coordinates nor "not found": an answer to retry.
  assert.deepEqual(FAMILY_ADAPTERS['norm-1000'].read('Let me look at the screenshot.', SENT), { boxes: [], notFound: null });
});

test('Qwen2.5-VL gets an image its processor leaves unchanged; other families the screen as it is', () => {
  assert.deepEqual(FAMILY_ADAPTERS['qwen2.5-vl'].sendSize(SENT), { width: 1316, height: 728 });
  assert.deepEqual(FAMILY_ADAPTERS.gemini.sendSize(SENT), SENT);
  assert.deepEqual(FAMILY_ADAPTERS.pixels.sendSize({ width: 3840, height: 2160 }), { width: 1365, height: 768 });
});

test('the family is guessed from the model name, and set by GLANCE_AI_FAMILY', () => {
  assert.equal(guessFamily('Qwen/Qwen2.5-VL-72B-Instruct'), 'qwen2.5-vl');
  assert.equal(guessFamily('qwen2.5vl:7b'), 'qwen2.5-vl');
  assert.equal(guessFamily('Qwen/Qwen3-VL-8B-Instruct'), 'norm-1000');
  assert.equal(guessFamily('zai-org/GLM-4.5V'), 'norm-1000');
  assert.equal(guessFamily('gemini-2.5-pro'), 'gemini');
  assert.equal(guessFamily('ByteDance-Seed/UI-TARS-1.5-7B'), 'ui-tars-1.5');
  assert.equal(guessFamily('ui-tars-72b-dpo'), 'ui-tars-1.0');
  assert.equal(guessFamily('my-company-model'), 'pixels');
  const settings = resolveVisionModel({ GLANCE_AI_MODEL: 'gemini-2.5-pro', GLANCE_AI_FAMILY: 'pixels', OPENAI_API_KEY: 'sk-fallback', OPENAI_BASE_URL: 'http://h:1/v1/' })!;
  assert.deepEqual([settings.family, settings.familyGuessed, settings.apiKey, settings.baseURL], ['pixels', false, 'sk-fallback', 'http://h:1/v1']);
  assert.equal(resolveVisionModel({}), null);
});

test('a key a server echoes is taken out, whole or by its ends', () => {
  const key = 'sk-proj-abcdef0123456789wxyz';
  assert.equal(redactKey(`bad key ${key}.`, key), 'bad key ****.');
  assert.equal(redactKey('Incorrect API key provided: sk-pro************wxyz. See docs.', key), 'Incorrect API key provided: **** See docs.');
  assert.equal(redactKey('nothing secret here', key), 'nothing secret here');
});

test('verify and assert answers are read as yes or no with a reason', () => {
  assert.deepEqual(readJudgement('```json\n{"match": false, "reason": "it is the bell"}\n```'), { yes: false, reason: 'it is the bell' });
  assert.deepEqual(readJudgement('{"verdict": "true", "reason": "Cart (2)"}'), { yes: true, reason: 'Cart (2)' });
  assert.deepEqual(readJudgement('Yes. The cart shows two items.'), { yes: true, reason: 'The cart shows two items.' });
  assert.equal(readJudgement('I am not sure what you mean.'), null);
});

test("the recorder's naming answer is read as a few words without 'the'; a sentence or nothing is no name", () => {
  assert.equal(readName('{"name": "the gear icon"}'), 'gear icon');
  assert.equal(readName('```json\n{"name": "Red trash can icon"}\n```'), 'red trash can icon');
  assert.equal(readName('"profile picture".'), 'profile picture');
  assert.equal(readName('The element marked is probably some kind of settings control for the page'), null);
  assert.equal(readName('{"name": "the"}'), null);
  assert.equal(readName('{"name": "icon <script>"}'), null);
});

test('a statement that only claims quoted text is shown needs no model', () => {
  for (const s of ['"Thank you" is shown', "the page shows 'Add user'", 'the header says "Signed in as Ada Lovelace"', "I see 'Saved' and 'Synced'"]) assert.equal(onlyClaimsVisibleText(s), true, s);
  for (const s of ['the cart shows 2 items', "the 'Save' button is green", "'Saved' appears below the form", 'the page looks tidy']) assert.equal(onlyClaimsVisibleText(s), false, s);
});

test("a call's ai settings override the client's field by field", () => {
  assert.deepEqual(mergeAi({ temperature: 0.5, top: { p: 0.9 } }, { top: { k: 3 } }), { temperature: 0.5, top: { p: 0.9, k: 3 } });
  assert.deepEqual(mergeAi({}, undefined), {});
});

test('the report sums the usage lines its scenarios attached', () => {
  const totals = noUsage();
  addUsage(totals, { promptTokens: 1000, completionTokens: 20, totalTokens: 1020, latencyMs: 812.4 });
  addUsage(totals, { promptTokens: 900, completionTokens: 10, totalTokens: 910, latencyMs: 100 });
  const line = Buffer.from(usageText(totals)).toString('base64');
  const scenario = { after: [{ embeddings: [{ mime_type: 'text/plain', data: line }] }] };
  assert.deepEqual(sumUsage([{ elements: [scenario, scenario] } as never]), { calls: 4, promptTokens: 3800, completionTokens: 60, totalTokens: 3860, latencyMs: 1824 });
});

// The documentation's example configurations (docs/engines.md), one per family, each run against the test model server.
const server = new VisionServer({ family: 'pixels' });
const TARGET = { x: 600, y: 300, width: 80, height: 40 };

before(async () => {
  await server.start();
  await server.show({ screen: screenWithButton(), targets: { 'the green button': [TARGET] } });
});
after(() => server.close());

test("the documentation's example configuration of every family works as written", async () => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'engines.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n# family: ([\w.-]+)[^\n]*\n([\s\S]*?)```/g)];
  assert.deepEqual([...new Set(blocks.map((b) => b[1]))].sort(), [...FAMILIES].sort(), 'one example per family');
  for (const [, family, body] of blocks) {
    const env = Object.fromEntries(body.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
    const settings = resolveVisionModel(env)!;
    assert.equal(settings.family, family, `${env.GLANCE_AI_MODEL} is read as ${family}`);
    // The same settings, pointed at the test server, which plays that family and model.
    server.play({ family: family as FamilyName, model: settings.model, apiKey: settings.apiKey || undefined });
    const locator = new OfflineLocator('vision', { ...settings, baseURL: server.url });
    try {
      const { candidate } = await locator.locate(screenWithButton(), 'the green button');
      const cx = candidate!.box.x + candidate!.box.width / 2;
      const cy = candidate!.box.y + candidate!.box.height / 2;
      assert.ok(cx >= TARGET.x && cx < TARGET.x + TARGET.width && cy >= TARGET.y && cy < TARGET.y + TARGET.height, `${family} (${settings.model}): ${cx},${cy}`);
    } finally {
      await locator.stop();
    }
  }
});

/** A light screen with one green button and a few grey bars, so a crop can be told apart. */
function screenWithButton(): Screen {
  const width = 1366;
  const height = 768;
  const data = Buffer.alloc(width * height * 4, 240);
  const fill = (b: { x: number; y: number; width: number; height: number }, rgb: number[]) => {
    for (let y = b.y; y < b.y + b.height; y++) for (let x = b.x; x < b.x + b.width; x++) data.set([...rgb, 255], (y * width + x) * 4);
  };
  for (let i = 0; i < 12; i++) fill({ x: 40 + i * 110, y: 60 + (i % 5) * 120, width: 90, height: 18 }, [120, 120, 130]);
  fill(TARGET, [40, 160, 70]);
  return { width, height, data, format: 'rgba' };
}
