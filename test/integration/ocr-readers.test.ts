import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { PaddleModels } from '../../lib/locate/ocr/paddle';
import { readAllLines } from '../../lib/locate/ocr/gaps';
import { OcrEngine } from '../../lib/locate/ocr/engine';
import { ocrReaderFromEnv } from '../../lib/config/locators';
import { parseQuery } from '../../lib/locate/query';
import type { EngineContext } from '../../lib/locate/engine';
import type { Screen } from '../../lib/types/screen';

/**
 * The text detector and recogniser that read what tesseract misses, on a
 * screen drawn with real fonts: white on a coloured button and a dark
 * sidebar, a badge's digits, a light placeholder in a pill-shaped input, a
 * spin button, a strip of tabs, an input joined to its button, and page
 * numbers and a symbol in rings.
 */
const PAGES = [1, 2, 3, 4, 5].map((n) => {
  const cx = 620 + (n - 1) * 42;
  return n === 3
    ? `<circle cx="${cx}" cy="440" r="18" fill="#5e72e4"/><text x="${cx - 4}" y="445" font-size="13" fill="#ffffff">${n}</text>`
    : `<circle cx="${cx}" cy="440" r="17.5" fill="#ffffff" stroke="#dee2e6"/><text x="${cx - 4}" y="445" font-size="13" fill="#8898aa">${n}</text>`;
}).join('');
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="480" font-family="DejaVu Sans, Liberation Sans, sans-serif">
  <rect width="900" height="480" fill="#f4f5f7"/>
  <rect width="200" height="420" fill="#172b4d"/>
  <text x="28" y="70" font-size="14" fill="#c8d0dc">Dashboard</text>
  <text x="28" y="120" font-size="14" fill="#c8d0dc">Tables</text>
  <text x="28" y="170" font-size="14" fill="#c8d0dc">Billing</text>
  <rect x="260" y="40" width="170" height="42" rx="8" fill="#5e72e4"/>
  <text x="288" y="66" font-size="14" font-weight="bold" fill="#ffffff">Free Download</text>
  <text x="470" y="66" font-size="15" fill="#32325d">Messages</text>
  <rect x="548" y="50" width="26" height="20" rx="10" fill="#f5365c"/>
  <text x="553" y="65" font-size="12" font-weight="bold" fill="#ffffff">12</text>
  <text x="260" y="150" font-size="13" fill="#9a9a9a">Postal Code</text>
  <rect x="260.5" y="162.5" width="260" height="36" rx="18" fill="#ffffff" stroke="#e3e3e3"/>
  <text x="280" y="186" font-size="13" fill="#c8c8c8">ZIP Code</text>
  <text x="260" y="260" font-size="16" fill="#32325d">Invoices for March</text>
  <text x="600" y="140" font-size="12" fill="#9a9a9a">About Me</text>
  <text x="616" y="176" font-size="13" fill="#333333">I paint landscapes on weekends.</text>
  <rect x="600" y="214" width="280" height="1" fill="#e3e3e3"/>
  <rect x="600.5" y="240.5" width="220" height="36" rx="18" fill="#ffffff" stroke="#e3e3e3"/>
  <text x="620" y="263" font-size="13" fill="#9a9a9a">Search...</text>
  <text x="28" y="220" font-size="11" letter-spacing="1.5" fill="#ffffff">USER PROFILE</text>
  <text x="820" y="30" font-size="12" fill="#555555">50</text>
  <rect x="640.5" y="40.5" width="120" height="34" rx="4" fill="#ffffff" stroke="#c0c0c0"/>
  <rect x="690" y="41" width="1" height="33" fill="#c0c0c0"/><rect x="725" y="41" width="1" height="33" fill="#c0c0c0"/>
  <text x="652" y="62" font-size="14" fill="#222222">50</text>
  <rect x="699" y="56" width="16" height="2" fill="#222222"/><rect x="734" y="56" width="16" height="2" fill="#222222"/><rect x="741" y="49" width="2" height="16" fill="#222222"/>
  <rect x="220.5" y="366.5" width="330" height="36" rx="6" fill="#ffffff" stroke="#d0d0d0"/>
  <text x="236" y="389" font-size="13" fill="#333333">Teams</text>
  <text x="336" y="389" font-size="13" fill="#333333">Profile</text>
  <text x="436" y="389" font-size="13" fill="#333333">Projects</text>
  <rect x="440.5" y="92.5" width="360" height="34" rx="4" fill="#ffffff" stroke="#d4d4d5"/>
  <text x="470" y="114" font-size="13" fill="#9a9a9a">Keywords</text>
  <rect x="700" y="93" width="100" height="33" fill="#e0e1e2"/>
  <text x="726" y="114" font-size="13" font-weight="bold" fill="#333333">Submit</text>
  ${PAGES}
  <circle cx="400" cy="440" r="15" fill="none" stroke="#f5593d" stroke-width="2"/><text x="394" y="447" font-size="18" fill="#f5593d">+</text>
  <text x="220" y="330" font-size="11" fill="#222222">An option button, also referred to as a radio button, represents a single choice within a limited set of mutually exclusive choices.</text>
</svg>`;

let screen: Screen;
const models = new PaddleModels();

before(async () => {
  const { data, info } = await sharp(Buffer.from(SVG)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  screen = { width: info.width, height: info.height, data, format: 'rgba' };
});

const contextFor = (shown: Screen): EngineContext => ({ screen: shown, sandbox: null, deadline: Date.now() + 20_000, ai: {} });
const inside = (box: { x: number; y: number; width: number; height: number }, x: number, y: number) =>
  x >= box.x && x <= box.x + box.width && y >= box.y && y <= box.y + box.height;
const centre = (box: { x: number; y: number; width: number; height: number }) => [box.x + box.width / 2, box.y + box.height / 2] as const;

test('the detector finds every line and the recogniser reads each, light on dark and light on white alike', { timeout: 60_000 }, async () => {
  const lines = (await models.detect(screen))!;
  const words = (await models.recognise(screen, lines)).flat();
  const read = words.map((w) => w.text).join(' ');
  // Words are cut at spaces the recogniser left out, and not between letter-spaced capitals.
  // A line too long for one read is read in pieces, cut between words.
  for (const expected of ['Dashboard', 'Tables', 'Billing', 'Free', 'Download', 'Messages', '12', 'Postal', 'ZIP', 'Invoices', 'for', 'March', 'USER', 'PROFILE', 'option', 'represents', 'mutually', 'exclusive']) {
    assert.ok(words.some((w) => w.text === expected), `'${expected}' in: ${read}`);
  }
  const free = words.find((w) => w.text === 'Free')!;
  assert.ok(inside({ x: 280, y: 48, width: 50, height: 26 }, ...centre(free)), `'Free' read at ${JSON.stringify(free)}`);
  const twelve = words.find((w) => w.text === '12')!;
  assert.ok(inside({ x: 548, y: 50, width: 26, height: 20 }, ...centre(twelve)), `'12' read at ${JSON.stringify(twelve)}`);
  for (const w of words) assert.ok(w.confidence >= 0 && w.confidence <= 100);
});

test('a read no one waits for any more (its screen has moved) runs no further model', { timeout: 60_000 }, async () => {
  const fresh = new PaddleModels(); // nothing read yet: no line is remembered
  try {
    const gone = new AbortController();
    gone.abort();
    assert.equal(await fresh.detect(screen, undefined, gone.signal), null, 'the detector does not run');
    const lines = (await fresh.detect(screen))!;
    const words = await fresh.recognise(screen, lines, Infinity, gone.signal);
    assert.equal(words.length, lines.length);
    assert.ok(words.every((w) => w.length === 0), 'no line is read');
    const read = await readAllLines(screen, fresh, Infinity, gone.signal);
    assert.deepEqual(read, { words: [], unread: 1 }, 'the screen counts as unread, so that a later look reads it afresh');
  } finally {
    await fresh.stop();
  }
});

test('stopping the models ends a long read after the model run in hand, not after the whole read', { timeout: 60_000 }, async () => {
  const fresh = new PaddleModels();
  const lines = (await fresh.detect(screen))!;
  assert.ok(lines.length > 10, `${lines.length} lines: several batches to read`);
  const reading = fresh.recognise(screen, lines);
  const stopped = fresh.stop();
  await assert.rejects(reading, /stopping/, 'the batches after the one in hand do not run');
  await stopped;
});

test('the default OCR engine finds what only the detector saw, and still refuses what is not there', { timeout: 120_000 }, async () => {
  const engine = new OcrEngine();
  assert.equal(engine.readerChoice, 'tesseract+paddle');
  try {
    const locate = async (description: string) => (await engine.locate(contextFor(screen), parseQuery(description)))[0] ?? null;
    const button = await locate("the 'Free Download' button");
    assert.ok(button && inside({ x: 260, y: 40, width: 170, height: 42 }, ...centre(button.box)), JSON.stringify(button));
    const field = await locate("the 'ZIP Code' input");
    assert.ok(field && inside({ x: 260, y: 162, width: 261, height: 37 }, ...centre(field.box)), JSON.stringify(field));
    const link = await locate('Tables sidebar link');
    assert.ok(link && inside({ x: 20, y: 100, width: 80, height: 26 }, ...centre(link.box)), JSON.stringify(link));
    // A text area drawn with only an underline: the value shown under its label; a placeholder's dots are no obstacle.
    const notes = await locate('the About Me text area');
    assert.ok(notes && inside({ x: 600, y: 150, width: 280, height: 64 }, ...centre(notes.box)), JSON.stringify(notes));
    const search = await locate('the Search box');
    assert.ok(search && inside({ x: 600, y: 240, width: 221, height: 37 }, ...centre(search.box)), JSON.stringify(search));
    const badge = await locate('the 12 badge');
    assert.ok(badge && inside({ x: 544, y: 46, width: 34, height: 28 }, ...centre(badge.box)), JSON.stringify(badge));
    // A spin button's compact entry is a field; the same number on the page is not. The badge's look into rings
    // (above) read the spin's faces too, and its value stays a value shown inside a field.
    const spin = await locate("the field showing '50'");
    assert.ok(spin && inside({ x: 640, y: 40, width: 50, height: 35 }, ...centre(spin.box)), JSON.stringify(spin));
    // A strip holding several labels is a bar of tabs, not the control of one of them.
    const tab = await locate("the 'Teams' tab");
    assert.ok(tab && inside({ x: 226, y: 366, width: 80, height: 37 }, ...centre(tab.box)), JSON.stringify(tab));
    // An input joined to its button: the button is the part of the joined face around its label.
    const submit = await locate("the 'Submit' button");
    assert.ok(submit && inside({ x: 700, y: 92, width: 100, height: 35 }, ...centre(submit.box)), JSON.stringify(submit));
    // Page numbers in faint rings and in a filled disc, and a lone symbol in a ring.
    for (const n of [4, 3, 1]) {
      const page = await locate(`the '${n}' link`);
      const cx = 620 + (n - 1) * 42;
      assert.ok(page && inside({ x: cx - 18, y: 422, width: 36, height: 36 }, ...centre(page.box)), `${n}: ${JSON.stringify(page)}`);
    }
    // Two '+' buttons, counted in reading order: the spin button's, then the one in a ring.
    const spinPlus = await locate("the first '+' button");
    assert.ok(spinPlus && inside({ x: 725, y: 40, width: 36, height: 36 }, ...centre(spinPlus.box)), JSON.stringify(spinPlus));
    const plus = await locate("the second '+' button");
    assert.ok(plus && inside({ x: 384, y: 424, width: 32, height: 32 }, ...centre(plus.box)), JSON.stringify(plus));
    assert.equal(await locate("the '6' link"), null);
    assert.equal(await locate("the 'Free Upload' button"), null);
    assert.equal(await locate("the 'Invoices for April' heading"), null);
  } finally {
    await engine.stop();
  }
});

test('GLANCE_OCR_READER names the readers, and a wrong one is refused with the choices', () => {
  assert.equal(ocrReaderFromEnv({}), 'tesseract+paddle');
  assert.equal(ocrReaderFromEnv({ GLANCE_OCR_READER: 'paddle' }), 'paddle');
  assert.throws(() => ocrReaderFromEnv({ GLANCE_OCR_READER: 'easyocr' }), /Invalid GLANCE_OCR_READER 'easyocr': use one of tesseract\+paddle, tesseract\+detector, tesseract, paddle/);
});
