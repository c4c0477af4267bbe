import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { kubeApiStandIn, KubeApiStandIn } from '../helpers/kube-api-stand-in';
import { newClient, testState } from '../helpers/glance';
import { SandboxError } from '../../lib/sdk';

// The kubernetes backend against a stand-in API server, where the cluster
// refuses: each refusal reaches the user as an error that names the cause
// and the fix. No pod starts here (test/containers/ runs pods for real).

let full: KubeApiStandIn;
let strict: KubeApiStandIn;

before(async () => {
  full = await kubeApiStandIn({ quotaPods: 0 });
  strict = await kubeApiStandIn({ acceptToken: 'another-token' });
});

after(async () => {
  await full?.close();
  await strict?.close();
  delete process.env.KUBECONFIG;
  delete process.env.GLANCE_KUBERNETES_NAMESPACE;
  delete process.env.GLANCE_KUBERNETES_ACCESS;
});

async function connectError(kubeconfig: string, env: Record<string, string> = {}): Promise<Error> {
  process.env.KUBECONFIG = kubeconfig;
  for (const name of ['GLANCE_KUBERNETES_NAMESPACE', 'GLANCE_KUBERNETES_ACCESS']) delete process.env[name];
  Object.assign(process.env, env);
  // A state folder of its own: a process keeps the cluster its backend first reached.
  const client = newClient(testState(), { sandboxBackend: 'kubernetes' });
  await client.auth();
  try {
    const error = await client.connect({ keepAlive: 0 }).then(() => null, (e: Error) => e);
    assert.ok(error instanceof SandboxError, `connect fails with a SandboxError, got ${error}`);
    return error;
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

test("a namespace whose ResourceQuota is used up refuses the pod, and the error names the quota and what to do", async () => {
  const error = await connectError(full.kubeconfig);
  assert.match(error.message, /exceeded quota: glance-sandboxes, requested: pods=1, used: pods=0, limited: pods=0/);
  assert.match(error.message, /ResourceQuota caps how many sandboxes run at once; wait for one to end, or raise the quota/);
});

test('credentials the API server does not accept, a namespace that does not exist, and a cluster that does not answer each say so', async () => {
  assert.match((await connectError(strict.kubeconfig)).message, /credentials were not accepted \(401\)/);
  assert.match((await connectError(full.kubeconfig, { GLANCE_KUBERNETES_NAMESPACE: 'nowhere' })).message, /namespaces "nowhere" not found\. Create the namespace/);
  const unreachable = path.join(path.dirname(full.kubeconfig), 'unreachable');
  fs.writeFileSync(unreachable, fs.readFileSync(full.kubeconfig, 'utf8').replace(full.url, 'https://127.0.0.1:1'));
  assert.match((await connectError(unreachable)).message, /could not list the sandboxes' pods in namespace 'glance'.*Check that the API server in KUBECONFIG .* is reachable/);
  assert.match((await connectError(full.kubeconfig, { GLANCE_KUBERNETES_ACCESS: 'tunnel' })).message, /GLANCE_KUBERNETES_ACCESS is 'tunnel'; use 'pod-ip' .* or 'port-forward'/);
});

test('a kubeconfig that names no cluster is refused before anything is asked of one', async () => {
  const empty = path.join(path.dirname(full.kubeconfig), 'empty');
  fs.writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  assert.match((await connectError(empty)).message, /found no cluster: set KUBECONFIG to a kubeconfig whose current context names one/);
});
