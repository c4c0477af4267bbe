import { spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { CUCUMBER_BIN as cucumberBin, REPO_ROOT, testState } from '../test/helpers/glance';
import { Figure, figure, withRatio } from './stats';
import { testFolder } from '../test/helpers/test-root';

/**
 * Wall times of `cucumber-js --dry-run` on the example features: Cucumber's
 * start-up with Glance's support code, before any step runs. `overrides` are
 * applied to the default profile (in a config file of their own, so that no
 * report is written); `null` runs Cucumber alone, with no support code and no
 * features, for its own share of the time.
 */
function dryRuns(count: number, overrides: Record<string, unknown> | null): number[] {
  const dir = testFolder('dry-run-');
  const config = path.join(dir, 'cucumber.js');
  const profile = overrides === null
    ? `{ format: ['summary'], paths: [${JSON.stringify(path.join(dir, 'none', '*.feature'))}] }`
    : `{ ...require(${JSON.stringify(path.join(REPO_ROOT, 'cucumber.js'))}).default, format: ['summary'], ...${JSON.stringify(overrides)} }`;
  fs.writeFileSync(config, `module.exports = { default: ${profile} };\n`);
  const times: number[] = [];
  for (let i = 0; i <= count; i++) {
    const started = performance.now();
    // Cucumber reads the config path relative to its working folder.
    const run = spawnSync(process.execPath, [cucumberBin, '--dry-run', '--config', path.relative(REPO_ROOT, config)], { cwd: REPO_ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`cucumber-js --dry-run failed:\n${run.stdout.slice(-2000)}${run.stderr.slice(-2000)}`);
    if (i > 0) times.push(performance.now() - started); // the first run warms the file cache
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return times;
}

/** Runs cucumber-js on `feature` with its own state folder; returns the wall time and the JSON report. */
export function runFeature(feature: string, state: { stateDir: string; apiKey: string }): { ms: number; report: any[] } {
  const json = path.join(state.stateDir, `run-${Date.now()}.json`);
  const started = performance.now();
  const run = spawnSync(process.execPath, [cucumberBin, feature, '--format', `json:${json}`], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000,
    env: { ...process.env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey },
  });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${feature} failed:\n${run.stdout.slice(-3000)}${run.stderr.slice(-1000)}`);
  return { ms, report: JSON.parse(fs.readFileSync(json, 'utf8')) };
}

/** Durations in ms of the scenarios named `name`, hooks included. */
function scenarioDurations(report: any[], name: string): number[] {
  return report.flatMap((f) => f.elements).filter((s: any) => s.name === name)
    .map((s: any) => s.steps.reduce((sum: number, step: any) => sum + (step.result?.duration ?? 0) / 1e6, 0));
}

/** Durations in ms of the steps whose text matches `pattern`. */
export function stepDurations(report: any[], pattern: RegExp): number[] {
  return report.flatMap((f) => f.elements).flatMap((s: any) => s.steps)
    .filter((s: any) => s.keyword.trim() !== 'Before' && s.keyword.trim() !== 'After' && pattern.test(s.name ?? ''))
    .map((s: any) => s.result.duration / 1e6);
}

/**
 * The step library's speed: Cucumber's start-up with Glance's compiled code,
 * against the TypeScript sources through ts-node as Glance ran before; the
 * sign-up feature on a warm cache against a cold one (wall time of cucumber-js,
 * process start included); and what a cached click step costs above a raw
 * click at coordinates, both from one run.
 */
export async function cucumberBench(): Promise<Figure[]> {
  const fromSources = figure('cucumber-js --dry-run, example features, TypeScript sources through ts-node', dryRuns(5, {
    require: [path.join(REPO_ROOT, 'support', 'index.ts')],
    requireModule: ['ts-node/register/transpile-only'],
    formatOptions: {},
  }));
  const compiled = withRatio(figure('cucumber-js --dry-run, example features, compiled', dryRuns(5, {}), '<= 600'), fromSources);
  const cucumberAlone = figure('cucumber-js --dry-run, Cucumber alone (no support code, no features)', dryRuns(5, null));

  const signup = 'features/signup-and-login.feature';
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 2; i++) cold.push(runFeature(signup, testState()).ms);
  const warmState = testState();
  runFeature(signup, warmState); // fills the cache
  for (let i = 0; i < 3; i++) warm.push(runFeature(signup, warmState).ms);

  const clickState = testState();
  const overheadFeature = 'bench/features/click-overhead.feature';
  runFeature(overheadFeature, clickState); // fills the cache
  const { report } = runFeature(overheadFeature, clickState);
  const cachedClick = stepDurations(report, /^I click the 'General' tab$/);
  const rawClick = stepDurations(report, /^I click at 683, 720$/);
  const overhead = cachedClick.map((ms, i) => ms - rawClick[Math.min(i, rawClick.length - 1)]);

  // A run that moves to another resolution and back: the way back takes the sandbox the worker kept there.
  const moves = [0, 1, 2].map(() => runFeature('bench/features/resolution-switch.feature', testState()).report);
  const newResolution = figure('a scenario at a resolution new to the worker (a new sandbox and browser), hooks included', moves.flatMap((r) => scenarioDurations(r, 'Wide')));
  const backAgain = withRatio(figure('a scenario back at a resolution the worker left (the sandbox it kept there), hooks included', moves.flatMap((r) => scenarioDurations(r, 'Narrow again'))), newResolution);

  const coldFigure = figure('sign-up feature, cold cache (wall)', cold);
  const rawFigure = figure("raw click step ('I click at x, y')", rawClick);
  return [
    fromSources,
    compiled,
    cucumberAlone,
    coldFigure,
    withRatio(figure('sign-up feature, warm cache (wall)', warm), coldFigure),
    rawFigure,
    withRatio(figure('cached click step', cachedClick), rawFigure),
    figure('cached click step, overhead above the raw click', overhead, '<= 60'),
    newResolution,
    backAgain,
  ];
}
