import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { OcrEngine } from '../../lib/locate/ocr/engine';
import { parseQuery } from '../../lib/locate/query';
import { locateMisses, svgScreen } from '../helpers/screens';

/**
 * Labels too long for their controls wrap over two lines, on a screen drawn
 * with real fonts: a narrow button's 'Create an' over 'Account!', and a
 * table cell's 'Awaiting' over 'payment'. Two words that end and start lines
 * in different columns are no wrapped text.
 */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="300" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="15">
  <rect width="700" height="300" fill="#ffffff"/>
  <rect x="40" y="40" width="110" height="62" rx="5" fill="#4e73df"/>
  <text x="95" y="66" fill="#ffffff" text-anchor="middle">Create an</text>
  <text x="95" y="88" fill="#ffffff" text-anchor="middle">Account!</text>
  <text x="260" y="66" fill="#333333">Status</text>
  <text x="260" y="110" fill="#333333">Awaiting</text>
  <text x="260" y="130" fill="#333333">payment</text>
  <text x="40" y="200" fill="#333333">Save</text>
  <text x="420" y="222" fill="#333333">draft</text>
</svg>`;

const engine = new OcrEngine();
after(() => engine.stop());

test('a text wrapped over two lines is found; words ending and starting lines in other columns are not joined', { timeout: 120_000 }, async () => {
  const screen = await svgScreen(SVG);
  assert.deepEqual(await locateMisses(engine, screen, [
    ['the Create an Account! button', { x: 40, y: 40, width: 110, height: 62 }],
    ["the 'Awaiting payment' cell", { x: 255, y: 94, width: 80, height: 42 }],
  ]), []);
  const joinedAcross = await engine.locate({ screen, sandbox: null, deadline: Date.now() + 20_000, ai: {} }, parseQuery("'Save draft'"));
  assert.deepEqual(joinedAcross, []);
});
