import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { CUCUMBER_BIN as cucumberBin, REPO_ROOT, testState } from '../helpers/glance';

// Sandboxes started before their scenario: the worker's first while Cucumber
// loads, and the warm pool. Each run gets its own state folder, so the
// registry lists exactly the sandboxes that run started.
const states: string[] = [];
after(() => { for (const dir of states) fs.rmSync(dir, { recursive: true, force: true }); });

function run(feature: string, args: string[], env: Record<string, string> = {}): { stateDir: string; usedSandboxes: string[]; output: string } {
  const { stateDir, apiKey } = testState();
  states.push(stateDir);
  const file = path.join(stateDir, 'pool.feature');
  fs.writeFileSync(file, feature);
  const messages = path.join(stateDir, 'messages.ndjson');
  const result = spawnSync(process.execPath, [cucumberBin, file, '--format', `message:${messages}`, ...args], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000,
    env: { ...process.env, GLANCE_STATE_DIR: stateDir, GLANCE_API_KEY: apiKey, ...env },
  });
  const output = result.stdout + result.stderr;
  assert.equal(result.status, 0, output);
  const facts = fs.existsSync(messages) ? fs.readFileSync(messages, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
    .filter((m) => m.attachment?.body?.startsWith('Glance session:')).map((m) => /sandbox=([\w-]+)/.exec(m.attachment.body)![1]) : [];
  return { stateDir, usedSandboxes: facts, output };
}

interface Started { id: string; width: number; height: number; state: string; stopReason?: string }

/**
 * Every sandbox the run started, from its registry. A released sandbox ends
 * itself just after it answers the release, so the records are read once
 * each has stopped, or after 10 s, when a sandbox still running fails the test.
 */
async function startedSandboxes(stateDir: string): Promise<Started[]> {
  const dir = path.join(stateDir, 'sandboxes');
  const read = (): Started[] => (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((f) => /^sbx-[0-9a-f]+\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  const deadline = Date.now() + 10_000;
  while (read().some((s) => s.state !== 'stopped') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return read();
}

const scenario = (name: string, tags = '') => `  ${tags}\n  Scenario: ${name}\n    When I run 'true'\n`;

test('a sandbox is started while Cucumber loads: before any scenario asks for one, and never by a dry run', async () => {
  // No scenario matches the tags, so no Before hook runs: the one sandbox was started at load, and stopped at the end.
  const untouched = run(`Feature: Pool\n${scenario('Tagged away', '@elsewhere')}`, ['--tags', 'not @elsewhere']);
  const started = await startedSandboxes(untouched.stateDir);
  assert.equal(started.length, 1, JSON.stringify(started));
  assert.equal(started[0].state, 'stopped');
  assert.deepEqual(untouched.usedSandboxes, []);

  const dry = run(`Feature: Pool\n${scenario('Only listed')}`, ['--dry-run']);
  assert.deepEqual(await startedSandboxes(dry.stateDir), [], 'a dry run starts no sandbox');
});

test('the first scenario takes the sandbox started at load; one started for another resolution is dropped and a matching one started', async () => {
  const matching = run(`Feature: Pool\n${scenario('First')}`, []);
  const [only, ...more] = await startedSandboxes(matching.stateDir);
  assert.deepEqual(more, []);
  assert.deepEqual(matching.usedSandboxes, [only.id], 'the scenario ran in the sandbox started at load');

  const other = run(`Feature: Pool\n${scenario('Wide', '@resolution:1280x800')}`, []);
  const started = await startedSandboxes(other.stateDir);
  assert.equal(started.length, 2, JSON.stringify(started));
  const used = started.find((s) => s.id === other.usedSandboxes[0])!;
  const dropped = started.find((s) => s.id !== other.usedSandboxes[0])!;
  assert.deepEqual([used.width, used.height], [1280, 800]);
  assert.deepEqual([dropped.width, dropped.height], [1366, 768]);
  assert.ok(started.every((s) => s.state === 'stopped'), JSON.stringify(started));
  assert.match(dropped.stopReason ?? '', /keepAlive 0/, 'the dropped sandbox is stopped at once, not left to its keepAlive');
});

test('with reuse, a scenario back at a resolution the worker left takes the sandbox it kept there; beyond two resolutions the least recently used goes', async () => {
  const back = run(`Feature: Pool\n${scenario('Narrow')}${scenario('Wide', '@resolution:1280x800')}${scenario('Narrow again')}`, []);
  const [narrow, wide, again] = back.usedSandboxes;
  assert.equal(again, narrow, 'the third scenario went back to the first one\'s sandbox');
  assert.notEqual(wide, narrow);
  const started = await startedSandboxes(back.stateDir);
  assert.deepEqual(started.map((s) => s.id).sort(), [narrow, wide].sort(), JSON.stringify(started));
  assert.ok(started.every((s) => s.state === 'stopped' && /keepAlive 0/.test(s.stopReason ?? '')), `both are stopped when the worker ends: ${JSON.stringify(started)}`);

  const three = run(`Feature: Pool\n${scenario('A')}${scenario('B', '@resolution:1280x800')}${scenario('C', '@resolution:1024x768')}${scenario('A again')}`, []);
  const [a, b, c, aAgain] = three.usedSandboxes;
  assert.equal(new Set([a, b, c, aAgain]).size, 4, 'the first resolution\'s sandbox was stopped when a third came');
  const stoppedEarly = (await startedSandboxes(three.stateDir)).find((s) => s.id === a)!;
  assert.match(stoppedEarly.stopReason ?? '', /keepAlive 0/);
});

test('with --parallel only the workers start sandboxes, one each, never the coordinator', async () => {
  const parallel = run(`Feature: Pool\n${scenario('One')}${scenario('Two')}`, ['--parallel', '2']);
  const started = (await startedSandboxes(parallel.stateDir)).map((s) => s.id).sort();
  assert.equal(started.length, 2, `${started.length} sandboxes for 2 workers`);
  assert.deepEqual([...new Set(parallel.usedSandboxes)].sort(), started, 'each worker ran its scenario in the sandbox it started at load');
});

test('warmSandboxes: without reuse, each next scenario takes a sandbox started while the one before ran', async () => {
  const scenarios = `Feature: Pool\n${scenario('One')}${scenario('Two')}${scenario('Three')}`;
  const warm = run(scenarios, [], { GLANCE_REUSE_SANDBOX: 'false', GLANCE_WARM_SANDBOXES: '1' });
  const started = await startedSandboxes(warm.stateDir);
  assert.equal(new Set(warm.usedSandboxes).size, 3, 'a fresh sandbox per scenario');
  // The first from load, two taken from the pool, and the one still waiting at the end, stopped.
  assert.equal(started.length, 4, JSON.stringify(started));
  assert.ok(started.every((s) => s.state === 'stopped'), JSON.stringify(started));
  const unused = started.filter((s) => !warm.usedSandboxes.includes(s.id));
  assert.equal(unused.length, 1);
  assert.match(unused[0].stopReason ?? '', /keepAlive 0/);

  // Without the pool, the next scenarios start their own: no sandbox is left unused.
  const cold = run(scenarios, [], { GLANCE_REUSE_SANDBOX: 'false' });
  assert.equal((await startedSandboxes(cold.stateDir)).length, 3);
});

test('a bad warmSandboxes names the variable and the fix', async () => {
  const state = testState();
  states.push(state.stateDir);
  const file = path.join(state.stateDir, 'bad.feature');
  fs.writeFileSync(file, `Feature: Pool\n${scenario('One')}`);
  const result = spawnSync(process.execPath, [cucumberBin, file], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000,
    env: { ...process.env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey, GLANCE_WARM_SANDBOXES: 'lots' },
  });
  assert.notEqual(result.status, 0);
  assert.match(result.stdout + result.stderr, /GLANCE_WARM_SANDBOXES is 'lots'; use a whole number of sandboxes/);
  assert.deepEqual(await startedSandboxes(state.stateDir), [], 'nothing started with a setting that fails');
});
