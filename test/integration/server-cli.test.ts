import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'child_process';
import { promisify } from 'util';
import fs from 'fs';
import path from 'path';
import { Client } from '../../lib/sdk';
import { fixtureServer, REPO_ROOT, testState } from '../helpers/glance';
import { serveProcess } from '../helpers/server-process';
import { processAlive, SandboxRegistry } from '../../lib/sandbox/registry';

// The team server as an admin sets it up and a team uses it: the admin commands, `glance serve` in its own
// process, and a check run from a folder outside the project, with the server killed and started again.
const state = testState();
const stateDir = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'server-'));
const outside = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'outside-'));
fs.chmodSync(outside, 0o755);
const glance = (...args: string[]) => spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), ...args, '--state', stateDir], { cwd: outside, encoding: 'utf8' });

after(() => {
  for (const record of new SandboxRegistry(stateDir).list().filter((r) => r.state === 'running' && processAlive(r.pid))) process.kill(record.pid, 'SIGTERM');
});

test('the admin commands add teams and keys, refuse bad input with the fix, and never print a stored key', () => {
  assert.match(glance('teams', 'add', 'qa', '--sandboxes', '2').stdout, /Team qa: at most 2 sandbox\(es\) at once/);
  assert.match(glance('teams', 'add', 'other').stdout, /Team other: no sandbox limit/);
  const bad = glance('teams', 'add', 'bad name!');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /Invalid team name 'bad name!'/);
  assert.match(glance('teams', 'add', 'qa', '--sandboxes', '0').stderr, /Invalid --sandboxes 0: give a whole number of at least 1/);
  assert.match(glance('keys', 'create', '--team', 'nobody').stderr, /No team 'nobody' \(teams: other, qa\)\. Add it with 'glance teams add nobody'/);
  assert.match(glance('keys', 'create', '--team', 'qa', '--colour', 'red').stderr, /does not take --colour/);
  const created = glance('keys', 'create', '--team', 'qa').stdout;
  const key = /^(glance_\S+)$/m.exec(created)![1];
  const listed = glance('keys', 'list', '--team', 'qa').stdout;
  assert.doesNotMatch(listed, new RegExp(key));
  assert.match(listed, new RegExp(`${key.slice(0, 11)}…`));
  assert.match(glance('teams', 'list').stdout, /qa\s+sandboxes: 2\s+keys: 1/);
  fs.writeFileSync(path.join(outside, 'keys.json'), JSON.stringify({ qa: key, other: /^(glance_\S+)$/m.exec(glance('keys', 'create', '--team', 'other').stdout)![1] }));
});

test('a check from outside the project: drive and find through the server, a bogus key and another team refused, a killed server taken up again with no sandbox lost, and the console at the root', async () => {
  const keys = JSON.parse(fs.readFileSync(path.join(outside, 'keys.json'), 'utf8'));
  const pages = await fixtureServer();
  let server = await serveProcess(stateDir);
  const port = new URL(server.url).port;
  try {
    const root = await fetch(`${server.url}/`);
    assert.equal(root.status, 200);
    assert.match(await root.text(), /Glance team console/);

    fs.writeFileSync(path.join(outside, 'check.js'), `
const { Client } = require(${JSON.stringify(REPO_ROOT)});
(async () => {
  const [apiRoot, page, qa, other] = process.argv.slice(2);
  const options = { apiRoot, preview: 'none', logging: false };
  const bogus = await new Client('glance_${'x'.repeat(43)}', options).auth().then(() => 'accepted', (e) => e.name);
  const client = new Client(qa, options);
  await client.auth();
  const { instanceId } = await client.connect({ keepAlive: 120000 });
  await client.provision.chrome({ url: page });
  const found = await client.find('Export button');
  await client.disconnect();
  const stranger = new Client(other, options);
  await stranger.auth();
  const rejoin = await stranger.connect({ sandboxId: instanceId }).then(() => 'joined', (e) => e.message);
  console.log(JSON.stringify({ bogus, instanceId, found: found.found(), rejoin }));
})().catch((e) => { console.error(e); process.exit(1); });
`);
    const check = await promisify(execFile)(process.execPath, ['check.js', server.url, `${pages.url}/app/studio.html`, keys.qa, keys.other], { cwd: outside, encoding: 'utf8', timeout: 120_000 });
    const outcome = JSON.parse(check.stdout.trim().split('\n').pop()!);
    assert.equal(outcome.bogus, 'AuthError');
    assert.equal(outcome.found, true);
    assert.match(outcome.rejoin, /No sandbox with id '.*' is known to your team/);

    // Killed outright mid-run: a session of a client stays usable once the server is back, and the sandbox was never lost.
    const client = new Client(keys.qa, { apiRoot: server.url, stateDir: path.join(outside, '.glance'), preview: 'none', logging: false });
    await client.auth();
    await client.connect({ sandboxId: outcome.instanceId, keepAlive: 0 });
    assert.ok((await client.find('Export button')).found());
    await server.stop('SIGKILL');
    const refused = await client.click(10, 10).then(() => 'clicked', (e: Error) => e.message);
    assert.match(refused, /the request was not sent, so it was not carried out/);
    server = await serveProcess(stateDir, `127.0.0.1:${port}`);
    assert.match(server.output(), /1 sandbox\(es\) still running taken up, 0 found ended/);
    assert.ok((await client.find('Export button')).found(), 'the find after the restart');
    await client.disconnect();
  } finally {
    await server.stop();
    await pages.close();
  }
});

test("the set-up in docs/server.md runs as written, in an empty folder", async () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'server.md'), 'utf8');
  const block = /<!-- runnable:[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(doc)![1];
  const lines = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
  const folder = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'docs-setup-'));
  const argsOf = (line: string) => line.replace(/^npx glance /, '').split(/\s+/);
  for (const line of lines.filter((l) => !l.includes(' serve '))) {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), ...argsOf(line)], { cwd: folder, encoding: 'utf8' });
    assert.equal(run.status, 0, `${line}: ${run.stderr}`);
  }
  // The server line, as written but on a free port: it serves the console.
  const serve = argsOf(lines.find((l) => l.includes(' serve '))!);
  const state_ = serve[serve.indexOf('--state') + 1];
  const server = await serveProcess(path.join(folder, state_));
  try {
    assert.equal((await fetch(`${server.url}/`)).status, 200);
    assert.match(server.output(), /state in .*team-state/);
  } finally {
    await server.stop();
  }
  assert.match(spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'teams', 'list', '--state', './team-state'], { cwd: folder, encoding: 'utf8' }).stdout, /qa\s+sandboxes: 4\s+keys: 1/);
});
