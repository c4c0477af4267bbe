import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'path';
import type { Box } from '../../lib/locate/geometry';
import { OcrEngine } from '../../lib/locate/ocr/engine';
import { parseQuery } from '../../lib/locate/query';
import { loadScreen } from '../../lib/service/offline';
import { locateMisses, svgScreen } from '../helpers/screens';

/**
 * Fields by their labels, as forms lay them out and as QA engineers name
 * them, read by the OCR engine on a screen drawn with real fonts: a compact
 * select inline in a sentence ("Show [25] entries"), a label holding a
 * relation word ("Sort by:"), a label holding a role word ("Large input"),
 * text areas asked for as a "field" and as a "text area", an input drawn as
 * a line under its label, a faint radio ring after the radio before it, and
 * a switch.
 */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="480" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="14">
  <rect width="900" height="480" fill="#ffffff"/>
  <text x="30" y="56" fill="#333333">Show</text>
  <rect x="76" y="34" width="48" height="34" rx="3" fill="#ffffff" stroke="#c4c9d0"/>
  <text x="84" y="56" fill="#333333">25</text><path d="M106 48 l5 6 l5 -6" fill="none" stroke="#666666" stroke-width="1.5"/>
  <text x="134" y="56" fill="#333333">entries</text>
  <text x="330" y="56" fill="#333333">Sort by:</text>
  <rect x="396" y="36" width="150" height="30" rx="3" fill="#ffffff" stroke="#c4c9d0"/>
  <text x="406" y="56" fill="#333333">Newest first</text><path d="M530 48 l5 6 l5 -6" fill="none" stroke="#666666" stroke-width="1.5"/>
  <text x="30" y="120" fill="#333333" font-weight="bold">Message</text>
  <rect x="30" y="132" width="380" height="110" rx="4" fill="#ffffff" stroke="#c4c9d0"/>
  <text x="470" y="120" fill="#333333" font-weight="bold">Notes</text>
  <rect x="470" y="132" width="380" height="96" rx="4" fill="#ffffff" stroke="#c4c9d0"/>
  <text x="482" y="156" fill="#333333">Call after 5 pm</text>
  <text x="30" y="290" fill="#333333" font-weight="bold">Large input</text>
  <rect x="30" y="302" width="380" height="44" rx="4" fill="#ffffff" stroke="#c4c9d0"/>
  <text x="470" y="290" fill="#333333" font-weight="bold">Small input</text>
  <rect x="470" y="302" width="380" height="28" rx="3" fill="#ffffff" stroke="#c4c9d0"/>
  <text x="30" y="392" fill="#888888" font-size="12">Username</text>
  <rect x="30" y="430" width="380" height="1" fill="#c8c8c8"/>
  <circle cx="479" cy="404" r="8" fill="#ffffff" stroke="#dddddd"/><text x="494" y="409" fill="#333333">Small</text>
  <circle cx="559" cy="404" r="8" fill="#ffffff" stroke="#dddddd"/><text x="574" y="409" fill="#333333">Medium</text>
  <rect x="680" y="395" width="32" height="18" rx="9" fill="#2563eb"/><circle cx="703" cy="404" r="7" fill="#ffffff"/>
  <text x="720" y="409" fill="#333333">Dark mode</text>
</svg>`;

const engine = new OcrEngine();
after(() => engine.stop());

test('fields are found by their labels inline, above, and with role or relation words in the label', { timeout: 120_000 }, async () => {
  const expected: [string, { x: number; y: number; width: number; height: number }][] = [
    ["the 'Show' dropdown", { x: 76, y: 34, width: 48, height: 34 }],
    ['the Sort by dropdown', { x: 396, y: 36, width: 150, height: 30 }],
    ['the Message field', { x: 30, y: 132, width: 380, height: 110 }],
    ['the Message text area', { x: 30, y: 132, width: 380, height: 110 }],
    ['the Notes field', { x: 470, y: 132, width: 380, height: 96 }],
    ['the Large input field', { x: 30, y: 302, width: 380, height: 44 }],
    ['the Small input box', { x: 470, y: 302, width: 380, height: 28 }],
    ['the Username field', { x: 30, y: 396, width: 380, height: 36 }],
    ["the 'Medium' radio button", { x: 550, y: 395, width: 18, height: 18 }],
    ['the Dark mode switch', { x: 680, y: 395, width: 32, height: 18 }],
  ];
  assert.deepEqual(await locateMisses(engine, await svgScreen(SVG), expected), []);
});

/**
 * A full-width form on a 1920 px screen (inputs 1,500 px wide, labels over
 * them, a read-only input's faint placeholder far from its right end), a
 * borderless search in a full-width bar (the bar is no input), and a desktop dialog's form
 * (a spin box as narrow as its two digits beside its label, a select under it): labels with
 * colons in a column, inputs drawn as sunken frames far along the label's
 * line, and a group box's bottom line under the last row.
 */
const WIDE = `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="720" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="14">
  <rect width="1920" height="720" fill="#ffffff"/>
  <text x="200" y="50" fill="#333333">Country</text>
  <rect x="200" y="62" width="1500" height="38" rx="4" fill="#ffffff" stroke="#ced4da"/>
  <text x="214" y="86" fill="#495057">Portugal</text><path d="M1680 78 l5 6 l5 -6" fill="none" stroke="#666666" stroke-width="1.5"/>
  <text x="200" y="140" fill="#333333">Postcode</text>
  <rect x="200" y="152" width="1500" height="38" rx="4" fill="#ffffff" stroke="#ced4da"/>
  <rect x="0" y="220" width="1920" height="340" fill="#efefef"/>
  <rect x="100" y="240" width="560" height="300" fill="none" stroke="#a0a0a0"/>
  ${[['Style:', 260, 'Fusion'], ['User name:', 300, 'alice'], ['Delay:', 340, '250'], ['Home page:', 500, 'http://example.org']].map(([label, y, value]) => `
  <text x="112" y="${+y + 16}" fill="#000000">${label}</text>
  <rect x="240" y="${y}" width="396" height="23" fill="#ffffff"/>
  <path d="M240 ${+y + 22.5} V${+y + 0.5} H636" fill="none" stroke="#9f9f9f"/><path d="M241 ${+y + 21.5} V${+y + 1.5} H635" fill="none" stroke="#767676"/>
  <text x="245" y="${+y + 16}" fill="#000000">${value}</text>`).join('')}
  <text x="720" y="276" fill="#000000">Size:</text>
  <rect x="760.5" y="260.5" width="45" height="24" rx="2" fill="#ffffff" stroke="#9f9f9f"/>
  <text x="765" y="277" fill="#000000">10</text>
  <path d="M789.5 261 V284 M790 272.5 H805" stroke="#c0c0c0"/><path d="M794 269 l3 -3 l3 3 M794 276 l3 3 l3 -3" fill="none" stroke="#404040"/>
  <rect x="720.5" y="300.5" width="84" height="24" rx="2" fill="#f6f6f6" stroke="#9f9f9f"/>
  <text x="726" y="317" fill="#000000">Default</text><path d="M790 310 l4 4 l4 -4" fill="none" stroke="#404040"/>
  <rect x="200" y="590" width="1500" height="38" rx="4" fill="#eceef1" stroke="#d9dee3"/>
  <text x="214" y="614" fill="#a1acb8">Readonly input here...</text>
  <text x="200" y="646" fill="#566a7f" font-size="12">READ PLAIN</text>
  <rect x="20" y="656" width="1880" height="60" rx="6" fill="#e4e6eb"/>
  <text x="1740" y="693" fill="#a1acb8">Search...</text>
</svg>`;

test('fields on a wide screen and in a desktop dialog\'s form are found by label and by the value they show', { timeout: 120_000 }, async () => {
  const sunken = (y: number) => ({ x: 240, y, width: 396, height: 23 });
  const expected: [string, { x: number; y: number; width: number; height: number }][] = [
    ['the Country dropdown', { x: 200, y: 62, width: 1500, height: 38 }],
    ["the 'Postcode' field", { x: 200, y: 152, width: 1500, height: 38 }],
    ["the field showing 'Portugal'", { x: 200, y: 62, width: 1500, height: 38 }],
    ["the 'Readonly input here...' field", { x: 200, y: 590, width: 1500, height: 38 }],
    ['the Search box', { x: 1730, y: 670, width: 180, height: 36 }],
    ['the Style dropdown', sunken(260)],
    ["the field showing 'alice'", sunken(300)],
    ['the Delay field', sunken(340)],
    ["the field showing '250'", sunken(340)],
    ['the Home page field', sunken(500)],
    ['the Size: field', { x: 760, y: 260, width: 46, height: 25 }],
  ];
  const screen = await svgScreen(WIDE);
  assert.deepEqual(await locateMisses(engine, screen, expected), []);
  // The read-only input is the field, not just its placeholder's words.
  const [readonly] = await engine.locate({ screen, sandbox: null, deadline: Date.now() + 20_000, ai: {} }, parseQuery("the 'Readonly input here...' field"));
  assert.ok(Math.abs(readonly.box.x - 200) <= 3 && Math.abs(readonly.box.width - 1500) <= 6, JSON.stringify(readonly.box));
});

/**
 * A real page (flat-ui 2.1.1's components page, MIT, at its inputs, 1920x1080):
 * inputs with small faint placeholders over a code sample that spells the
 * same words out ('placeholder="Small"'). The full-screen read misses the
 * placeholders; the field is still the input, not the word in the code.
 */
test('a faint placeholder the first read misses is found in its input, not in a code sample that spells it out', { timeout: 120_000 }, async () => {
  const screen = await loadScreen(path.join(__dirname, '../fixtures/screens/flat-ui-inputs@1920x1080.png'));
  const expected: [string, { x: number; y: number; width: number; height: number }][] = [
    ["the 'Default' field", { x: 810, y: 611, width: 224, height: 42 }],
    ['the Small box', { x: 810, y: 694, width: 224, height: 35 }],
  ];
  assert.deepEqual(await locateMisses(engine, screen, expected), []);
});

/**
 * A desktop dialog's group boxes (as Qt's Fusion style draws them): a title
 * over a frame that holds a row of radios and a disabled, faint row with a
 * select, and a title over a frame whose first control is a select over a
 * preview. The title names the group's select, not the frame; an input right
 * under its label, and a text area showing its text, stay what they were. A
 * label names its select before a tab that shows the same word among others.
 */
const GROUPS = `<svg xmlns="http://www.w3.org/2000/svg" width="1120" height="560" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="13">
  <rect width="1120" height="560" fill="#efefef"/>
  <text x="40" y="40" fill="#000000">Palette</text>
  <rect x="40.5" y="52.5" width="700" height="73" fill="#f3f3f3" stroke="#d0d0d0"/>
  <circle cx="58" cy="74" r="6" fill="#ffffff" stroke="#8a8a8a"/><circle cx="58" cy="74" r="3" fill="#303030"/>
  <text x="72" y="79" fill="#000000">Default</text>
  <circle cx="140" cy="74" r="6" fill="#ffffff" stroke="#8a8a8a"/><text x="154" y="79" fill="#000000">Custom</text>
  <text x="52" y="108" fill="#a8a8a8">Color scheme:</text>
  <rect x="150.5" y="92.5" width="150" height="23" rx="2" fill="#efefef" stroke="#c8c8c8"/>
  <text x="156" y="108" fill="#a8a8a8">airy</text><path d="M286 102 l4 4 l4 -4" fill="none" stroke="#a8a8a8"/>
  <text x="40" y="160" fill="#000000">Preview</text>
  <rect x="40.5" y="172.5" width="700" height="300" fill="#f3f3f3" stroke="#d0d0d0"/>
  <rect x="52.5" y="184.5" width="126" height="23" rx="2" fill="#fafafa" stroke="#a0a0a0"/>
  <text x="58" y="200" fill="#000000">Active palette</text><path d="M162 194 l4 4 l4 -4" fill="none" stroke="#404040"/>
  <rect x="52" y="220" width="676" height="240" fill="#a0a0a0"/>
  <rect x="70.5" y="240.5" width="200" height="24" fill="#ffffff" stroke="#808080"/>
  <rect x="290.5" y="240.5" width="120" height="24" fill="#e0e0e0" stroke="#808080"/><text x="320" y="257" fill="#000000">PushButton</text>
  <text x="780" y="40" fill="#000000">Nickname</text>
  <rect x="780.5" y="52.5" width="200" height="24" fill="#ffffff" stroke="#a0a0a0"/>
  <text x="780" y="160" fill="#000000">Comment</text>
  <rect x="780.5" y="172.5" width="300" height="120" fill="#ffffff" stroke="#a0a0a0"/>
  <text x="788" y="192" fill="#000000">First line</text><text x="788" y="210" fill="#000000">Second line</text>
  <rect x="780.5" y="340.5" width="100" height="24" fill="#f8f8f8" stroke="#c0c0c0"/><text x="789" y="357" fill="#000000">Style Sheets</text>
  <text x="780" y="410" fill="#000000">Style:</text>
  <rect x="824.5" y="394.5" width="110" height="23" rx="2" fill="#fafafa" stroke="#a0a0a0"/>
  <text x="830" y="410" fill="#000000">Fusion</text><path d="M918 404 l4 4 l4 -4" fill="none" stroke="#404040"/>
</svg>`;

test('a group box\'s title names the select in the group, not the frame, and a label its select before a tab showing more', { timeout: 120_000 }, async () => {
  const expected: [string, Box][] = [
    ['Palette dropdown', { x: 150, y: 92, width: 151, height: 24 }],
    ["the 'Preview' select", { x: 52, y: 184, width: 127, height: 24 }],
    ['the Nickname field', { x: 780, y: 52, width: 201, height: 25 }],
    ['the Comment field', { x: 780, y: 172, width: 301, height: 121 }],
    ['the Style dropdown', { x: 824, y: 394, width: 111, height: 24 }],
  ];
  assert.deepEqual(await locateMisses(engine, await svgScreen(GROUPS), expected), []);
});
