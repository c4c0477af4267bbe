import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { buildSet } from '../../bench/locate/real/set';
import { loadSources } from '../../bench/locate/real/source-list';
import { newLocateRunner, scoreRealCases } from '../../bench/locate/real/bench';
import { summarise } from '../../bench/locate/real/score';
import type { RealSet } from '../../bench/locate/real/set';
import sharp from 'sharp';
import { testFolder } from '../helpers/test-root';

/**
 * A small sample of the real-UI set, built end to end: two small packages
 * packed from npm, one page each captured in Chromium, and a zenity dialog
 * captured in a sandbox; cases generated from the DOM and the accessibility
 * tree, and a few of them located through OfflineLocator in the bench's
 * bounded child process. It checks the set and the scorer work; accuracy is
 * the bench's business (`npm run bench -- locate-real`).
 */
let dir: string;
let set: RealSet;

before(async () => {
  const all = loadSources();
  const sample = all.web.filter((s) => s.name === '98.css' || s.name === 'startbootstrap-resume').map((s) => ({ ...s, pages: s.pages.slice(0, 1) }));
  const desktop = all.desktop.filter((s) => s.app === 'zenity' && s.label === 'forms');
  assert.equal(sample.length + desktop.length, 3);
  dir = testFolder('locate-real-');
  set = await buildSet({ sources: { ...all, resolutions: [[1366, 768]], web: sample, desktop }, dir });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the real-UI set builds, its boxes are sane, and its cases score', { timeout: 120_000 }, async () => {
  assert.equal(set.screens.length, 3);
  for (const screen of set.screens) {
    assert.ok(fs.statSync(path.join(dir, screen.png)).size > 10_000, `${screen.id} has a picture`);
    assert.match(screen.pageSha, /^[0-9a-f]{64}$/);
  }
  assert.ok(set.cases.length >= 20, `${set.cases.length} cases`);
  assert.equal(new Set(set.cases.map((c) => c.id)).size, set.cases.length);
  for (const c of set.cases) {
    assert.ok(c.description.trim(), c.id);
    assert.equal(c.boxes.length === 0, c.category === 'negative', c.id);
    for (const b of c.boxes) {
      assert.ok(b.width >= 4 && b.height >= 4 && b.x >= 0 && b.y >= 0 && b.x + b.width <= 1366 && b.y + b.height <= 768, `${c.id}: ${JSON.stringify(b)}`);
    }
  }
  const categories = new Set(set.cases.map((c) => c.category));
  assert.ok(categories.has('text') && categories.has('negative'));

  const picked = set.screens.flatMap((s) => {
    const mine = set.cases.filter((c) => c.screen === s.id);
    return [mine.find((c) => c.category === 'text')!, mine.find((c) => c.category === 'negative')!];
  });
  const runner = newLocateRunner();
  try {
    const outcomes = await scoreRealCases({ ...set, screens: set.screens.map((s) => ({ ...s, png: path.join(dir, s.png) })) }, picked, runner);
    assert.equal(outcomes.length, picked.length);
    assert.ok(outcomes.every((o) => !o.error), outcomes.map((o) => o.got).join('; '));
    const summary = summarise(outcomes);
    assert.equal(Object.values(summary.byPart).reduce((n, p) => n + p.all.cases, 0), picked.length);
  } finally {
    await runner.stop();
  }
});

/** Screens no UI looks like, drawn here: nothing, noise, 4K, a few pixels, text everywhere, one huge button. */
async function generatedScreens(into: string): Promise<string[]> {
  const svg = (width: number, height: number, body: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${body}</svg>`);
  const lines = (count: number, size: number, width: number) => Array.from({ length: count }, (_, i) => `<text x="4" y="${(i + 1) * (size + 2)}" font-family="DejaVu Sans" font-size="${size}">${`Row ${i} Edit Delete Save Cancel OK `.repeat(Math.ceil(width / (size * 18)))}</text>`).join('');
  const noise = Buffer.alloc(1366 * 768 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  const screens: [string, ReturnType<typeof sharp>][] = [
    ['blank', sharp({ create: { width: 1366, height: 768, channels: 3, background: '#ffffff' } })],
    ['black', sharp({ create: { width: 1366, height: 768, channels: 3, background: '#000000' } })],
    ['noise', sharp(noise, { raw: { width: 1366, height: 768, channels: 3 } })],
    ['one-pixel', sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } })],
    ['tiny', sharp(svg(12, 9, '<rect x="2" y="2" width="6" height="4" fill="#000"/>'))],
    ['full-of-text', sharp(svg(1366, 768, lines(70, 9, 1366)))],
    ['4k', sharp(svg(3840, 2160, lines(60, 28, 3840)))],
    ['huge-button', sharp(svg(1366, 768, '<rect x="60" y="60" width="1240" height="640" rx="40" fill="#1e6fd9"/><text x="420" y="520" font-family="DejaVu Sans" font-size="380" fill="#fff">OK</text>'))],
  ];
  return Promise.all(screens.map(async ([name, image]) => {
    const file = path.join(into, `${name}.png`);
    await image.png().toFile(file);
    return file;
  }));
}

/** Descriptions tried on each screen of the fuzz; one on a screen full of text, where a find reads up to its bound. */
const PER_SCREEN = 2;
const PER_DENSE_SCREEN = 1;
const DENSE = /(full-of-text|4k)\.png$/;

/** The refusals Glance words itself, for a description it cannot answer offline; any other error is a defect. */
const REFUSALS = /^(LocateRefusal|InvalidOptionError|VisionModelRequiredError): /;

/** A find that does not wait reads for RETRY_CEILING_MS (5 s), then finishes the chunk of text it is reading. */
const WORK_BOUND_MS = 12_000;

test('fuzz: on generated screens, every locate answers or refuses within its bound', { timeout: 600_000 }, async () => {
  // The real screens' cases are located by the test above; here, screens no UI looks like.
  const screens = await generatedScreens(dir);
  const descriptions = [
    "'OK'", "the second 'Edit' button", 'Submit button', 'the Email field', "the 'Delete' icon next to 'Alice'",
    "the cell in the 'City' column in the row of 'Ada'", `'${'Save '.repeat(200)}'`, "the tenth 'Row'", "the last 'Delete'",
    "'🙂 ✓ ⌘'", 'the', 'Row 3 Edit Delete Save Cancel OK Row 4 Edit Delete Save', 'the red round icon above the blue one',
  ];
  // Each screen gets a window of the descriptions that moves on from screen to screen: every description
  // meets at least one screen, at a seventh of the cost of every pair.
  let next = 0;
  const pairs = screens.flatMap((png) => Array.from({ length: DENSE.test(png) ? PER_DENSE_SCREEN : PER_SCREEN }, () => ({ png, description: descriptions[next++ % descriptions.length] })));
  assert.ok(pairs.length >= descriptions.length, 'every description meets a screen');
  const runner = newLocateRunner();
  const failures: string[] = [];
  let answered = 0;
  try {
    for (const { png, description } of pairs) {
      const result = await runner.run({ png, description });
      // An answer, found or not, or a refusal Glance words itself; never a crash of the code, a dead process or an overrun.
      if (result.ok) {
        answered++;
        if (result.value.ms > WORK_BOUND_MS) failures.push(`${path.basename(png)} / ${description.slice(0, 40)}: took ${Math.round(result.value.ms)} ms`);
      } else if (!REFUSALS.test(result.error)) failures.push(`${path.basename(png)} / ${description.slice(0, 40)}: ${result.error}`);
    }
  } finally {
    await runner.stop();
  }
  assert.deepEqual(failures, []);
  assert.equal(runner.restarts, 0);
  assert.ok(answered >= pairs.length - screens.length, `${answered} answers of ${pairs.length}`);
});
