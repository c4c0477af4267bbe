import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import http from 'http';
import path from 'path';
import { execFileSync, spawn, spawnSync } from 'child_process';
import type { Client } from '../../lib/sdk';
import type { CommandEvent } from '../../lib/client/command-runner';
import { SandboxRegistry } from '../../lib/sandbox/registry';
import { openDb } from '../../lib/store/db';
import { sleep } from '../../lib/util/wait';
import { FIXTURES, REPO_ROOT, cleanupAfterFile, newClient, sandboxTurns, testState } from '../helpers/glance';

// Evidence a session leaves: screenshots, the dashcam clip, redraw waits,
// analytics; and the environment its programs see. Real Xvfb, Chromium,
// ffmpeg and SQLite throughout.
const state = testState();
const registry = new SandboxRegistry(state.stateDir);
const clients = cleanupAfterFile(state, after);
// The tests take turns in one sandbox, each joining it fresh; one with its own environment starts its own.
const connected = sandboxTurns(state, clients);

/** A sandbox of the test's own, connected from this file: the dashcam names its clip after the file that connects. */
async function ownSandbox(): Promise<Client> {
  const client = newClient(state, { dashcam: true });
  clients.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  return client;
}

/** ffprobe's count of frames and duration in seconds. */
function probe(file: string): { frames: number; seconds: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames,codec_name:format=duration', '-of', 'json', file], { encoding: 'utf8' });
  const json = JSON.parse(out);
  assert.equal(json.streams[0].codec_name, 'h264');
  return { frames: Number(json.streams[0].nb_read_frames), seconds: Number(json.format.duration) };
}

const redrawLab = `file://${path.join(FIXTURES, 'redraw-lab.html')}`;

test('autoScreenshots: before, after and error, named <seq>-<action>-<phase>-L<line>-<description>, the folder cleared as the run starts', async () => {
  const folder = path.join(state.stateDir, 'screenshots', 'evidence.test');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'from-an-earlier-run.png'), 'old');
  const client = await connected({ autoScreenshots: true, dashcam: false });
  await client.provision.chrome({ url: 'data:text/html,<input autofocus>' }); // typing needs a window with the keyboard focus
  await client.click(10, 10);
  await client.type('hunter2-secret', { secret: true });
  await assert.rejects(client.exec('sh', 'exit 3'));
  await client.find('the button that says Continue to the payment page', { timeout: 0 });
  await client.disconnect(); // writes what the worker still holds
  const files = fs.readdirSync(folder).sort();
  assert.ok(!files.includes('from-an-earlier-run.png'), 'the earlier run is gone');
  assert.ok(files.some((f) => /^\d{4}-click-before-L\d+-10x10\.png$/.test(f)), files.join(', '));
  assert.ok(files.some((f) => /^\d{4}-click-after-L\d+-10x10\.png$/.test(f)));
  assert.ok(files.some((f) => /^\d{4}-type-after-L\d+-secret\.png$/.test(f)));
  assert.ok(files.some((f) => /^\d{4}-exec-error-L\d+-exit_3\.png$/.test(f)), 'a failed command leaves its error screenshot');
  assert.ok(files.every((f) => !f.includes('hunter2')), 'no secret in a file name');
  const line = Number(/-L(\d+)-/.exec(files.find((f) => f.includes('-click-before-'))!)![1]);
  assert.match(fs.readFileSync(__filename, 'utf8').split('\n')[line - 1], /client\.click\(10, 10\)/, 'L<line> is the caller\'s line');
  for (const file of files) {
    const png = fs.readFileSync(path.join(folder, file));
    assert.equal(png.subarray(1, 4).toString(), 'PNG', `${file} is a PNG`);
    assert.equal(png.readUInt32BE(16), 1366, `${file} is the whole screen`);
  }
  const find = files.find((f) => /^\d{4}-find-after-L\d+-/.test(f))!;
  assert.equal(find.replace(/^.*-L\d+-|\.png$/g, ''), 'the_button_that_says_Continue', 'the description, at most 30 characters');
});

test('dashcam: the session is recorded from connect to disconnect into a playable H.264 clip that ffprobe reads', async () => {
  const client = await ownSandbox();
  await client.provision.chrome({ url: redrawLab });
  await client.click(110, 50); // the panel slides in
  await sleep(1500);
  await client.disconnect();
  const clip = client.getRecording()!;
  assert.ok(clip, 'a clip was kept');
  assert.equal(clip.file, path.join(state.stateDir, 'recordings', 'evidence.test.mp4'));
  const { frames, seconds } = probe(clip.file);
  assert.ok(seconds >= 2, `the clip lasts the session (${seconds} s)`);
  assert.ok(Math.abs(frames / seconds - 10) < 2, `about 10 frames a second (${frames} frames in ${seconds} s)`);
  assert.ok(clip.startedAt && Math.abs(clip.startedAt - Date.now()) < 60_000, 'the clip knows when its first frame was taken');
  assert.ok(clip.bytes < 2_000_000, `small (${clip.bytes} bytes)`);
});

test('dashcam: ffmpeg dying mid-session is a warning, never a failure, and the clip keeps what was written', async () => {
  const client = await ownSandbox();
  const warnings: string[] = [];
  client.getEmitter().on('log:warn', (line: string) => warnings.push(line));
  await sleep(2500);
  const ffmpeg = execFileSync('pgrep', ['-f', `ffmpeg .*${client.getInstance()!.display} .*evidence.test-2\\.mp4`], { encoding: 'utf8' }).trim().split('\n')[0];
  process.kill(Number(ffmpeg), 'SIGKILL');
  await client.click(20, 20); // the test goes on
  await client.disconnect();
  assert.ok(warnings.some((w) => /dashcam: ffmpeg was killed \(SIGKILL\) during the recording/.test(w)), warnings.join('\n'));
  const clip = client.getRecording()!;
  assert.ok(clip, 'the partial clip is kept');
  assert.ok(probe(clip.file).frames >= 10, 'the fragments written before the crash play');
});

test('dashcam: a test process ended by Ctrl-C leaves a playable clip', async () => {
  // A plain script, as a user writes one, using Glance as a package.
  const script = path.join(state.stateDir, 'interrupted.js');
  fs.writeFileSync(script, `
    const { Client } = require(${JSON.stringify(REPO_ROOT)});
    (async () => {
      const client = new Client(${JSON.stringify(state.apiKey)}, { stateDir: ${JSON.stringify(state.stateDir)}, preview: 'none', logging: false });
      await client.auth();
      await client.connect({ keepAlive: 0 });
      console.log('connected ' + client.getInstance().instanceId);
      setInterval(() => undefined, 1000);
    })();
  `);
  const child = spawn(process.execPath, [script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const id = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { const m = /connected (\S+)/.exec(d.toString()); if (m) resolve(m[1]); });
    child.once('exit', (code) => reject(new Error(`the script exited (${code}) before it connected`)));
  });
  await sleep(2500);
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  const file = path.join(state.stateDir, 'recordings', 'interrupted.mp4');
  assert.ok(fs.existsSync(file), 'the clip is where the test keeps its clips');
  assert.ok(probe(file).frames >= 10, 'and it plays, though the test process is gone');
  process.kill(registry.read(id)!.pid, 'SIGTERM'); // the orphaned sandbox would end itself after its lease
});

test('redraw: a click on a still page returns at once; a click that starts a 300 ms animation returns once it is over', async () => {
  const client = await connected({ dashcam: false });
  await client.provision.chrome({ url: redrawLab });
  const events: CommandEvent[] = [];
  client.getEmitter().on('command:success', (e: CommandEvent) => events.push(e));

  // The wait the agent reports: the look window, not the quiet period or the timeout (the bench has the wall times).
  const still: number[] = [];
  for (let i = 0; i < 7; i++) {
    await client.click(900, 700);
    assert.equal(events.at(-1)!.redraw!.changed, false);
    still.push(events.at(-1)!.redraw!.waitedMs);
  }
  still.sort((a, b) => a - b);
  assert.ok(still[3] < 150, `a click on a still page is quick (median wait ${still[3]} ms)`);

  // A loaded machine may paint the click's first frame after the look window (35 ms): the panel then slides in
  // unwaited, so it is closed (at once: no transition) and the click tried again, up to three times.
  let animated = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    const t = performance.now();
    await client.click(110, 50);
    animated = performance.now() - t;
    if (events.at(-1)!.redraw!.changed) break;
    await sleep(400);
    await client.click(110, 50);
  }
  assert.ok(animated >= 300, `the click waited for the animation (${animated.toFixed(0)} ms)`);
  assert.equal(events.at(-1)!.redraw!.changed, true);
  assert.equal(events.at(-1)!.redraw!.settled, true);
  // Over: the screen no longer moves.
  const a = await client.captureScreen();
  await sleep(150);
  const b = await client.captureScreen();
  assert.ok(a.data.equals(b.data), 'the screen holds still once the click returned');
  await client.click(110, 50); // closes the panel at once (no transition)

  // Without redraw detection the click returns while the panel still moves
  // (seen at least once in three tries: a loaded machine can be slow to look).
  const bare = await connected({ dashcam: false, redraw: false });
  await bare.provision.chrome({ url: redrawLab });
  let moving = 0;
  for (let i = 0; i < 3 && !moving; i++) {
    await bare.click(110, 50);
    const c = await bare.captureScreen();
    await sleep(60);
    if (!c.data.equals((await bare.captureScreen()).data)) moving++;
    await sleep(400);
    await bare.click(110, 50);
  }
  assert.equal(moving, 1, 'without redraw, the click returned while the animation ran');
  await bare.disconnect();
  await client.disconnect();
});

test('redraw: a click that navigates returns once the next page is on the screen, though the page handles the click late', async () => {
  const client = await connected({ dashcam: false });
  await client.provision.chrome({ url: redrawLab });
  const events: CommandEvent[] = [];
  client.getEmitter().on('command:success', (e: CommandEvent) => events.push(e));
  // The button's handler is busy for 150 ms before it navigates: no pixel changes for longer than the look window.
  await client.click(120, 710);
  const after = await client.captureScreen();
  assert.equal(events.at(-1)!.redraw!.changed, true, 'the navigation counted as the redraw of the click');
  await sleep(300);
  assert.ok(after.data.equals((await client.captureScreen()).data), 'the click returned with the next page already painted, not the old one');
  await client.disconnect();
});

test('redraw: on a screen that never holds still, the wait ends at redraw.timeout and Glance says so once', async () => {
  const client = await connected({ dashcam: false, redraw: { timeout: 700 } });
  await client.provision.chrome({ url: redrawLab });
  const events: CommandEvent[] = [];
  const warnings: string[] = [];
  client.getEmitter().on('command:success', (e: CommandEvent) => events.push(e));
  client.getEmitter().on('log:warn', (line: string) => warnings.push(line));
  await client.click(600, 50); // starts the endless animation
  for (let i = 0; i < 2; i++) {
    const t = performance.now();
    await client.click(900, 700); // the page itself is still; the animation is not
    const took = performance.now() - t;
    const redraw = events.at(-1)!.redraw!;
    assert.equal(redraw.settled, false, `the screen kept moving (${i}: ${JSON.stringify(redraw)})`);
    assert.ok(redraw.waitedMs >= 650 && redraw.waitedMs <= 900, `the wait ended at the timeout (${redraw.waitedMs} ms)`);
    assert.ok(took < 3000, `the click returned (${took.toFixed(0)} ms)`);
  }
  const said = warnings.filter((w) => /still changing 700 ms after an action.*redraw\.timeout/.test(w));
  assert.equal(said.length, 1, `warned once: ${warnings.join(' | ')}`);
  await client.disconnect();
});

test('redraw: thresholds.network waits until the page\'s request is answered', async () => {
  let answerAfterMs = 700;
  let answered = false;
  const answers: NodeJS.Timeout[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/slow') return void answers.push(setTimeout(() => { answered = true; res.end('done'); }, answerAfterMs));
    res.setHeader('content-type', 'text/html');
    res.end('<body style="margin:0"><button style="width:300px;height:100px" onclick="fetch(\'/slow\')">Load</button></body>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  try {
    const client = await connected({ dashcam: false, redraw: { thresholds: { network: true } } });
    await client.provision.chrome({ url });
    const events: CommandEvent[] = [];
    client.getEmitter().on('command:success', (e: CommandEvent) => events.push(e));
    const t = performance.now();
    await client.click(150, 50);
    const waited = performance.now() - t;
    assert.ok(waited >= 650, `the click waited for the request (${waited.toFixed(0)} ms)`);
    assert.equal(events.at(-1)!.redraw!.networkQuiet, true);
    await client.disconnect();

    // The request now takes far longer than any click on a busy machine: the click must return while it is pending.
    answerAfterMs = 10_000;
    answered = false;
    const screenOnly = await connected({ dashcam: false });
    await screenOnly.provision.chrome({ url });
    const seen: CommandEvent[] = [];
    screenOnly.getEmitter().on('command:success', (e: CommandEvent) => seen.push(e));
    await screenOnly.click(150, 50);
    assert.equal(answered, false, 'without network watching, the click does not wait for the request');
    assert.equal(seen.at(-1)!.redraw!.networkQuiet, null);
    await screenOnly.disconnect();
  } finally {
    answers.forEach(clearTimeout);
    server.closeAllConnections();
    server.close();
  }
});

test('redraw: a bad option fails in the constructor with its name and the fix', () => {
  assert.throws(() => newClient(state, { redraw: { thresholds: { screen: 2 } } }), /redraw\.thresholds\.screen.*0 to 1, or false/);
  assert.throws(() => newClient(state, { redraw: { timeout: -5 } }), /redraw\.timeout/);
});

test('environment: exec, launched programs and Chromium see the variables', async () => {
  const client = await connected({ dashcam: false, environment: { GLANCE_TEST_GREETING: 'hello from the test' } });
  assert.equal((await client.exec('sh', 'echo "$GLANCE_TEST_GREETING"')).trim(), 'hello from the test');
  await client.provision.app({ command: 'echo "$GLANCE_TEST_GREETING" > "$HOME/app-environment.txt"; exec xmessage -geometry +100+100 environment' });
  assert.equal((await client.exec('sh', 'cat "$HOME/app-environment.txt"')).trim(), 'hello from the test');
  await client.provision.chrome({ url: 'data:text/html,<h1>environment</h1>' });
  // Chromium keeps its processes from being read by their own user: the test reads them as the machine's owner does.
  const home = (await client.exec('sh', 'printf %s "$HOME"')).trim();
  const environs = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${home}/`) ? fs.readFileSync(`/proc/${pid}/environ`, 'utf8') : '';
    } catch {
      return '';
    }
  });
  assert.ok(environs.some((env) => env.split('\0').includes('GLANCE_TEST_GREETING=hello from the test')), 'Chromium has the variable');
  assert.doesNotMatch(await client.exec('sh', 'env'), /GLANCE_API_KEY/, 'Glance\'s own key is not passed on');
  await client.disconnect();
});

test('analytics: each command is kept with its duration, outcome, cache hit and engine; glance stats sums them up; analytics: false keeps nothing', async () => {
  const runId = `test-run-${Date.now()}`;
  process.env.GLANCE_RUN_ID = runId;
  try {
    const client = await connected({ dashcam: false });
    await client.provision.chrome({ url: 'data:text/html,<button style="font-size:30px">Save changes</button>' });
    await client.find("the 'Save changes' button").click();
    await client.find('Nowhere to be seen', { timeout: 0 });
    await assert.rejects(client.exec('sh', 'exit 1'));
    await client.disconnect();

    const quiet = await connected({ dashcam: false, analytics: false });
    await quiet.click(5, 5);
    await quiet.disconnect();
  } finally {
    delete process.env.GLANCE_RUN_ID;
  }
  const db = openDb(state.stateDir);
  const rows = db.prepare('SELECT * FROM command_analytics WHERE run_id = ? ORDER BY id').all(runId) as any[];
  db.close();
  const commands = rows.map((r) => r.command);
  assert.deepEqual(commands.filter((c) => c === 'click'), ['click'], 'the analytics: false session kept nothing');
  const find = rows.find((r) => r.command === 'find' && r.outcome === 'success');
  assert.equal(find.description, "the 'Save changes' button");
  assert.ok(find.duration_ms > 0 && find.engine && find.cache_hit === 0, JSON.stringify(find));
  assert.equal(rows.find((r) => r.description === 'Nowhere to be seen').outcome, 'not-found');
  const failed = rows.find((r) => r.command === 'exec');
  assert.equal(failed.outcome, 'error');
  assert.equal(failed.error_name, 'ExecError');
  assert.ok(!JSON.stringify(rows).includes(state.apiKey), 'no key in the analytics');

  const stats = spawnSync(process.execPath, ['bin/glance.js', 'stats', '--runs', '1'], { cwd: REPO_ROOT, env: { ...process.env, GLANCE_STATE_DIR: state.stateDir }, encoding: 'utf8' });
  assert.equal(stats.status, 0, stats.stderr);
  assert.match(stats.stdout, new RegExp(`${runId}\\s+\\d+ commands, 1 failed, 1 not found`));
  assert.match(stats.stdout, /Locating: 2 finds, median [\d.]+ ms, p90 [\d.]+ ms, cache hits 0 \(0%\); engines: \S+ 1\n/);
  assert.match(stats.stdout, /Slowest descriptions[\s\S]*find 'the 'Save changes' button'/);
  const json = JSON.parse(spawnSync(process.execPath, ['bin/glance.js', 'stats', '--json', '--runs', '1'], { cwd: REPO_ROOT, env: { ...process.env, GLANCE_STATE_DIR: state.stateDir }, encoding: 'utf8' }).stdout);
  assert.equal(json.runs.length, 1);
});
