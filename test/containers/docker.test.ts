import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { fixtureServer, newClient, testState } from '../helpers/glance';
import { waitFor } from '../../lib/util/wait';
import { DockerProvider, SANDBOX_LABEL } from '../../lib/sandbox/docker-provider';
import { SandboxRegistry } from '../../lib/sandbox/registry';
import { Client, SandboxError } from '../../lib/sdk';
import { serveProcess } from '../helpers/server-process';

// The docker backend for real: sandboxes as containers of the image that
// 'glance image build' made (npm run test:containers builds it first).

const state = testState();
/** The state folders of the servers a test started: their containers go too. */
const otherStates: string[] = [];

/** Every container this suite's state folder started, running or not. */
function containers(stateDir = state.stateDir): string[] {
  const out = execFileSync('docker', ['ps', '-a', '--filter', `label=${SANDBOX_LABEL}`, '--filter', `label=glance.state-dir=${stateDir}`, '--format', '{{.Names}} {{.State}}'], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

after(() => {
  for (const line of containers().concat(...otherStates.map((dir) => containers(dir)))) execFileSync('docker', ['rm', '-f', line.split(' ')[0]], { stdio: 'ignore' });
});

test('a docker sandbox: a page, a find, a command, the tree and the clip, as in a local one; nothing is left after disconnect', async () => {
  const pages = await fixtureServer();
  const client = newClient(state, { sandboxBackend: 'docker', dashcam: true });
  try {
    await client.auth();
    const instance = await client.connect({ keepAlive: 0 });
    assert.equal(instance.provider, 'docker');
    assert.deepEqual(containers(), [`glance-${instance.instanceId} running`]);
    // The page is served on the host's loopback: the container shares the host's network.
    await client.provision.chrome({ url: `${pages.url}/acme/signup.html` });
    const button = await client.find('Create account button');
    assert.ok(button.found(), 'found on the page in the container');
    assert.match(await client.exec('sh', 'cat /etc/debian_version; echo "$TZ $LANG"'), /^12\.\d+\nUTC C\.UTF-8/);
    const tree = await client.requireAgent().a11ySnapshot();
    assert.ok(tree.nodes.some((n) => n.name === 'Create account'), "the page's accessibility tree is read in the container");
  } finally {
    await client.disconnect();
    await pages.close();
  }
  const clip = client.getRecording();
  assert.ok(clip && fs.statSync(clip.file).size > 1000, 'the dashcam clip is on this machine');
  assert.deepEqual(containers(), [], 'no container is left');
});

test('a container killed mid-scenario gives a clear error, and nothing is left running', async () => {
  const client = newClient(state, { sandboxBackend: 'docker' });
  await client.auth();
  const instance = await client.connect({ keepAlive: 0 });
  try {
    execFileSync('docker', ['kill', `glance-${instance.instanceId}`], { stdio: 'ignore' });
    // Docker's event marks it stopped, before the client asks anything of it.
    const registry = new SandboxRegistry(state.stateDir);
    await waitFor("Docker's event to mark the sandbox stopped", () => registry.read(instance.instanceId)?.state === 'stopped', { timeoutMs: 5000 });
    const error = await client.find('Anything', { timeout: 2_000 }).then(() => null, (e: Error) => e);
    assert.ok(error instanceof SandboxError, `the find fails with a SandboxError (${error})`);
    assert.match(error.message, new RegExp(`Sandbox '${instance.instanceId}' is gone: its container ended \\(exit code 137\\).*Connect again for a new sandbox`));
  } finally {
    await client.disconnect().catch(() => undefined);
  }
  assert.deepEqual(containers(), []);
  const again = newClient(state, { sandboxBackend: 'docker' });
  await again.auth();
  const rejoined = await again.connect({ sandboxId: instance.instanceId }).then(() => null, (e: Error) => e);
  assert.ok(rejoined instanceof SandboxError && /stopped|gone/.test(rejoined.message), String(rejoined));
});

test('after a restart of the owning process, its containers are found by their labels: live ones taken up, expired ones ended', async () => {
  const registry = new SandboxRegistry(state.stateDir);
  const spec = { width: 1024, height: 768, keepAlive: 120_000, environment: {}, vnc: false, accessibility: false };
  const kept = new DockerProvider(registry);
  const expiring = new DockerProvider(registry, undefined, 60_000);
  const live = await kept.create(spec);
  const expired = await expiring.create(spec);
  // The owning process ends without stopping them: its deadline timers go with it.
  kept.close();
  expiring.close();
  const restarted = new DockerProvider(registry);
  try {
    // Two minutes on: past the second one's deadline label, well within the first one's.
    const running = await restarted.reconcile(Date.now() + 120_000);
    assert.deepEqual(running, [live.id]);
    assert.equal(registry.read(expired.id)?.state, 'stopped');
    assert.match(registry.read(expired.id)?.stopReason ?? '', /past its deadline/);
    assert.deepEqual(containers(), [`glance-${live.id} running`]);
    assert.equal((await restarted.rejoin(live.id)).id, live.id, 'the live one can be rejoined');
  } finally {
    restarted.close();
    execFileSync('docker', ['rm', '-f', `glance-${live.id}`], { stdio: 'ignore' });
  }
});

test("'glance serve --backend docker': a team's sandbox is a container labelled with its team; a restarted server takes it up", async () => {
  const server = testState();
  otherStates.push(server.stateDir);
  const clientDir = fs.mkdtempSync(path.join(path.dirname(server.stateDir), 'docker-client-'));
  let serve = await serveProcess(server.stateDir, '127.0.0.1:0', ['--backend', 'docker']);
  const pages = await fixtureServer();
  const client = new Client(server.apiKey, { apiRoot: serve.url, stateDir: clientDir, preview: 'none', logging: false });
  try {
    await client.auth();
    const instance = await client.connect({ keepAlive: 60_000 });
    assert.equal(instance.provider, 'docker');
    const labels = JSON.parse(execFileSync('docker', ['inspect', '--format', '{{json .Config.Labels}}', `glance-${instance.instanceId}`], { encoding: 'utf8' }));
    assert.equal(labels['glance.team'], '1');
    assert.equal(labels[SANDBOX_LABEL], instance.instanceId);
    await client.provision.chrome({ url: `${pages.url}/acme/signup.html` });
    assert.ok((await client.find('Create account button')).found());
    await client.disconnect();

    await serve.stop();
    serve = await serveProcess(server.stateDir, '127.0.0.1:0', ['--backend', 'docker']);
    assert.match(serve.output(), /1 sandbox\(es\) still running taken up/);
    const again = new Client(server.apiKey, { apiRoot: serve.url, stateDir: clientDir, preview: 'none', logging: false });
    await again.auth();
    assert.equal((await again.connect({ sandboxId: instance.instanceId, keepAlive: 0 })).instanceId, instance.instanceId);
    assert.ok((await again.find('Create account button')).found(), 'the kept sandbox still shows the page');
    await again.disconnect();
    assert.deepEqual(containers(server.stateDir), [], 'stopped through the server, the container is gone');
  } finally {
    await serve.stop();
    await pages.close();
  }
});

test("a docker sandbox gets the client's environment, its sandboxHome seed, and runs programs as the sandbox's user unless runAsRoot", async () => {
  const seed = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'home-seed-'));
  fs.chmodSync(seed, 0o755);
  fs.writeFileSync(path.join(seed, 'seeded.txt'), 'from the seed\n', { mode: 0o644 });
  for (const runAsRoot of [false, true]) {
    const client = newClient(state, { sandboxBackend: 'docker', sandboxHome: seed, environment: { GLANCE_TEST_WORD: 'carried' }, runAsRoot });
    await client.auth();
    await client.connect({ keepAlive: 0 });
    try {
      const out = await client.exec('sh', 'cat "$HOME/seeded.txt"; echo "$GLANCE_TEST_WORD"; id -un');
      assert.equal(out.trim(), `from the seed\ncarried\n${runAsRoot ? 'root' : 'glance-sandbox'}`);
    } finally {
      await client.disconnect();
    }
  }
});
