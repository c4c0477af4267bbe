import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A11yEngine } from '../../lib/locate/a11y/engine';
import { parseQuery } from '../../lib/locate/query';
import type { A11yNode } from '../../lib/types/a11y';
import type { Screen } from '../../lib/types/screen';

// A node cut by the screen's edge: the tree's box runs past it, the screen shows most of it.
const width = 400;
const height = 300;

function screenWithText(): Screen {
  const data = Buffer.alloc(width * height * 4, 250);
  // Dark strokes where both headings are drawn, to the screen's bottom edge.
  for (let y = 270; y < height; y++) for (let x = 20; x < 380; x += 3) data.fill(30, (y * width + x) * 4, (y * width + x) * 4 + 3);
  return { width, height, data, format: 'rgba' };
}

const heading = (name: string, box: A11yNode['box']): A11yNode => ({
  path: `:1.1/0/${name.length}`, parent: null, role: 'heading', name, description: '', value: null, states: [], box,
  app: 'Chromium', window: 'Dashboard', labelledBy: [],
});

test('a heading cut by the bottom edge is found in the part the screen shows; one mostly below it is not', async () => {
  const nodes = [heading('Nick Daniel', { x: 20, y: 278, width: 120, height: 30 }), heading('Design changes', { x: 200, y: 292, width: 150, height: 30 })];
  const sandbox = { a11ySnapshot: async () => ({ nodes, tookMs: 1, truncated: false, skipped: [] }) };
  const engine = new A11yEngine();
  const context = { screen: screenWithText(), sandbox, deadline: Date.now() + 5000, ai: {} } as any;
  const [cut] = await engine.locate(context, parseQuery("the 'Nick Daniel' heading"));
  assert.deepEqual(cut?.box, { x: 20, y: 278, width: 120, height: 22 }, 'two thirds shown: found, clipped to the screen');
  assert.deepEqual(await engine.locate(context, parseQuery("the 'Design changes' heading")), [], 'a quarter shown: scrolled away');
});
