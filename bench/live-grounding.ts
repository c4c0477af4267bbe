import fs from 'fs';
import path from 'path';
import { chromium as playwright } from 'playwright-core';
import { Client } from '../lib/sdk';
import { serveFolder } from '../lib/util/static-server';
import { waitFor } from '../lib/util/wait';
import { chromiumArgs, findChromium } from '../lib/sandbox/agent/launcher';
import { newClient, testState } from '../test/helpers/glance';
import { snapshotInPage } from './locate/real/dom-snapshot';
import { generateCases } from './locate/real/generate';
import { isHit } from './locate/real/score';
import { CACHE_DIR, ensureSource, loadSources, sourceSlug } from './locate/real/source-list';
import type { Box, RealCase, ScreenSnapshot } from './locate/real/types';
import { ACCEPTANCE_WEB_SOURCES } from '../acceptance/sources';
import { Figure, figure } from './stats';

/**
 * `npm run bench -- live-grounding`: the engines side by side on real pages
 * opened live in a sandbox: the acceptance suite's web sources, each page in
 * the sandbox's own Chromium, with the truth read from the same page's DOM
 * (over its DevTools port) while the engines look at its screen and tree.
 * `auto`, `a11y` alone and `ocr` alone answer the same descriptions (the
 * locate-real generator's); a hit is the click point inside the target, and
 * for text (a heading, a cell, a badge, a run of text) inside the text's own
 * box, where a person would click.
 */
const ENGINES = ['auto', 'a11y', 'ocr'] as const;
type Engine = (typeof ENGINES)[number];
/** Kinds whose target is the text itself, not the box around it. */
const TEXT_KINDS = new Set(['heading', 'cell', 'column-header', 'badge', 'text']);
const DEBUG_PORT = 9334;

interface Row { source: string; page: string; c: RealCase; hits: Record<Engine, boolean>; ms: Record<Engine, number>; answers: Record<Engine, string> }

/** Text targets are scored on the words' own box where the page gives one. */
function onTheText(cases: RealCase[], snapshot: ScreenSnapshot): RealCase[] {
  const same = (a: Box, b: Box) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
  return cases.map((c) => {
    if (c.category !== 'text' && c.category !== 'ordinal') return c;
    const target = snapshot.elements.find((e) => c.boxes[0] && same(e.box, c.boxes[0]));
    const text = snapshot.texts.find((t) => c.boxes[0] && same(t.box, c.boxes[0]));
    // A control (a button, a link, a field) is clicked anywhere on it; a text on its words.
    const own = target ? (TEXT_KINDS.has(target.kind) ? target.textBox : undefined) : text?.textBox;
    return own ? { ...c, boxes: [own] } : c;
  });
}

export async function liveGroundingBench(): Promise<Figure[]> {
  const state = testState();
  const web = loadSources().web.filter((s) => ACCEPTANCE_WEB_SOURCES.includes(s.name));
  for (const source of web) ensureSource(source);
  const server = await serveFolder(path.join(CACHE_DIR, 'packages'));
  const pages = web.flatMap((s) => s.pages.filter((p, i) => s.pages.findIndex((q) => q.path === p.path) === i).map((p) => ({ source: s.name, page: p.path, url: `${server.url}/${sourceSlug(s.name)}@${s.version}/package/${p.path}` })));
  const clients = {} as Record<Engine, Client>;
  const rows: Row[] = [];
  try {
    clients.auto = newClient(state, { cache: false, logging: false, dashcam: false });
    await clients.auto.auth();
    await clients.auto.connect({ keepAlive: 60_000 });
    const sandboxId = clients.auto.getInstance()!.instanceId;
    for (const engine of ['a11y', 'ocr'] as const) {
      clients[engine] = newClient(state, { cache: false, logging: false, dashcam: false, locator: engine, sandboxId });
      await clients[engine].auth();
      await clients[engine].connect({ keepAlive: 60_000 });
    }
    const home = (await clients.auto.exec('sh', 'printf %s "$HOME"')).trim();
    for (const [n, page] of pages.entries()) {
      await clients.auto.resetApps();
      // The sandbox's own Chromium, as `I open … in the browser` starts it, with a DevTools port for reading the truth.
      const args = chromiumArgs(page.url, path.join(home, '.config', `grounding-${n}`), 1366, 768)
        .filter((a) => a !== '--remote-debugging-pipe').concat(`--remote-debugging-port=${DEBUG_PORT}`);
      await clients.auto.exec('sh', `nohup ${findChromium()} ${args.map((a) => `'${a}'`).join(' ')} >/dev/null 2>&1 &`);
      const browser = await waitFor('the page\'s DevTools port', () => playwright.connectOverCDP(`http://127.0.0.1:${DEBUG_PORT}`).catch(() => undefined), { timeoutMs: 20_000, intervalMs: 200 });
      let snapshot: ScreenSnapshot;
      try {
        const tab = await waitFor('the page', () => browser.contexts()[0]?.pages()[0], { timeoutMs: 10_000, intervalMs: 100 });
        await tab.waitForLoadState('load');
        await tab.evaluate(() => (globalThis as any).document.fonts.ready.then(() => undefined));
        await waitFor('the page to fill the screen', () => tab.evaluate(() => (globalThis as any).innerWidth === 1366), { timeoutMs: 10_000, intervalMs: 100 });
        await clients.auto.settle(2000);
        snapshot = await tab.evaluate(snapshotInPage);
      } finally {
        await browser.close().catch(() => undefined);
      }
      await waitFor(`${page.source}'s tree`, async () => ((await clients.auto.requireAgent().a11ySnapshot({ deadlineMs: 2000 })).nodes.length > 5 ? true : undefined), { timeoutMs: 15_000, intervalMs: 300 });
      const cases = onTheText(generateCases({ id: `live-${n}`, source: page.source, part: 'tune', width: 1366, height: 768 }, snapshot, () => 1), snapshot);
      for (const c of cases) {
        const row = { source: page.source, page: page.page, c, hits: {}, ms: {}, answers: {} } as Row;
        for (const engine of ENGINES) {
          const t = performance.now();
          const found = await clients[engine].find(c.description, { timeout: 0 });
          row.ms[engine] = performance.now() - t;
          row.hits[engine] = isHit(c, { box: found.boundingBox });
          row.answers[engine] = found.found() ? `${found.engine} ${JSON.stringify(found.boundingBox)}` : 'not found';
        }
        rows.push(row);
      }
    }
  } finally {
    for (const engine of ['ocr', 'a11y', 'auto'] as const) await clients[engine]?.disconnect().catch(() => undefined);
    await server.close();
  }
  return summarise(rows, pages.length);
}

function summarise(rows: Row[], pages: number): Figure[] {
  const share = (list: Row[], engine: Engine) => (list.length ? Math.round((list.filter((r) => r.hits[engine]).length / list.length) * 1000) / 10 : NaN);
  const categories = ['text', 'field', 'ordinal', 'negative'] as const;
  type Shares = { cases: number } & Record<Engine, number>;
  const shares = (of: Row[]): Shares => ({ cases: of.length, auto: share(of, 'auto'), a11y: share(of, 'a11y'), ocr: share(of, 'ocr') });
  const byCategory = Object.fromEntries(categories.map((cat) => [cat, shares(rows.filter((r) => r.c.category === cat))])) as Record<(typeof categories)[number], Shares>;
  const textAndFields = rows.filter((r) => r.c.category === 'text' || r.c.category === 'field');
  const summary = {
    pages, cases: rows.length, byCategory,
    textAndFields: shares(textAndFields),
    autoNeverWorse: categories.every((cat) => byCategory[cat].auto >= Math.max(byCategory[cat].a11y, byCategory[cat].ocr)),
    misses: rows.filter((r) => !r.hits.auto).map((r) => ({ source: r.source, page: r.page, category: r.c.category, description: r.c.description, target: r.c.boxes[0] ?? null, auto: r.answers.auto, a11y: r.answers.a11y, ocr: r.answers.ocr })),
  };
  console.log(`\nlive grounding: ${rows.length} descriptions on ${pages} pages opened live`);
  console.log(`  ${'category'.padEnd(10)} ${'cases'.padStart(5)}  ${ENGINES.map((e) => e.padStart(6)).join('  ')}`);
  for (const cat of categories) console.log(`  ${cat.padEnd(10)} ${String(byCategory[cat].cases).padStart(5)}  ${ENGINES.map((e) => `${byCategory[cat][e]}%`.padStart(6)).join('  ')}`);
  console.log(`  ${'text+field'.padEnd(10)} ${String(summary.textAndFields.cases).padStart(5)}  ${ENGINES.map((e) => `${summary.textAndFields[e]}%`.padStart(6)).join('  ')}  (target: auto >= 97%)`);
  console.log(`  auto at least as good as the best single engine in every category: ${summary.autoNeverWorse ? 'yes' : 'no'}`);
  for (const m of summary.misses) console.log(`  auto miss (${m.category}): ${m.source} ${m.page} "${m.description}" target ${JSON.stringify(m.target)}: auto ${m.auto}; a11y ${m.a11y}; ocr ${m.ocr}`);
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'results', 'live-grounding-summary.json'), JSON.stringify(summary, null, 2));
  return ENGINES.map((e) => figure(`find() with ${e}, live pages`, rows.map((r) => r.ms[e])));
}
