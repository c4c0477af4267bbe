/**
 * `npm run acceptance -- [--repeat N] [--tags EXPR] [cucumber-js arguments]`:
 * runs the acceptance suite (acceptance/*.feature: scenarios written as a QA
 * engineer would, on programs and sites no one here wrote) N times, each run
 * in fresh sandboxes, and prints the pass rate, the scenarios that passed in
 * one run and failed in another (flaky), and every failure with its cause.
 * Writes reports/acceptance/summary.json. Exits non-zero when any scenario
 * failed in any run.
 */
import fs from 'fs';
import path from 'path';
import { spawn } from 'child_process';
import { serveFolder } from '../lib/util/static-server';
import { CACHE_DIR, ensureSource, loadSources } from '../bench/locate/real/source-list';
import { ACCEPTANCE_WEB_SOURCES } from './sources';

const ROOT = path.resolve(__dirname, '..');
const REPORTS = path.join(ROOT, 'reports', 'acceptance');
const CUCUMBER = path.join(path.dirname(require.resolve('@cucumber/cucumber/package.json')), 'bin', 'cucumber.js');

export interface Outcome { scenario: string; passed: boolean; cause: string | null }

function parseArgs(argv: string[]): { repeat: number; rest: string[] } {
  const rest: string[] = [];
  let repeat = 1;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--repeat') {
      repeat = Number(argv[++i]);
      if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error(`--repeat takes a whole number from 1 to 20, got '${argv[i]}'.`);
    } else rest.push(argv[i]);
  }
  return { repeat, rest };
}

/** Each scenario's outcome in one run, from cucumber's message stream. */
export function outcomesOf(messages: string): Outcome[] {
  const pickles = new Map<string, { name: string; uri: string; line: number }>();
  const cases = new Map<string, string>();
  const started = new Map<string, string>();
  const failures = new Map<string, string>();
  const locations = new Map<string, number>();
  const outcomes: Outcome[] = [];
  for (const line of messages.split('\n')) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.gherkinDocument) {
      for (const child of m.gherkinDocument.feature?.children ?? []) if (child.scenario) locations.set(child.scenario.id, child.scenario.location.line);
    } else if (m.pickle) {
      pickles.set(m.pickle.id, { name: m.pickle.name, uri: m.pickle.uri, line: locations.get(m.pickle.astNodeIds[0]) ?? 0 });
    } else if (m.testCase) cases.set(m.testCase.id, m.testCase.pickleId);
    else if (m.testCaseStarted) started.set(m.testCaseStarted.id, m.testCaseStarted.testCaseId);
    else if (m.testStepFinished) {
      const result = m.testStepFinished.testStepResult;
      if (result.status !== 'PASSED' && result.status !== 'SKIPPED' && !failures.has(m.testStepFinished.testCaseStartedId)) {
        failures.set(m.testStepFinished.testCaseStartedId, `${result.status}: ${(result.message ?? '').split('\n').find((l: string) => l.trim()) ?? ''}`.trim());
      }
    } else if (m.testCaseFinished && !m.testCaseFinished.willBeRetried) {
      const pickle = pickles.get(cases.get(started.get(m.testCaseFinished.testCaseStartedId)!)!)!;
      const cause = failures.get(m.testCaseFinished.testCaseStartedId) ?? null;
      outcomes.push({ scenario: `${path.relative(ROOT, path.resolve(ROOT, pickle.uri))}:${pickle.line} ${pickle.name}`, passed: cause === null, cause });
    }
  }
  return outcomes;
}

async function main(): Promise<number> {
  const { repeat, rest } = parseArgs(process.argv.slice(2));
  // The web apps: npm packages that ship built HTML, served from the bench's package cache.
  const web = loadSources().web.filter((s) => ACCEPTANCE_WEB_SOURCES.includes(s.name));
  for (const source of web) ensureSource(source);
  const server = await serveFolder(path.join(CACHE_DIR, 'packages'));
  fs.mkdirSync(REPORTS, { recursive: true });
  const runs: Outcome[][] = [];
  try {
    for (let run = 1; run <= repeat; run++) {
      const messages = path.join(REPORTS, `run-${run}.ndjson`);
      fs.rmSync(messages, { force: true });
      console.log(`acceptance: run ${run} of ${repeat}`);
      // Not spawnSync: this process serves the web apps while cucumber runs.
      const cucumber = spawn(process.execPath, [CUCUMBER, '--profile', 'acceptance', '--format', `message:${messages}`, ...rest], {
        cwd: ROOT, stdio: 'inherit', env: { ...process.env, GLANCE_BASE_URL: `${server.url}/` },
      });
      await new Promise((resolve) => cucumber.once('close', resolve));
      runs.push(fs.existsSync(messages) ? outcomesOf(fs.readFileSync(messages, 'utf8')) : []);
    }
  } finally {
    await server.close();
  }
  return report(runs);
}

export interface Summary {
  scenarios: number;
  runs: number;
  passed: number;
  total: number;
  passRate: number;
  /** Scenarios that passed in one run and failed in another. */
  flaky: string[];
  failures: Outcome[];
}

/** The runs taken together: a scenario is flaky when its runs disagree. */
export function summarise(runs: Outcome[][]): Summary {
  const byScenario = new Map<string, Outcome[]>();
  for (const run of runs) for (const o of run) byScenario.set(o.scenario, [...(byScenario.get(o.scenario) ?? []), o]);
  const all = runs.flat();
  const passed = all.filter((o) => o.passed).length;
  const flaky = [...byScenario.entries()].filter(([, os]) => os.some((o) => o.passed) && os.some((o) => !o.passed)).map(([s]) => s);
  return { scenarios: byScenario.size, runs: runs.length, passed, total: all.length, passRate: all.length ? Math.round((1000 * passed) / all.length) / 10 : 0, flaky, failures: all.filter((o) => !o.passed) };
}

function report(runs: Outcome[][]): number {
  const summary = summarise(runs);
  console.log(`\nacceptance: ${summary.scenarios} scenarios, ${summary.runs} run(s): ${summary.passed} of ${summary.total} passed (${summary.passRate}%), ${summary.flaky.length} flaky`);
  for (const s of summary.flaky) console.log(`  flaky: ${s}`);
  for (const f of summary.failures) console.log(`  failed: ${f.scenario}\n    cause: ${f.cause}`);
  fs.writeFileSync(path.join(REPORTS, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  // The closing line CI reads: every scenario run, counted once per run.
  console.log(`${summary.passed} passed, ${summary.failures.length} failed`);
  return summary.failures.length || !summary.total ? 1 : 0;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error) => {
    console.error(`acceptance: ${error.message}`);
    process.exit(2);
  });
}
