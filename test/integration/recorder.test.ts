import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { execFileSync, spawn } from 'child_process';
import type { Client, RecordedStep, Recorder } from '../../lib/sdk';
import { serveFolder } from '../../lib/util/static-server';
import { waitFor } from '../../lib/util/wait';
import { cleanupAfterFile, CUCUMBER_BIN, newClient, REPO_ROOT, testState } from '../helpers/glance';
import { matchingPhrases } from '../../steps/matching';

/**
 * The recorder, with a person played from outside Glance: xdotool sends input
 * to the sandbox's X display, as a person at the live preview or VNC would.
 * What is recorded is replayed by cucumber-js in a fresh sandbox.
 */
const state = testState();
const cleanup = cleanupAfterFile(state, after);
const root = fs.mkdtempSync(path.join(process.env.GLANCE_TEST_ROOT ?? os.tmpdir(), 'recorder-'));
fs.chmodSync(root, 0o755);

/** A person at the sandbox's display, by xdotool. */
function person(display: string) {
  return (...args: string[]) => execFileSync('xdotool', args, { env: { ...process.env, DISPLAY: display }, timeout: 10_000 });
}

/** Records while `act` plays the person; each gesture waits for the steps it should have made by then, as a person waits to see them. */
async function record(client: Client, act: (x: ReturnType<typeof person>, stepsReach: (n: number) => Promise<void>) => Promise<void>) {
  const events: RecordedStep[] = [];
  const logs: string[] = [];
  client.getEmitter().on('recorder:step', (step: RecordedStep) => events.push(step));
  client.getEmitter().on('log:info', (line: string) => logs.push(line));
  const recorder: Recorder = await client.record();
  const stepsReach = (n: number) => waitFor(`${n} recorded steps`, async () => recorder.steps.length >= n || undefined, { timeoutMs: 15_000, intervalMs: 20 }).then(() => undefined);
  await act(person(client.getInstance()!.display!), stepsReach);
  const gherkin = await recorder.stop();
  return { gherkin, events, logs, recorder };
}

/** Runs a feature file with cucumber-js in a fresh sandbox (this process keeps serving the pages meanwhile); resolves to its exit status and output. */
function replay(name: string, feature: string, env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  const file = path.join(root, `${name}.feature`);
  fs.writeFileSync(file, feature);
  const run = spawn(process.execPath, [CUCUMBER_BIN, file], {
    cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey, GLANCE_PREVIEW: 'none' },
  });
  let output = '';
  run.stdout.on('data', (d) => { output += d; });
  run.stderr.on('data', (d) => { output += d; });
  const bound = setTimeout(() => run.kill('SIGTERM'), 180_000);
  return new Promise((resolve) => run.on('close', (status) => {
    clearTimeout(bound);
    resolve({ status, output });
  }));
}

/** The step lines of recorded Gherkin, keyword dropped. */
const stepLines = (gherkin: string) => gherkin.split('\n').filter((l) => !l.trim().startsWith('#')).map((l) => l.replace(/^\s*(?:Given|When|Then|And|But)\s+/, ''));

test('fields filled and a button clicked by xdotool are recorded as steps that name the fields by their labels, keep the password out, and replay green', async () => {
  fs.writeFileSync(path.join(root, 'signup.html'), `<!doctype html><meta charset="utf-8"><title>Sign up</title>
    <style>body{font:18px sans-serif;margin:0} label{position:absolute;left:40px} input{position:absolute;left:200px;width:300px;height:32px;font-size:18px}
      button{position:absolute;left:200px;top:200px;font-size:18px;padding:6px 16px}</style>
    <label for="e" style="top:60px">Work email</label><input id="e" type="email" style="top:54px">
    <label for="p" style="top:120px">Password</label><input id="p" type="password" style="top:114px">
    <button id="b">Create account</button><p id="out" style="position:absolute;top:260px;left:40px"></p>
    <script>document.getElementById('b').onclick = () => {
      const ok = document.getElementById('p').value === 'Tr0ub4dor-3';
      document.getElementById('out').textContent = 'Welcome, ' + document.getElementById('e').value + (ok ? ', your account is ready' : ', wrong password');
    };</script>`);
  const server = await serveFolder(root);
  after(() => server.close());
  const url = `${server.url}/signup.html`;
  const client = newClient(state, { dashcam: false, logging: true });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  await client.provision.chrome({ url });

  const { gherkin, events, logs, recorder } = await record(client, async (x, stepsReach) => {
    x('mousemove', '350', '70', 'click', '1');
    await stepsReach(1);
    x('type', '--delay', '20', 'ada@example.com');
    x('mousemove', '350', '130', 'click', '1');
    await stepsReach(2);
    x('type', '--delay', '20', 'Tr0ub4dor-3');
    x('mousemove', '260', '215', 'click', '1');
    await stepsReach(3);
  });

  assert.equal(gherkin, [
    "When I type 'ada@example.com' into the 'Work email' field",
    "And I type '$PASSWORD' into the 'Password' field",
    "And I click the 'Create account' button",
  ].join('\n'));
  assert.deepEqual(recorder.secrets(), { PASSWORD: 'Tr0ub4dor-3' });
  // The password shows nowhere: not in the steps, their events, or the log.
  for (const where of [gherkin, JSON.stringify(events), logs.join('\n')]) assert.ok(!where.includes('Tr0ub4dor-3'), 'the typed password is never shown');
  // A click into a field that is then typed into is part of the typing step: its event says which one it replaced.
  assert.ok(events.some((e) => e.text.startsWith("I type 'ada@example.com'") && e.replaces !== undefined));
  for (const line of stepLines(gherkin)) assert.equal(matchingPhrases(line).length, 1, `'${line}' matches exactly one step`);

  const feature = [
    'Feature: Sign up', '', '  Scenario: Recorded sign-up', `    Given I open '${url}' in the browser`,
    ...gherkin.split('\n').map((l) => `    ${l}`),
    "    Then I should see 'Welcome, ada@example.com, your account is ready'", '',
  ].join('\n');
  const run = await replay('signup', feature, recorder.secrets());
  assert.equal(run.status, 0, run.output);
});
