import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cropGrey, searchScreen } from '../../lib/cache/template';

/** A flat screen with a button: a dark 3 px border, a light face and a darker label block. */
function screenWithButton(left: number, top: number) {
  const width = 320, height = 200;
  const data = new Uint8Array(width * height).fill(245);
  for (let y = 0; y < 30; y++) for (let x = 0; x < 90; x++) {
    const edge = x < 3 || y < 3 || x > 86 || y > 26;
    data[(top + y) * width + left + x] = edge ? 40 : x > 20 && x < 70 && y > 10 && y < 20 ? 90 : 200;
  }
  return { width, height, data };
}

test('the whole-screen search finds a short element at any row and column, odd ones included', () => {
  const template = cropGrey(screenWithButton(40, 60), { x: 40, y: 60, width: 90, height: 30 });
  for (const [left, top] of [[40, 60], [41, 61], [203, 117], [7, 165]]) {
    const hit = searchScreen(screenWithButton(left, top), template);
    assert.deepEqual({ x: hit.x, y: hit.y }, { x: left, y: top });
    assert.ok(hit.score > 0.99, `score ${hit.score}`);
  }
});
