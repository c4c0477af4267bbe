import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { buildSet } from '../../bench/locate/real/set';
import { loadSources } from '../../bench/locate/real/source-list';
import { newLocateRunner, scoreRealCases } from '../../bench/locate/real/bench';
import { summarise } from '../../bench/locate/real/score';

/**
 * A small sample of the real-UI set, built end to end: two small packages
 * packed from npm, one page each captured in Chromium, cases generated from
 * the DOM and a few of them located through OfflineLocator in the bench's
 * bounded child process. It checks the set and the scorer work; accuracy is
 * the bench's business (`npm run bench -- locate-real`).
 */
test('the real-UI set builds, its boxes are sane, and its cases score', { timeout: 120_000 }, async () => {
  const all = loadSources();
  const sample = all.web.filter((s) => s.name === '98.css' || s.name === 'startbootstrap-resume').map((s) => ({ ...s, pages: s.pages.slice(0, 1) }));
  assert.equal(sample.length, 2);
  const dir = fs.mkdtempSync(path.join(process.env.GLANCE_TEST_ROOT ?? os.tmpdir(), 'locate-real-'));
  const set = await buildSet({ sources: { ...all, resolutions: [[1366, 768]], web: sample }, dir });

  assert.equal(set.screens.length, 2);
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
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
