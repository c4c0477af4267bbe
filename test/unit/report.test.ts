import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import sharp from 'sharp';
import { writeHtmlReport } from '../../lib/report/html-report';
import { STEP_EVIDENCE, StepEvidence } from '../../lib/report/step-evidence';
import { testFolder } from '../helpers/test-root';

/** A screen of a made-up admin page: a bar, a table of text and a few buttons, different for every `n`. */
function screenSvg(n: number): string {
  const rows = Array.from({ length: 14 }, (_, i) => `<text x="60" y="${170 + i * 38}" font-size="18" font-family="sans-serif">Order ${n * 100 + i} · customer ${(n * 7 + i) % 53} · ${((n + i) * 13) % 97}.00 EUR · shipped</text>`).join('');
  const buttons = Array.from({ length: 4 }, (_, i) => `<rect x="${900 + i * 110}" y="${170 + ((n + i) % 10) * 38}" width="100" height="30" rx="4" fill="#2563eb"/><text x="${912 + i * 110}" y="${191 + ((n + i) % 10) * 38}" fill="#fff" font-size="15" font-family="sans-serif">Edit ${i}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1366" height="768"><rect width="1366" height="768" fill="#f4f5f7"/>
    <rect width="1366" height="64" fill="#1f2937"/><text x="24" y="42" fill="#fff" font-size="24" font-family="sans-serif">Dashboard ${n}</text>
    <rect x="40" y="120" width="1286" height="600" fill="#fff" stroke="#ddd"/>${rows}${buttons}</svg>`;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const evidence = (e: StepEvidence) => ({ mime_type: STEP_EVIDENCE, data: b64(JSON.stringify(e)) });

function folderSize(dir: string): number {
  return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? folderSize(full) : fs.statSync(full).size);
  }, 0);
}

test('a 100-step run\'s report stays under 20 MB: every screen stored once as a file, scaled, none inline', async () => {
  const root = testFolder('report-');
  try {
    const shots = path.join(root, 'screens');
    fs.mkdirSync(shots);
    // Full-size PNG screens, as a sandbox's screenshots are; 90 different ones for 100 steps.
    const pictures: string[] = [];
    for (let n = 0; n < 90; n++) {
      const file = path.join(shots, `${n}.png`);
      await sharp(Buffer.from(screenSvg(n))).png().toFile(file);
      pictures.push(file);
    }
    const steps = Array.from({ length: 100 }, (_, i) => ({
      keyword: 'When ', name: `I click the 'Edit ${i % 4}' button`, line: i + 3,
      result: { status: i === 99 ? 'failed' : 'passed', duration: 120_000_000, ...(i === 99 ? { error_message: "Element not found: 'Edit 9'." } : {}) },
      embeddings: [
        evidence({
          kind: 'find', description: `the 'Edit ${i % 4}' button`, found: i !== 99, engine: 'ocr', ms: 140,
          cache: { hit: i % 2 === 0, strategy: i % 2 === 0 ? 'pixel-diff' : 'miss', diffPercent: 0.1 }, confidence: 0.9,
          box: { x: 900, y: 170, width: 100, height: 30 }, reason: 'read the words', picture: pictures[i % 90],
        }),
        // A custom step's own base64 PNG: stored as a file like the rest.
        ...(i % 25 === 0 ? [{ mime_type: 'image/png', data: fs.readFileSync(pictures[i % 90]).toString('base64') }] : []),
      ],
    }));
    const feature = [{ id: 'admin', name: 'Admin', uri: 'features/admin.feature', keyword: 'Feature', line: 1, elements: [{ id: 'admin;orders', name: 'Orders', keyword: 'Scenario', type: 'scenario', line: 2, steps }] }];
    const jsonDir = path.join(root, 'json');
    fs.mkdirSync(jsonDir);
    fs.writeFileSync(path.join(jsonDir, 'cucumber.json'), JSON.stringify(feature));

    const out = path.join(root, 'report');
    const started = Date.now();
    await writeHtmlReport({ jsonDir, reportPath: out });
    const size = folderSize(out);
    assert.ok(size < 20 * 1024 * 1024, `the report is ${(size / 1024 / 1024).toFixed(1)} MB`);
    const media = fs.readdirSync(path.join(out, 'media'));
    assert.equal(media.length, 90, 'each screen is stored once, however many steps show it');
    for (const file of media.slice(0, 5)) assert.equal((await sharp(path.join(out, 'media', file)).metadata()).width, 1024, 'scaled for the page');
    const page = fs.readdirSync(path.join(out, 'features')).map((f) => fs.readFileSync(path.join(out, 'features', f), 'utf8')).join('');
    assert.doesNotMatch(page, /data:image\//, 'no picture inline');
    assert.equal(page.match(/class="glance-picture"/g)?.length, 104, 'every find step and attached picture is shown');
    assert.match(page, /<b>find<\/b> the &#39;Edit 1&#39; button: found by <b>ocr<\/b> in 140 ms · cache miss · confidence 0\.9 · box 900,170 100x30/);
    console.log(`# 100-step report: ${(size / 1024 / 1024).toFixed(1)} MB, written in ${Date.now() - started} ms`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
