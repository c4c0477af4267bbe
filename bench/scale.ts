import { execFileSync, spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { Client } from '../lib/sdk';
import { DEFAULT_SANDBOX_IMAGE } from '../lib/sandbox/docker-provider';
import { CUCUMBER_BIN, fixtureServer, newClient, REPO_ROOT, testState } from '../test/helpers/glance';
import { Figure, figure, sample, withRatio } from './stats';
import { runFeatures } from './parallel';

/**
 * Scaling out: a sandbox as a Docker container (the image 'glance image
 * build' made) against a local one, in the same run. From connect() to a
 * ready sandbox, to a painted page, a frame's capture, and the memory of an
 * idle container. Needs Docker's engine and the image (npm run
 * test:containers sets both up).
 */
const RUNS = 5;
const FEATURE_RUNS = 2;

async function connected(backend: 'local' | 'docker', state: { stateDir: string; apiKey: string }): Promise<Client> {
  const client = newClient(state, { sandboxBackend: backend, dashcam: false });
  await client.auth();
  await client.connect({ keepAlive: 0 });
  return client;
}

/** What `docker stats` says the container uses, in MB. */
function containerMemoryMb(instanceId: string): number {
  const usage = execFileSync('docker', ['stats', '--no-stream', '--format', '{{.MemUsage}}', `glance-${instanceId}`], { encoding: 'utf8' }).split('/')[0].trim();
  const match = /^([\d.]+)\s*([KMG]i?B)$/.exec(usage);
  if (!match) throw new Error(`docker stats said '${usage}'`);
  const scale: Record<string, number> = { KiB: 1 / 1024, MiB: 1, GiB: 1024, kB: 1 / 1000, MB: 1, GB: 1000 };
  return Number(match[1]) * (scale[match[2]] ?? 1);
}

/**
 * The example features as two CI machines would run them: `--shard 1/2` and
 * `--shard 2/2`, each with its own state folder and message file, then
 * `glance report --merge`. Fails unless the merged report holds every
 * scenario a whole run holds. Returns the two shards' times and the merge's.
 */
function shardsMerged(): { shards: number[]; merge: number } {
  const root = fs.mkdtempSync(path.join(path.dirname(testState().stateDir), 'bench-shards-'));
  const shards = [1, 2].map((i) => {
    const state = testState();
    const started = performance.now();
    const run = spawnSync(process.execPath, [CUCUMBER_BIN, '--shard', `${i}/2`, '--format', `message:${path.join(root, `shard-${i}`, 'messages.ndjson')}`], {
      cwd: REPO_ROOT, encoding: 'utf8', timeout: 600_000, env: { ...process.env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey },
    });
    if (run.status !== 0) throw new Error(`shard ${i}/2 failed:\n${run.stdout.slice(-3000)}${run.stderr.slice(-1000)}`);
    return performance.now() - started;
  });
  const started = performance.now();
  const merged = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'report', '--merge', path.join(root, 'shard-1'), path.join(root, 'shard-2'), '--out', path.join(root, 'merged')], { encoding: 'utf8', timeout: 120_000 });
  const merge = performance.now() - started;
  const counted = /\((\d+) scenario\(s\) of (\d+) feature\(s\) from 2 shard\(s\)\)/.exec(merged.stdout);
  const whole = spawnSync(process.execPath, [CUCUMBER_BIN, '--dry-run', '--format', 'summary'], { cwd: REPO_ROOT, encoding: 'utf8' });
  const expected = /(\d+) scenarios? \(/.exec(whole.stdout)?.[1];
  if (merged.status !== 0 || !counted || counted[1] !== expected) throw new Error(`the merged report holds ${counted?.[1] ?? 'no'} scenarios, the suite ${expected}:\n${merged.stdout}${merged.stderr}`);
  console.log(`scale: the two shards merged into one report of ${counted[1]} scenarios in ${counted[2]} features`);
  return { shards, merge };
}

export async function scaleBench(): Promise<Figure[]> {
  try {
    execFileSync('docker', ['image', 'inspect', DEFAULT_SANDBOX_IMAGE], { stdio: 'ignore' });
  } catch {
    console.log(`scale: skipped: no Docker engine with the image ${DEFAULT_SANDBOX_IMAGE} here (npm run test:containers sets both up)`);
    return [];
  }
  const state = testState();
  const pages = await fixtureServer();
  const url = `${pages.url}/acme/signup.html`;
  const figures: Figure[] = [];
  try {
    const ready: Record<string, number[]> = { local: [], docker: [] };
    const withPage: Record<string, number[]> = { local: [], docker: [] };
    const capture: Record<string, number[]> = { local: [], docker: [] };
    const memory: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      for (const backend of ['local', 'docker'] as const) {
        const started = performance.now();
        const client = await connected(backend, state);
        ready[backend].push(performance.now() - started);
        try {
          await client.provision.chrome({ url });
          withPage[backend].push(performance.now() - started);
          capture[backend].push(...await sample(10, () => client.requireAgent().screenRaw(), 2));
          if (backend === 'docker' && i < 3) {
            await client.resetApps();
            memory.push(containerMemoryMb(client.getInstance()!.instanceId));
          }
        } finally {
          await client.disconnect();
        }
      }
    }
    const localReady = figure('local sandbox: connect() to ready', ready.local);
    const localPage = figure('local sandbox: connect() to a painted page', withPage.local);
    const localCapture = figure('local sandbox: one frame captured (shared memory)', capture.local);
    figures.push(
      localReady,
      withRatio(figure('docker sandbox: connect() to ready', ready.docker, '≤ 3000 ms'), localReady),
      localPage,
      withRatio(figure('docker sandbox: connect() to a painted page', withPage.docker, '≤ 4000 ms'), localPage),
      localCapture,
      withRatio(figure('docker sandbox: one frame captured (over HTTP)', capture.docker), localCapture),
      figure('docker sandbox: memory of an idle container (after a page, reset)', memory, undefined, 'MB'),
    );
  } finally {
    await pages.close();
  }
  // The example features with two workers, each with its own sandbox: processes here against containers.
  const featureState = testState();
  runFeatures(2, featureState); // fills the cache
  const local: number[] = [];
  const docker: number[] = [];
  for (let i = 0; i < FEATURE_RUNS; i++) {
    local.push(runFeatures(2, featureState, { GLANCE_SANDBOX_BACKEND: 'local' }));
    docker.push(runFeatures(2, featureState, { GLANCE_SANDBOX_BACKEND: 'docker' }));
  }
  const localRun = figure('example features, warm, GLANCE_PARALLEL=2, local sandboxes: whole run', local);
  figures.push(localRun, withRatio(figure('example features, warm, GLANCE_PARALLEL=2, docker sandboxes: whole run', docker), localRun));
  const { shards, merge } = shardsMerged();
  figures.push(figure('example features, --shard 1/2 and 2/2, cold: each shard, whole run', shards), figure('glance report --merge of the two shards (every scenario in one report)', [merge]));
  return figures;
}
