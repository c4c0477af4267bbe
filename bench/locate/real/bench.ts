import fs from 'fs';
import path from 'path';
import { Figure, figure, withRatio } from '../../stats';
import { scoreCases, stopFixtureLocator } from '../accuracy';
import type { Category as FixtureCategory } from '../cases';
import { BoundedRunner } from './bounded-runner';
import { ocrReaderFromEnv } from '../../../lib/config/locators';
import { englishModel } from '../../../lib/locate/ocr/tesseract';
import type { LocateAnswer, LocateJob } from './locate-worker';
import { CATEGORIES, groupBy, judge, Outcome, PARTS, summarise, Summary, Tally, tally } from './score';
import { driftFromManifest, loadSet, MANIFEST, manifestOf, RealSet, screenPath } from './set';
import type { Part, RealCase } from './types';

/**
 * `npm run bench -- locate-real`: the real-UI set scored through
 * OfflineLocator, per category, per part (held-back beside tuning), per
 * source, and beside the old fixture cases, plus the timing of finds on
 * screens never seen. Each locate runs in a child process with a time bound,
 * so one that crashes or hangs is a recorded miss and the run goes on.
 *
 * Flags: --rebuild (capture and generate again), --write-manifest (record
 * the set in manifest.json), --part=tune|held (score one part only).
 */
const LOCATE_BOUND_MS = 20_000;
const REGISTER = path.resolve(__dirname, '..', '..', '..', 'lib', 'runtime', 'register.js');
// Beside the suite's figures (locate-real.json, written by bench/run.ts): every case's outcome,
// and for another reader than the default (a side-by-side run), its figures too.
const RESULTS_DIR = path.resolve(__dirname, '..', '..', 'results');
const resultsFile = (reader: string) => path.join(RESULTS_DIR, reader === 'tesseract+paddle' ? 'locate-real-cases.json' : `locate-real-cases.${reader}.json`);

const FIXTURE_CATEGORY: Record<FixtureCategory, string> = {
  text: 'text', 'field-label': 'field', 'field-placeholder': 'field', toggle: 'field', ordinal: 'ordinal', relative: 'relative', negative: 'negative',
};

export function newLocateRunner(): BoundedRunner<LocateJob, LocateAnswer> {
  return new BoundedRunner<LocateJob, LocateAnswer>(path.join(__dirname, 'locate-worker.ts'), { timeoutMs: LOCATE_BOUND_MS, execArgv: ['-r', REGISTER], maxHeapMb: 3072 });
}

/** Scores cases screen by screen; every case gets an outcome, whatever the engine does. */
export async function scoreRealCases(set: RealSet, cases: RealCase[], runner: BoundedRunner<LocateJob, LocateAnswer>, onProgress?: (done: number) => void): Promise<Outcome[]> {
  const screens = new Map(set.screens.map((s) => [s.id, s]));
  const outcomes: Outcome[] = [];
  for (const c of cases) {
    const result = await runner.run({ png: screenPath(screens.get(c.screen)!), description: c.description });
    outcomes.push(result.ok ? judge(c, result.value, undefined, result.value.ms) : judge(c, null, result.error));
    onProgress?.(outcomes.length);
  }
  return outcomes;
}

/**
 * Finds on screens never seen, at each resolution: positives (the uncached
 * find) and an absent text (every band read), each beside the baseline of the
 * same run, plain tesseract reading the same screens: the ratio says what a
 * find costs on any machine, however fast it runs that day.
 */
async function timeFreshFinds(set: RealSet, cases: RealCase[], runner: BoundedRunner<LocateJob, LocateAnswer>): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [resolution, screens] of groupBy(set.screens, (s) => `${s.width}x${s.height}`)) {
    const finds: number[] = [];
    const reads: number[] = [];
    const plain: number[] = [];
    for (const screen of screens) {
      const mine = cases.filter((c) => c.screen === screen.id);
      for (const c of mine.filter((x) => x.category !== 'negative').slice(0, 2)) {
        const r = await runner.run({ png: screenPath(screen), description: c.description, fresh: true });
        if (r.ok) finds.push(r.value.ms);
      }
      const absent = mine.find((c) => c.kind === 'absent');
      if (absent) {
        const r = await runner.run({ png: screenPath(screen), description: absent.description, fresh: true });
        if (r.ok) reads.push(r.value.ms);
      }
      const r = await runner.run({ png: screenPath(screen), description: '', plain: true });
      if (r.ok) plain.push(r.value.ms);
    }
    const main = resolution === '1366x768';
    const baseline = figure(`baseline: plain tesseract reading the screen, ${resolution}`, plain);
    if (finds.length) figures.push(withRatio(figure(`find(), uncached, real UIs, never-seen screen, ${resolution}`, finds, main ? '<= 400' : undefined), baseline));
    if (reads.length) figures.push(withRatio(figure(`full-screen read of a fresh screen (absent text), ${resolution}`, reads, main ? '<= 600' : undefined), baseline));
    if (plain.length) figures.push(baseline);
  }
  return figures;
}

async function fixtureTallies(): Promise<Record<string, Tally>> {
  try {
    const { results } = await scoreCases();
    const asOutcomes = results.map((r) => ({ category: FIXTURE_CATEGORY[r.category], ok: r.ok }));
    const out: Record<string, Tally> = { all: tallyOf(asOutcomes) };
    for (const [category, items] of groupBy(asOutcomes, (o) => o.category)) out[category] = tallyOf(items);
    return out;
  } finally {
    await stopFixtureLocator();
  }
}

const tallyOf = (items: { ok: boolean }[]): Tally => tally(items.map((i) => ({ ok: i.ok }) as Outcome));
const cell = (t: Tally | undefined) => (t && t.cases ? `${t.accuracy.toFixed(1)}% of ${t.cases}` : '');

function printReport(summary: Summary, fixtures: Record<string, Tally>, outcomes: Outcome[], results: string): void {
  const row = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  const widths = [14, 18, 18, 18];
  console.log('\nlocate-real accuracy (click point inside the target; negatives: nothing found)');
  console.log(`  ${row(['category', 'held-back', 'tuning', 'old fixtures'], widths)}`);
  for (const category of [...CATEGORIES, 'all']) {
    const part = (p: Part) => (category === 'all' ? summary.byPart[p]?.all : summary.byPart[p]?.byCategory[category]);
    console.log(`  ${row([category, cell(part('held')), cell(part('tune')), cell(fixtures[category])], widths)}`);
  }
  for (const p of PARTS) {
    const res = summary.byPart[p]?.byResolution ?? {};
    console.log(`  ${p} by resolution: ${Object.entries(res).map(([r, t]) => `${r} ${cell(t)}`).join(', ')}`);
  }
  console.log('\n  per source');
  for (const [source, s] of Object.entries(summary.bySource).sort(([, a], [, b]) => a.part.localeCompare(b.part))) {
    const cats = CATEGORIES.map((c) => `${c} ${s.byCategory[c] ? `${s.byCategory[c].accuracy.toFixed(0)}%` : '-'}`).join(', ');
    console.log(`  ${source.padEnd(42)} ${s.part.padEnd(5)} ${cell(s.all).padEnd(16)} ${cats}`);
  }
  console.log(`\n  text, by contrast: ${Object.entries(summary.lightOnDark).map(([k, t]) => `${k} ${cell(t)}`).join(', ')}`);
  for (const category of CATEGORIES) {
    const kinds = Object.entries(summary.byKind[category] ?? {}).sort(([, a], [, b]) => a.accuracy - b.accuracy);
    console.log(`  ${category} by kind: ${kinds.map(([k, t]) => `${k} ${cell(t)}`).join('; ')}`);
  }
  if (summary.errors) console.log(`  engine errors or overruns: ${summary.errors}`);
  // Only the tuning part's misses are shown: the held-back part's are for whoever reviews the figures, not for tuning.
  const misses = outcomes.filter((o) => !o.ok);
  const tuning = misses.filter((o) => o.case.part === 'tune');
  console.log(`\n  misses: ${misses.length} (all in ${path.relative(process.cwd(), results)}); the first of each kind on the tuning part:`);
  for (const [kind, items] of groupBy(tuning, (o) => `${o.case.category} / ${o.case.kind}`)) {
    for (const o of items.slice(0, 2)) console.log(`  miss: [${kind}] ${o.case.screen} "${o.case.description}" → ${o.got}`);
  }
}

function flag(name: string): string | boolean {
  const arg = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return arg ? (arg.includes('=') ? arg.split('=')[1] : true) : false;
}

export async function locateRealBench(): Promise<Figure[]> {
  const set = await loadSet({ rebuild: !!flag('rebuild'), log: (line) => console.log(line) });
  const manifest = manifestOf(set);
  // The locate children read GLANCE_OCR_READER as any Glance process does: a side-by-side is one run per reader.
  const reader = ocrReaderFromEnv();
  const tesseractModel = englishModel().langPath;
  console.log(`\nOCR reader: ${reader} (GLANCE_OCR_READER); tesseract's English model from ${tesseractModel}`);
  console.log(`real-UI set: ${manifest.totals.sources} sources, ${manifest.totals.screens} screens, ${manifest.totals.cases} cases ${JSON.stringify(manifest.totals.byCategory)} ${JSON.stringify(manifest.totals.byPart)}`);
  if (flag('write-manifest')) fs.writeFileSync(MANIFEST, JSON.stringify(manifest, null, 1) + '\n');
  const drift = driftFromManifest(set);
  if (drift.length) console.log(`  ${drift.length} screens differ from ${path.relative(process.cwd(), MANIFEST)}: ${drift.slice(0, 5).join('; ')}${drift.length > 5 ? ' …' : ''}`);

  const part = flag('part');
  const cases = typeof part === 'string' ? set.cases.filter((c) => c.part === part) : set.cases;
  const runner = newLocateRunner();
  try {
    const started = Date.now();
    const outcomes = await scoreRealCases(set, cases, runner, (done) => {
      if (done % 200 === 0) console.log(`  scored ${done} of ${cases.length} (${Math.round((Date.now() - started) / 1000)} s)`);
    });
    // Timed in a locate process of its own: what the scoring one kept from thousands of cases stays out of the figures.
    await runner.stop();
    const timer = newLocateRunner();
    const figures = await timeFreshFinds(set, cases, timer).finally(() => timer.stop());
    const fixtures = await fixtureTallies();
    const summary = summarise(outcomes);
    printReport(summary, fixtures, outcomes, resultsFile(reader));
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(resultsFile(reader), JSON.stringify({
      measuredAt: new Date().toISOString(), reader, tesseractModel, set: manifest.totals, signature: set.signature, drift: drift.length, restarts: runner.restarts,
      summary, fixtures, figures,
      misses: outcomes.filter((o) => !o.ok).map((o) => ({ id: o.case.id, part: o.case.part, category: o.case.category, kind: o.case.kind, description: o.case.description, expected: o.case.boxes, got: o.got })),
    }, null, 1));
    return figures;
  } finally {
    await runner.stop();
  }
}
