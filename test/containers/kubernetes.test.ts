import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { fixtureServer, newClient, testState } from '../helpers/glance';
import { kubeApiStandIn, KubeApiStandIn } from '../helpers/kube-api-stand-in';
import { KubernetesProvider } from '../../lib/sandbox/kubernetes-provider';
import { SANDBOX_LABEL } from '../../lib/sandbox/docker-provider';
import { SandboxRegistry } from '../../lib/sandbox/registry';
import { Client, SandboxError } from '../../lib/sdk';
import { serveProcess } from '../helpers/server-process';

// The kubernetes backend against a stand-in API server (no cluster runs
// here) that runs each pod as a container of the image 'glance image build'
// made, on the host's network: the pod's IP is 127.0.0.1, and the backend
// reaches its agent by that IP, as a server inside a cluster does.

const state = testState();
let api: KubeApiStandIn;

before(async () => {
  api = await kubeApiStandIn();
  process.env.KUBECONFIG = api.kubeconfig;
  process.env.GLANCE_KUBERNETES_ACCESS = 'pod-ip';
});

after(async () => {
  await api?.close();
});

const podNames = () => api.pods().map((p) => `${p.metadata.name} ${p.status.phase}`);

test("a pod per sandbox, labelled, with its deadline and limits: a page, a find, the client's environment and home seed; nothing is left after disconnect", async () => {
  const seed = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'pod-seed-'));
  fs.writeFileSync(path.join(seed, 'seeded.txt'), 'from the seed\n', { mode: 0o644 });
  const pages = await fixtureServer();
  const client = newClient(state, { sandboxBackend: 'kubernetes', sandboxHome: seed, environment: { GLANCE_TEST_WORD: 'carried' }, dashcam: true });
  try {
    await client.auth();
    const started = Date.now();
    const instance = await client.connect({ keepAlive: 0 });
    assert.equal(instance.provider, 'kubernetes');
    const pod = api.pods().find((p) => p.metadata.name === `glance-${instance.instanceId}`)!;
    assert.ok(pod, 'a pod named after the sandbox');
    assert.equal(pod.metadata.labels[SANDBOX_LABEL], instance.instanceId);
    assert.equal(pod.spec.activeDeadlineSeconds, 4 * 60 * 60, 'the cluster ends the pod at its deadline');
    assert.ok(Math.abs(Date.parse(pod.metadata.annotations['glance.expires']) - (started + 4 * 60 * 60_000)) < 60_000);
    assert.deepEqual(pod.spec.containers[0].resources.limits, { cpu: '2', memory: '2Gi' });
    assert.equal(pod.spec.automountServiceAccountToken, false, 'a sandbox gets no credentials to the cluster');
    await client.provision.chrome({ url: `${pages.url}/acme/signup.html` });
    assert.ok((await client.find('Create account button')).found(), 'found on the page in the pod');
    const out = await client.exec('sh', 'cat "$HOME/seeded.txt"; echo "$GLANCE_TEST_WORD"; id -un');
    assert.equal(out.trim(), 'from the seed\ncarried\nglance-sandbox');
  } finally {
    await client.disconnect();
    await pages.close();
  }
  const clip = client.getRecording();
  assert.ok(clip && fs.statSync(clip.file).size > 1000, "the dashcam clip came over the agent's connection");
  assert.deepEqual(podNames(), [], 'the pod is deleted');
});

test('a pod whose container dies mid-scenario gives a clear error, and its pod is deleted', async () => {
  const client = newClient(state, { sandboxBackend: 'kubernetes' });
  await client.auth();
  const instance = await client.connect({ keepAlive: 0 });
  try {
    await api.killPod(`glance-${instance.instanceId}`);
    const error = await client.find('Anything', { timeout: 2_000 }).then(() => null, (e: Error) => e);
    assert.ok(error instanceof SandboxError, `the find fails with a SandboxError (${error})`);
    assert.match(error.message, new RegExp(`Sandbox '${instance.instanceId}' is gone: its pod Failed \\(exit code 137, Error\\).*Connect again for a new sandbox`));
  } finally {
    await client.disconnect().catch(() => undefined);
  }
  const until = Date.now() + 15_000;
  while (api.pods().length && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(podNames(), [], 'the failed pod was deleted');
  assert.equal(new SandboxRegistry(state.stateDir).read(instance.instanceId)?.state, 'stopped');
});

test('after a restart of the owning process, its pods are found by their labels: live ones taken up, expired ones deleted', async () => {
  const registry = new SandboxRegistry(state.stateDir);
  const spec = { width: 1024, height: 768, keepAlive: 120_000, environment: {}, vnc: false, accessibility: false };
  const kept = new KubernetesProvider(registry);
  const expiring = new KubernetesProvider(registry, { deadlineMs: 60_000 });
  const live = await kept.create(spec);
  const expired = await expiring.create(spec);
  kept.close();
  expiring.close();
  const restarted = new KubernetesProvider(registry);
  try {
    // Two minutes on: past the second one's expiry, well within the first one's.
    const running = await restarted.reconcile(Date.now() + 120_000);
    assert.deepEqual(running, [live.id]);
    assert.match(registry.read(expired.id)?.stopReason ?? '', /past its deadline/);
    const until = Date.now() + 15_000;
    while (api.pods().length > 1 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(podNames(), [`glance-${live.id} Running`]);
    assert.equal((await restarted.rejoin(live.id)).id, live.id, 'the live one can be rejoined');
  } finally {
    await restarted.removed(live.id, 1_000);
    restarted.close();
  }
});

test("'glance serve --backend kubernetes': a team's sandbox is a pod labelled with its team; a restarted server takes it up", async () => {
  const server = testState();
  const clientDir = fs.mkdtempSync(path.join(path.dirname(server.stateDir), 'kube-client-'));
  // process.env carries KUBECONFIG and the pod-ip access to the server.
  let serve = await serveProcess(server.stateDir, '127.0.0.1:0', ['--backend', 'kubernetes']);
  const pages = await fixtureServer();
  const client = new Client(server.apiKey, { apiRoot: serve.url, stateDir: clientDir, preview: 'none', logging: false });
  try {
    await client.auth();
    const instance = await client.connect({ keepAlive: 60_000 });
    assert.equal(instance.provider, 'kubernetes');
    // Found by its name: a pod of an earlier test may still be on its way out.
    const pod = api.pods().find((p) => p.metadata.name === `glance-${instance.instanceId}`)!;
    assert.ok(pod, 'a pod named after the sandbox');
    assert.equal(pod.metadata.labels['glance.team'], '1');
    assert.equal(pod.metadata.labels[SANDBOX_LABEL], instance.instanceId);
    await client.provision.chrome({ url: `${pages.url}/acme/signup.html` });
    assert.ok((await client.find('Create account button')).found());
    await client.disconnect();

    await serve.stop();
    serve = await serveProcess(server.stateDir, '127.0.0.1:0', ['--backend', 'kubernetes']);
    assert.match(serve.output(), /1 sandbox\(es\) still running taken up/);
    const again = new Client(server.apiKey, { apiRoot: serve.url, stateDir: clientDir, preview: 'none', logging: false });
    await again.auth();
    assert.equal((await again.connect({ sandboxId: instance.instanceId, keepAlive: 0 })).instanceId, instance.instanceId);
    assert.ok((await again.find('Create account button')).found(), 'the kept sandbox still shows the page');
    await again.disconnect();
    assert.deepEqual(podNames(), [], 'stopped through the server, the pod is deleted');
  } finally {
    await serve.stop();
    await pages.close();
  }
});
