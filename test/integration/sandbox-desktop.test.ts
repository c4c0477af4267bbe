import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { spawn } from 'child_process';
import { Client } from '../../lib/sdk';
import { processAlive, SandboxRegistry } from '../../lib/sandbox/registry';
import { sandboxRuntimeDir } from '../../lib/sandbox/runtime-dir';
import { cleanupAfterFile, newClient, REPO_ROOT, testState } from '../helpers/glance';
import { waitFor } from '../../lib/util/wait';
import { testFolder } from '../helpers/test-root';

/** Each sandbox is a clean desktop: its own home and buses, programs as an ordinary user, nothing left behind. */
const state = testState();
const registry = new SandboxRegistry(state.stateDir);
const cleanup = cleanupAfterFile(state, after);
const asRoot = process.getuid?.() === 0;

async function connected(options: Parameters<typeof newClient>[1] = {}, keepAlive = 0): Promise<Client> {
  const client = newClient(state, { dashcam: false, ...options });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive });
  return client;
}

const sh = (client: Client, code: string) => client.exec('sh', code).then((out) => out.trim());

test('every sandbox has its own home, XDG folders, temp folder and session bus, and dconf keeps its settings there', async () => {
  const realHome = os.homedir();
  const realDconf = path.join(realHome, '.config', 'dconf', 'user');
  const dconfBefore = fs.existsSync(realDconf) ? fs.statSync(realDconf).mtimeMs : null;
  const [a, b] = [await connected(), await connected()];
  const folders = async (client: Client) => JSON.parse(await sh(client, 'printf \'{"home":"%s","config":"%s","data":"%s","cache":"%s","state":"%s","tmp":"%s","run":"%s","bus":"%s","pwd":"%s"}\' "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME" "$TMPDIR" "$XDG_RUNTIME_DIR" "$DBUS_SESSION_BUS_ADDRESS" "$PWD"'));
  const [fa, fb] = [await folders(a), await folders(b)];
  const rootA = sandboxRuntimeDir(a.getInstance()!.instanceId);
  for (const [name, value] of Object.entries(fa)) {
    assert.ok(String(value).includes(rootA), `${name} (${value}) lies in the sandbox's folder ${rootA}`);
    assert.notEqual(value, (fb as Record<string, string>)[name], `${name} differs between two sandboxes`);
  }
  assert.equal(fa.pwd, fa.home, 'programs start in their home');
  // dconf is started by the sandbox's own session bus, with the sandbox's home: its database lands there.
  await sh(a, 'gsettings set org.gtk.Settings.FileChooser show-hidden true');
  await waitFor('dconf to write its database', () => fs.existsSync(path.join(fa.config, 'dconf', 'user')), { timeoutMs: 5000, intervalMs: 50 });
  assert.equal(await sh(b, 'gsettings get org.gtk.Settings.FileChooser show-hidden'), 'false', 'the other sandbox does not see the setting');
  assert.equal(fs.existsSync(realDconf) ? fs.statSync(realDconf).mtimeMs : null, dconfBefore, 'the machine\'s own dconf database is untouched');
  const id = a.getInstance()!.instanceId;
  await a.disconnect();
  await waitFor('the sandbox to stop', () => !processAlive(registry.read(id)!.pid), { timeoutMs: 10_000 });
  assert.equal(fs.existsSync(rootA), false, 'its folder goes with the sandbox');
  await b.disconnect();
});

test('programs run as the unprivileged sandbox user, who cannot write outside the sandbox; runAsRoot keeps root', { skip: !asRoot && 'Glance is not running as root here' }, async () => {
  const client = await connected();
  assert.equal(await sh(client, 'id -un'), 'glance-sandbox');
  assert.match(await sh(client, `touch ${REPO_ROOT}/glance-escape 2>&1; echo "exit $?"`), /Permission denied[\s\S]*exit 1/);
  assert.match(await sh(client, `touch ${os.homedir()}/glance-escape 2>&1; echo "exit $?"`), /exit 1/);
  assert.equal(await sh(client, 'touch "$HOME/inside" && echo ok'), 'ok');
  await client.disconnect();
  const root = await connected({ runAsRoot: true });
  assert.equal(await sh(root, 'id -u'), '0');
  await root.disconnect();
});

test('a page the sandbox\'s user may not read fails with why and what to do, not with the browser\'s "file not found"', { skip: !asRoot && 'Glance is not running as root here' }, async () => {
  const closed = testFolder('closed-');
  fs.writeFileSync(path.join(closed, 'page.html'), '<h1>private</h1>');
  const client = await connected();
  await assert.rejects(client.provision.chrome({ url: `file://${closed}/page.html` }), (e: Error) =>
    e.message.includes("user 'glance-sandbox'") && e.message.includes(`the folder ${closed} is closed to it`) && /chmod o\+x/.test(e.message) && /runAsRoot/.test(e.message));
  fs.chmodSync(closed, 0o755);
  await client.provision.chrome({ url: `file://${closed}/page.html` });
  await client.disconnect();
});

test('the home starts from the sandboxHome seed, and resetApps brings it back to the seed and ends every program started inside', async () => {
  const seed = testFolder('seed-');
  fs.mkdirSync(path.join(seed, '.config', 'demo'), { recursive: true });
  fs.writeFileSync(path.join(seed, '.config', 'demo', 'settings.ini'), 'theme=dark\n');
  fs.writeFileSync(path.join(seed, '.bookmarks'), 'https://example.test\n');
  const client = await connected({ sandboxHome: seed });
  assert.equal(await sh(client, 'cat "$XDG_CONFIG_HOME/demo/settings.ini" "$HOME/.bookmarks"'), 'theme=dark\nhttps://example.test');
  await sh(client, 'echo light > "$HOME/.config/demo/settings.ini"; touch "$HOME/left-behind" "$TMPDIR/scratch"');
  // A program that forks and exits, and a shell's background job: both outlive their parents.
  await sh(client, 'sh -c "sleep 600 >/dev/null 2>&1 &"; (setsid sleep 601 >/dev/null 2>&1 &); echo started');
  // Zombies have ended: they only wait for the machine's init to collect them.
  const sleepers = () => sh(client, 'ps -eo stat=,args= | grep -cE "^[^Z][^ ]* +sleep 60[01]$" || true').then(Number);
  assert.equal(await sleepers(), 2);
  await client.resetApps();
  assert.equal(await sleepers(), 0, 'reset ends what was started inside, forked or not');
  assert.equal(await sh(client, 'cat "$HOME/.config/demo/settings.ini"; ls -A "$HOME" | sort | tr "\\n" " "; ls -A "$TMPDIR" | wc -l'), 'theme=dark\n.bookmarks .cache .config .local 0');
  // A program started in the sandbox and left running ends with the sandbox too.
  await sh(client, '(setsid sleep 602 >/dev/null 2>&1 &); echo started');
  const pid = Number(await sh(client, 'pgrep -f "sleep 602"'));
  await client.disconnect();
  const ended = () => { try { return /\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return true; } };
  await waitFor('the sandbox\'s programs to end with it', ended, { timeoutMs: 10_000, intervalMs: 50 });
});

test('a bad sandboxHome names the option, the value and the fix', () => {
  assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir, sandboxHome: '/no/such/folder' }), (e: Error) =>
    /'sandboxHome'/.test(e.message) && /\/no\/such\/folder/.test(e.message) && /folder whose contents/.test(e.message));
  const saved = process.env.GLANCE_RUN_AS_ROOT;
  process.env.GLANCE_RUN_AS_ROOT = 'perhaps';
  try {
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), /GLANCE_RUN_AS_ROOT.*'perhaps'.*true or false/);
  } finally {
    if (saved === undefined) delete process.env.GLANCE_RUN_AS_ROOT;
    else process.env.GLANCE_RUN_AS_ROOT = saved;
  }
});

test('the self-hosted agent passes none of its secrets to the programs it starts', async () => {
  // The agent serves an existing display: a sandbox's, here.
  const host = await connected();
  const display = host.getInstance()!.display!;
  const token = 'agent-token-'.padEnd(32, 'x');
  const agent = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'agent', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DISPLAY: display, GLANCE_AGENT_TOKEN: token, GLANCE_API_KEY: state.apiKey, GLANCE_AI_API_KEY: 'sk-model-secret', GLANCE_TEST_VISIBLE: 'yes' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      agent.stdout!.on('data', (d: Buffer) => { out += d; const m = / on 127\.0\.0\.1:(\d+)/.exec(out); if (m) resolve(Number(m[1])); });
      agent.once('exit', (code) => reject(new Error(`the agent exited with ${code}: ${out}`)));
    });
    const previous = process.env.GLANCE_AGENT_TOKEN;
    process.env.GLANCE_AGENT_TOKEN = token;
    const client = newClient(state, { ip: `127.0.0.1:${port}`, dashcam: false });
    try {
      await client.auth();
      await client.connect();
      const env = await client.exec('sh', 'env');
      assert.match(env, /^GLANCE_TEST_VISIBLE=yes$/m, 'the machine\'s own environment is passed on');
      for (const secret of [token, state.apiKey, 'sk-model-secret']) assert.ok(!env.includes(secret), 'no secret reaches a program');
      await client.disconnect();
    } finally {
      if (previous === undefined) delete process.env.GLANCE_AGENT_TOKEN;
      else process.env.GLANCE_AGENT_TOKEN = previous;
    }
  } finally {
    agent.kill('SIGTERM');
    await new Promise((resolve) => agent.once('exit', resolve));
    await host.disconnect();
  }
});
