import { spawnSync } from 'child_process';
import path from 'path';
import { REPO_ROOT, testState } from '../test/helpers/glance';
import { runFeature } from './cucumber';
import { Figure, figure, withRatio } from './stats';

/**
 * Warm runs beside Playwright. The sign-up scenario, with a warm cache, as a
 * whole cucumber-js process (Cucumber and Glance loading, the sandbox, the
 * steps, the exit), against the same flow written with Playwright's
 * user-facing locators (bench/playwright/signup-flow.js), as a whole process
 * too, with Debian's Chromium, in the same run. And the example features'
 * time in steps, warm, the figure the speed work is measured against.
 */
const SIGN_UP = 'features/signup-and-login.feature:8';
const RUNS = 3;

function playwrightRun(screenshots: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bench', 'playwright', 'signup-flow.js')], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, SCREENSHOT_DIR: screenshots },
  });
  if (run.status !== 0) throw new Error(`the Playwright flow failed:\n${run.stdout}${run.stderr}`);
  return performance.now() - started;
}

/** The sum of the steps' durations in a cucumber JSON report, hooks left out. */
function stepsMs(report: any[]): number {
  return report.flatMap((f) => f.elements).flatMap((s: any) => s.steps)
    .filter((s: any) => s.keyword.trim() !== 'Before' && s.keyword.trim() !== 'After')
    .reduce((sum: number, s: any) => sum + (s.result.duration ?? 0) / 1e6, 0);
}

export async function warmBench(): Promise<Figure[]> {
  const signUpState = testState();
  runFeature(SIGN_UP, signUpState); // fills the cache
  const glance: number[] = [];
  const playwright: number[] = [];
  playwrightRun(signUpState.stateDir); // the file cache, as Glance's first run had
  for (let i = 0; i < RUNS; i++) {
    glance.push(runFeature(SIGN_UP, signUpState).ms);
    playwright.push(playwrightRun(signUpState.stateDir));
  }
  const featuresState = testState();
  runFeature('features', featuresState);
  const steps = [0, 1].map(() => stepsMs(runFeature('features', featuresState).report));
  const playwrightFigure = figure('sign-up scenario, Playwright (user-facing locators, headless), whole process', playwright);
  return [
    playwrightFigure,
    withRatio(figure('sign-up scenario, Glance warm cache, whole cucumber-js process', glance, '<= 1.5x Playwright'), playwrightFigure),
    figure('example features, warm cache: time in steps (sum)', steps),
  ];
}
