import { execFileSync } from 'child_process';
import { Client } from '../lib/sdk';
import { DEFAULT_SANDBOX_IMAGE } from '../lib/sandbox/docker-provider';
import { fixtureServer, newClient, testState } from '../test/helpers/glance';
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
  return figures;
}
