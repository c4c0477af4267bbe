import { spawnSync } from 'child_process';
import { CUCUMBER_BIN, REPO_ROOT, testState } from '../test/helpers/glance';
import { Figure, figure, withRatio } from './stats';

/**
 * Parallel workers: the example features, warm, as whole cucumber-js runs of
 * the `ci` profile with GLANCE_PARALLEL=1 and =2 in turns, each worker with
 * its own reused sandbox.
 */
const RUNS = 2;

/** One whole run of the example features (the `ci` profile) with `workers` workers; its wall time in ms. */
export function runFeatures(workers: number, state: { stateDir: string; apiKey: string }, env: Record<string, string> = {}): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [CUCUMBER_BIN, '--profile', 'ci', '--format', 'summary'], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 600_000,
    env: { ...process.env, GLANCE_PARALLEL: String(workers), GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey, ...env },
  });
  if (result.status !== 0) throw new Error(`the example features failed with ${workers} worker(s) (${JSON.stringify(env)}):\n${result.stdout.slice(-3000)}${result.stderr.slice(-1000)}`);
  return performance.now() - started;
}

export async function parallelBench(): Promise<Figure[]> {
  const state = testState();
  runFeatures(1, state); // fills the cache
  const one: number[] = [];
  const two: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    one.push(runFeatures(1, state));
    two.push(runFeatures(2, state));
  }
  const single = figure('example features, warm, 1 worker, whole run', one);
  return [single, withRatio(figure('example features, warm, 2 workers (GLANCE_PARALLEL=2), whole run', two), single)];
}
