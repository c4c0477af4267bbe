import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { OcrEngine } from '../../lib/locate/ocr/engine';
import { parseQuery } from '../../lib/locate/query';
import { locateMisses, svgScreen } from '../helpers/screens';

/**
 * Badges and lone symbols the first read passes over or takes for part of
 * the words beside them, on a screen drawn with real fonts: a count on a red
 * disc right after a tab's label, where a pager below shows the same digit in
 * a box, and a small button showing nothing but '+'.
 */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="260" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="14">
  <rect width="700" height="260" fill="#ffffff"/>
  <text x="30" y="50" fill="#1f2d3d">Overview</text>
  <text x="130" y="50" fill="#0d6e5f">Activity</text>
  <text x="220" y="50" fill="#0d6e5f">Messages</text>
  <circle cx="307" cy="45" r="9.5" fill="#dc3545"/><text x="303" y="50" font-size="11" fill="#ffffff">3</text>
  <text x="340" y="50" fill="#6c757d">Billing</text>
  <rect x="30" y="60" width="640" height="1" fill="#dee2e6"/>
  ${[1, 2, 3].map((n, i) => `<rect x="${400 + i * 34}" y="180" width="34" height="34" fill="#ffffff" stroke="#dee2e6"/><text x="${413 + i * 34}" y="202" fill="#0d6efd">${n}</text>`).join('')}
  <rect x="30" y="110" width="120" height="38" rx="4" fill="#0d6efd"/><text x="42" y="134" fill="#ffffff">Save changes</text>
  <rect x="160" y="110" width="32" height="38" rx="4" fill="#71dd37"/><text x="172" y="133" font-size="11" fill="#ffffff">+</text>
</svg>`;

const engine = new OcrEngine();
after(() => engine.stop());

test("a tab's count badge beats the pager's same digit, and a small button's lone '+' is found", { timeout: 120_000 }, async () => {
  const expected: [string, { x: number; y: number; width: number; height: number }][] = [
    ["the '3' badge", { x: 297, y: 35, width: 20, height: 20 }],
    ["the '+' button", { x: 160, y: 110, width: 32, height: 38 }],
  ];
  assert.deepEqual(await locateMisses(engine, await svgScreen(SVG), expected), []);
});

/** Buttons holding a count: a snug button labelled 'Alerts 3' is no badge face for its '3'; the white pill inside the button below is. */
const COUNTS_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="500" height="200" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="14" font-weight="bold">
  <rect width="500" height="200" fill="#ffffff"/>
  <rect x="30" y="30" width="104" height="38" rx="4" fill="#198754"/><text x="44" y="54" fill="#ffffff">Alerts 3</text>
  <rect x="30" y="110" width="110" height="38" rx="4" fill="#6c757d"/><text x="44" y="134" fill="#ffffff">Alerts 1</text>
  <rect x="110" y="119" width="20" height="20" rx="6" fill="#ffffff"/><text x="116" y="133" font-size="11" fill="#212529">3</text>
</svg>`;

test("the last word of a button labelled with a count is no badge; a count in a pill inside a button is", { timeout: 120_000 }, async () => {
  const screen = await svgScreen(COUNTS_SVG);
  const found = await engine.locate({ screen, sandbox: null, deadline: Date.now() + 20_000, ai: {} }, parseQuery("the '3' badge"), { all: true });
  const onButton = found.find((c) => c.box.y < 70);
  const inPill = found.find((c) => c.box.y > 110);
  assert.ok(onButton && inPill, `both copies of '3' are read: ${found.map((c) => c.reason).join('; ')}`);
  assert.match(onButton.reason, /no badge face/);
  assert.match(inPill.reason, /the badge '3'/);
  assert.ok(inPill.confidence > onButton.confidence);
});

/**
 * Counts on the corners of icons and words, as navbars show them: the disc
 * overlaps the bell, the envelope or the word's last letter, so its rim is no
 * loop of its own.
 */
const BELL = 'M12 22a2 2 0 0 0 2-2h-4a2 2 0 0 0 2 2zm6-6V11c0-3.07-1.64-5.64-4.5-6.32V4a1.5 1.5 0 0 0-3 0v.68C7.63 5.36 6 7.92 6 11v5l-2 2v1h16v-1l-2-2z';
const ENVELOPE = 'M20 4H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2zm0 4-8 5-8-5V6l8 5 8-5v2z';
const corner = (x: number, y: number, fill: string, count: string) =>
  `<rect x="${x}" y="${y}" width="${count.length > 1 ? 22 : 16}" height="16" rx="8" fill="${fill}"/><text x="${x + 4}" y="${y + 12}" font-size="10" font-weight="bold" fill="#ffffff">${count}</text>`;
const CORNERS_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="120" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="14">
  <rect width="640" height="60" fill="#1a2035"/><rect y="60" width="640" height="60" fill="#ffffff"/>
  <path transform="translate(40 20)" fill="#ffffff" d="${BELL}"/>${corner(52, 12, '#f5365c', '7')}
  <path transform="translate(120 20)" fill="#ffffff" d="${ENVELOPE}"/>${corner(132, 12, '#2dce89', '24')}
  <text x="200" y="40" fill="#ffffff">Orders</text>${corner(246, 18, '#fb6340', '5')}
  <path transform="translate(40 80)" fill="#67748e" d="${BELL}"/>${corner(52, 72, '#11cdef', '38')}
  <text x="120" y="100" fill="#344767">Inbox</text>${corner(152, 78, '#e91e63', '9')}
</svg>`;

test('a count on the corner of an icon or a word is found on its disc', { timeout: 120_000 }, async () => {
  const expected: [string, { x: number; y: number; width: number; height: number }][] = [
    ["the '7' badge", { x: 52, y: 12, width: 16, height: 16 }],
    ["the '24' badge", { x: 132, y: 12, width: 22, height: 16 }],
    ["the '5' badge", { x: 246, y: 18, width: 16, height: 16 }],
    ["the '38' badge", { x: 52, y: 72, width: 22, height: 16 }],
    ["the '9' badge", { x: 152, y: 78, width: 16, height: 16 }],
  ];
  assert.deepEqual(await locateMisses(engine, await svgScreen(CORNERS_SVG), expected), []);
});
