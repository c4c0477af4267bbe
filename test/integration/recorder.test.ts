import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { execFileSync, spawn } from 'child_process';
import { chromium, Page } from 'playwright-core';
import { findChromium } from '../../lib/sandbox/agent/launcher';
import { VisionServer } from '../support/vision-server';
import type { Box } from '../../lib/types/screen';
import { PNG } from 'pngjs';
import type { Client, RecordedStep, Recorder } from '../../lib/sdk';
import type { ClientOptions } from '../../lib/config/options';
import { serveFolder } from '../../lib/util/static-server';
import { waitFor } from '../../lib/util/wait';
import { cleanupAfterFile, CUCUMBER_BIN, newClient, REPO_ROOT, sandboxTurns, testState } from '../helpers/glance';
import { matchingPhrases } from '../../steps/matching';
import { testFolder } from '../helpers/test-root';

/**
 * The recorder, with a person played from outside Glance: xdotool sends input
 * to the sandbox's X display, as a person at the live preview or VNC would.
 * What is recorded is replayed by cucumber-js in a fresh sandbox.
 */
const state = testState();
const cleanup = cleanupAfterFile(state, after);
// The tests take turns in shared sandboxes, each joining one fresh.
const join = sandboxTurns(state, cleanup);
const root = testFolder('recorder-');
fs.chmodSync(root, 0o755);
/** The tests' pages, served for the whole file: the last test replays them all. */
const pages = serveFolder(root);
after(async () => (await pages).close());

/** A person at the sandbox's display, by xdotool. */
function person(display: string) {
  return (...args: string[]) => execFileSync('xdotool', args, { env: { ...process.env, DISPLAY: display }, timeout: 10_000 });
}

/** Records while `act` plays the person. */
async function record(client: Client, act: (x: ReturnType<typeof person>, looks: () => Promise<void>) => Promise<void>, looksBoundMs?: number) {
  const events: RecordedStep[] = [];
  const logs: string[] = [];
  client.getEmitter().on('recorder:step', (step: RecordedStep) => events.push(step));
  client.getEmitter().on('log:info', (line: string) => logs.push(line));
  const recorder: Recorder = await client.record();
  // A person looks before acting: each gesture waits until the recorder has caught up with the screen.
  await act(person(client.getInstance()!.display!), () => recorder.idle(looksBoundMs));
  const gherkin = await recorder.stop();
  return { gherkin, events, logs, recorder };
}

/** One of the tests' pages, written into the served folder and opened in the file's shared sandbox, joined fresh; `env` is the environment the client is made in (a vision model's). */
async function onPage(name: string, html: string, options: ClientOptions = {}, env: Record<string, string> = {}): Promise<{ client: Client; url: string }> {
  fs.writeFileSync(path.join(root, name), html);
  const url = `${(await pages).url}/${name}`;
  const settings: ClientOptions = { dashcam: false, ...options };
  const client = await join(settings, () => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      return newClient(state, settings);
    } finally {
      process.env = saved;
    }
  });
  await client.provision.chrome({ url });
  return { client, url };
}

/** Where an element stands, for the person's pointer, as xdotool takes it: found before recording starts, so no find runs while it records. */
async function centreOf(client: Client, description: string): Promise<[string, string]> {
  const element = await client.find(description);
  assert.ok(element.found(), description);
  return [String(Math.round(element.centerX!)), String(Math.round(element.centerY!))];
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

/** The scenarios recorded by the tests above the last, each with the end state it must reach: replayed together by the last test. */
const toReplay: { name: string; steps: string[]; env: Record<string, string> }[] = [];

/** The step lines of recorded Gherkin, keyword dropped. */
const stepLines = (gherkin: string) => gherkin.split('\n').filter((l) => !l.trim().startsWith('#')).map((l) => l.replace(/^\s*(?:Given|When|Then|And|But)\s+/, ''));

/** A sign-up form: the fields stand where the person's pointer goes. */
const SIGNUP_PAGE = `<!doctype html><meta charset="utf-8"><title>Sign up</title>
    <style>body{font:18px sans-serif;margin:0} label{position:absolute;left:40px} input{position:absolute;left:200px;width:300px;height:32px;font-size:18px}
      button{position:absolute;left:200px;top:200px;font-size:18px;padding:6px 16px}</style>
    <label for="e" style="top:60px">Work email</label><input id="e" type="email" style="top:54px">
    <label for="p" style="top:120px">Password</label><input id="p" type="password" style="top:114px">
    <button id="b">Create account</button><p id="out" style="position:absolute;top:260px;left:40px"></p>
    <script>document.getElementById('b').onclick = () => {
      const ok = document.getElementById('p').value === 'Tr0ub4dor-3';
      document.getElementById('out').textContent = 'Welcome, ' + document.getElementById('e').value + (ok ? ', your account is ready' : ', wrong password');
    };</script>`;

test('fields filled and a button clicked by xdotool are recorded as steps that name the fields by their labels, keep the password out (of the dashcam and the pictures too), and replay green', async () => {
  const { client, url } = await onPage('signup.html', SIGNUP_PAGE, { logging: true, dashcam: true });

  const { gherkin, events, logs, recorder } = await record(client, async (x, looks) => {
    x('mousemove', '350', '70', 'click', '1');
    await looks();
    x('type', '--delay', '20', 'ada@example.com');
    x('mousemove', '350', '130', 'click', '1');
    await looks();
    x('type', '--delay', '20', 'Tr0ub4dor-3');
    x('mousemove', '260', '215', 'click', '1');
    await looks();
  });

  // What appeared after the click is suggested as the check to make next: shown, not written.
  assert.deepEqual(recorder.suggestions, [{ afterStep: 5, keyword: 'Then', text: "I should see 'Welcome, ada@example.com, your account is ready'", description: "'Welcome, ada@example.com, your account is ready'" }]);
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

  // The password field is grey in the step's picture and all through the dashcam's clip; the email field is not.
  const [email, password] = [events.find((e) => e.text.includes("'Work email'"))!, events.find((e) => e.text.includes('$PASSWORD'))!];
  const picture = PNG.sync.read((await recorder.pictureOf(password.index))!);
  const greyShare = (rgb: (x: number, y: number) => number[], box: Box) => {
    let grey = 0;
    let all = 0;
    for (let y = box.y + 4; y < box.y + box.height - 4; y += 2) {
      for (let x = box.x + 4; x < box.x + box.width - 4; x += 4, all++) {
        const [r, g, b] = rgb(x, y);
        if ([r, g, b].every((v) => Math.abs(v - 128) <= 6)) grey++;
      }
    }
    return grey / all;
  };
  assert.ok(password.box && email.box);
  const { width } = await client.captureScreen();
  await client.disconnect();
  const clip = client.getRecording()!;
  const frame = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-sseof', '-1', '-i', clip.file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 16 * 1024 * 1024 });
  const inClip = (x: number, y: number) => [...frame.subarray((y * width + x) * 3, (y * width + x) * 3 + 3)];
  assert.ok(greyShare(inClip, password.box!) > 0.95, 'the password field is painted over in the clip');
  assert.ok(greyShare(inClip, email.box!) < 0.2, 'the email field is not');
  // The picture shows the screen around the field, scaled: find the field by its grey.
  const pictureRgb = (x: number, y: number) => [...picture.data.subarray((y * picture.width + x) * 4, (y * picture.width + x) * 4 + 3)];
  const greyInPicture = Array.from({ length: picture.width * picture.height }, (_, i) => pictureRgb(i % picture.width, Math.floor(i / picture.width))).filter((c) => c.every((v) => v === 128)).length;
  assert.ok(greyInPicture > password.box!.width * password.box!.height * 0.3, `the password field is grey in its step's picture (${greyInPicture} grey pixels)`);

  toReplay.push({
    name: 'Recorded sign-up', env: recorder.secrets(),
    steps: [`Given I open '${url}' in the browser`, ...gherkin.split('\n'), "Then I should see 'Welcome, ada@example.com, your account is ready'"],
  });
});

const FILES_PAGE = `<!doctype html><meta charset="utf-8"><title>Files</title>
<style>body{font:18px sans-serif;margin:0;height:2000px} table{position:absolute;left:40px;top:30px;border-collapse:collapse} td{padding:6px 16px;border-bottom:1px solid #ccc}
.card{position:absolute;padding:10px 18px;border:1px solid #888;background:#eef;user-select:none} #archive{position:absolute;left:600px;top:250px;width:200px;height:90px;border:2px dashed #888;text-align:center;line-height:90px}
#menu{position:absolute;display:none;background:#fff;border:1px solid #444;box-shadow:2px 2px 6px #888} #menu div{padding:6px 24px}
#status{position:fixed;left:40px;top:420px} #more{position:absolute;left:40px;top:1500px;font-size:18px;padding:6px 16px}</style>
<table><tr><td>Alice</td><td>Admin</td><td><button>Edit</button></td></tr><tr><td>Bob</td><td>Viewer</td><td><button>Edit</button></td></tr><tr><td>Carol</td><td>Editor</td><td><button>Edit</button></td></tr></table>
<div class="card" id="report" style="left:40px;top:260px">Report.pdf</div>
<div class="card" id="notes" style="left:240px;top:260px">Notes.txt</div>
<div id="archive">Archive</div>
<div id="menu" role="menu"><div role="menuitem">Rename</div><div role="menuitem">Delete</div></div>
<p id="status">Nothing done</p>
<button id="more">Load more</button>
<script>
const status = document.getElementById('status'); const done = [];
const say = (t) => { done.push(t); status.textContent = done.join('; '); };
document.querySelectorAll('button:not(#more)').forEach((b) => b.onclick = () => say('Editing ' + b.closest('tr').cells[0].textContent));
const report = document.getElementById('report'); let drag = null;
report.addEventListener('mousedown', (e) => { drag = { dx: e.clientX - report.offsetLeft, dy: e.clientY - report.offsetTop }; e.preventDefault(); });
addEventListener('mousemove', (e) => { if (drag) { report.style.left = (e.clientX - drag.dx) + 'px'; report.style.top = (e.clientY - drag.dy) + 'px'; } });
addEventListener('mouseup', (e) => { if (!drag) return; drag = null; const a = document.getElementById('archive').getBoundingClientRect();
  if (e.clientX >= a.left && e.clientX <= a.right && e.clientY >= a.top && e.clientY <= a.bottom) { report.remove(); say('Archived Report.pdf'); } });
const menu = document.getElementById('menu');
document.getElementById('notes').addEventListener('contextmenu', (e) => { e.preventDefault(); menu.style.left = e.pageX + 'px'; menu.style.top = e.pageY + 'px'; menu.style.display = 'block'; });
menu.querySelectorAll('div').forEach((d) => d.onclick = () => { menu.style.display = 'none'; say(d.textContent + 'd Notes.txt'); });
document.getElementById('more').onclick = () => say('Loaded more');
</script>`;

test('a click in a table row, a drag, a context menu, a scroll and a click below it are recorded in the words a person would use, and replay green', async () => {
  const { client, url } = await onPage('files.html', FILES_PAGE);
  const centre = (description: string) => centreOf(client, description);
  const [editX, editY] = await centre("the third 'Edit' button");
  const [reportX, reportY] = await centre("'Report.pdf'");
  const [archiveX, archiveY] = await centre("'Archive'");
  const [notesX, notesY] = await centre("'Notes.txt'");

  const { gherkin } = await record(client, async (x, looks) => {
    x('mousemove', editX, editY, 'click', '1');
    await looks();
    x('mousemove', reportX, reportY, 'mousedown', '1', 'mousemove', String(+reportX + 40), reportY, 'mousemove', archiveX, archiveY, 'mouseup', '1');
    await looks();
    x('mousemove', notesX, notesY, 'click', '3');
    await looks();
    // The menu opens where the pointer is: its second item, 'Delete', stands below it.
    x('mousemove', String(+notesX + 40), String(+notesY + 62), 'click', '1');
    await looks();
    x('mousemove', '700', '500', 'click', '--repeat', '10', '--delay', '30', '5');
    await looks();
    const more = await client.find("'Load more'");
    x('mousemove', String(Math.round(more.centerX!)), String(Math.round(more.centerY!)), 'click', '1');
  });

  const lines = gherkin.split('\n');
  assert.deepEqual(lines.slice(0, 4), [
    "When I click the 'Edit' button in the row of 'Carol'",
    "And I drag 'Report.pdf' to 'Archive'",
    "And I right-click 'Notes.txt'",
    "And I click the 'Delete' menu item",
  ]);
  // The button was below the screen before the scroll: the scroll is written as bringing it into view.
  // Chromium moves its tree's boxes some time after a scroll: until it has, the words read on the pixels name the button.
  const button = lines[5] === "And I click 'Load more'" ? "'Load more'" : "the 'Load more' button";
  assert.deepEqual(lines.slice(4), [`And I scroll down until I see ${button}`, `And I click ${button}`]);
  for (const line of stepLines(gherkin)) assert.equal(matchingPhrases(line).length, 1, `'${line}' matches exactly one step`);
  toReplay.push({
    name: 'Recorded file work', env: {},
    steps: [`Given I open '${url}' in the browser`, ...lines, "Then I should see 'Editing Carol; Archived Report.pdf; Deleted Notes.txt; Loaded more'"],
  });
});

test('a gesture whose input reaches the recorder after the screen has shown its effect is described on the screen before it', async () => {
  const { client } = await onPage('files-late.html', FILES_PAGE);
  const [reportX, reportY] = await centreOf(client, "'Report.pdf'");
  const [archiveX, archiveY] = await centreOf(client, "'Archive'");
  // A loaded machine, made certain: the recorder's reads of input answer 600 ms late, long after the drag has
  // removed the card and the screen has held still (the recorder looks at a screen held still for 100 ms).
  const agent = client.requireAgent();
  const call = agent.call.bind(agent);
  agent.call = (async (method, route, ...rest) => {
    const answer = await call(method, route, ...rest);
    if (route.startsWith('/record/events') && !route.endsWith('timeoutMs=0') && (answer as { events: unknown[] }).events.length) await new Promise((r) => setTimeout(r, 600));
    return answer;
  }) as typeof agent.call;
  const { gherkin } = await record(client, async (x, looks) => {
    x('mousemove', reportX, reportY, 'mousedown', '1', 'mousemove', String(+reportX + 40), reportY, 'mousemove', archiveX, archiveY, 'mouseup', '1');
    await looks();
  });
  assert.ok((await client.find("'Archived Report.pdf'")).found(), 'the drag was done on the page');
  assert.equal(gherkin, "When I drag 'Report.pdf' to 'Archive'");
});

/** A project of its own, with Glance's steps through its cucumber.js, and a feature file opening the sign-up page in its Background. */
async function signupProject(scenarios: string): Promise<{ project: string; feature: string; before: string }> {
  const project = fs.mkdtempSync(path.join(root, 'project-'));
  fs.writeFileSync(path.join(project, 'cucumber.js'), `module.exports = { default: require(${JSON.stringify(path.join(REPO_ROOT, 'support', 'cucumber'))}).profile({ format: ['progress'] }) };\n`);
  fs.writeFileSync(path.join(root, 'signup.html'), SIGNUP_PAGE);
  const feature = path.join(project, 'features', 'accounts.feature');
  fs.mkdirSync(path.dirname(feature));
  const before = `# Accounts\nFeature: Accounts\n\n  Background:\n    Given I open '${(await pages).url}/signup.html' in the browser\n\n${scenarios}`;
  fs.writeFileSync(feature, before);
  return { project, feature, before };
}

/** Runs `glance record` in the project; `play` acts as the person once it records, then Ctrl+C stops it. Resolves to its output. */
async function recordCli(project: string, args: string[], play: (x: ReturnType<typeof person>, printed: (pattern: RegExp) => Promise<RegExpExecArray>) => Promise<void>): Promise<string> {
  const cli = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'record', ...args], {
    cwd: project, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey, GLANCE_PREVIEW: 'none' },
  });
  let output = '';
  cli.stdout.on('data', (d) => { output += d; });
  cli.stderr.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => cli.on('close', resolve));
  const printed = (pattern: RegExp) => waitFor(`the recorder to print ${pattern}`, async () => pattern.exec(output) ?? undefined, { timeoutMs: 90_000, intervalMs: 50 });
  try {
    const display = (await printed(/Recording in sandbox \S+ \(display (:\d+)\)/))[1];
    await play(person(display), printed);
    cli.kill('SIGINT');
    assert.equal(await exited, 0, output);
  } finally {
    cli.kill('SIGKILL');
  }
  assert.match(output, /The scenario replayed green/);
  return output;
}

test('glance record writes the scenario after the last one of a feature file, replays it first, and keeps the password in .env.example as a name only', async () => {
  const { project, feature, before } = await signupProject("  Scenario: The form is there\n    Then I should see 'Work email'\n");
  const url = `${(await pages).url}/signup.html`;
  const output = await recordCli(project, ['--url', url, '--feature', feature, '--scenario', 'Sign up'], async (x, printed) => {
    x('mousemove', '350', '70', 'click', '1');
    await printed(/step 1: /);
    x('type', '--delay', '20', 'ada@example.com');
    x('mousemove', '350', '130', 'click', '1');
    await printed(/step 3: /);
    x('type', '--delay', '20', 'Tr0ub4dor-3');
    x('mousemove', '260', '215', 'click', '1');
    await printed(/step 5: /);
  });
  assert.ok(!output.includes('Tr0ub4dor-3'), 'the password is never printed');
  const written = fs.readFileSync(feature, 'utf8');
  assert.equal(written, `${before}\n  Scenario: Sign up\n    When I type 'ada@example.com' into the 'Work email' field\n    And I type '$PASSWORD' into the 'Password' field\n    And I click the 'Create account' button\n`);
  assert.equal(fs.readFileSync(path.join(project, '.env.example'), 'utf8'), 'PASSWORD=\n');
  assert.ok(!fs.existsSync(path.join(project, '.env')), 'values are saved only when asked');
});

test('glance record --from FILE:LINE replays the scenario up to that step, records on from there, and puts the steps after it', async () => {
  const scenario = "  Scenario: Sign up in two goes\n    When I type 'ada@example.com' into the 'Work email' field\n    Then I should see 'Create account'\n";
  const { project, feature, before } = await signupProject(scenario);
  const line = before.split('\n').findIndex((l) => l.includes("into the 'Work email' field")) + 1;
  const output = await recordCli(project, ['--from', `${feature}:${line}`, '--save-secrets'], async (x, printed) => {
    x('mousemove', '350', '130', 'click', '1');
    await printed(/step 1: /);
    x('type', '--delay', '20', 'Tr0ub4dor-3');
    x('mousemove', '260', '215', 'click', '1');
    await printed(/step 3: /);
  });
  assert.match(output, /Replaying 'Sign up in two goes' up to line \d+/);
  assert.equal(fs.readFileSync(feature, 'utf8'), before.replace("field\n    Then", "field\n    And I type '$PASSWORD' into the 'Password' field\n    And I click the 'Create account' button\n    Then"));
  // Saved where asked, and kept out of git.
  assert.match(fs.readFileSync(path.join(project, '.env'), 'utf8'), /^PASSWORD='Tr0ub4dor-3'$/m);
  assert.match(fs.readFileSync(path.join(project, '.gitignore'), 'utf8'), /^\.env$/m);
});

/** Records on a desktop program started by `command`, the person's pointer going where `targets` were found before recording. */
async function recordOnProgram(command: string, targets: string[], act: (x: ReturnType<typeof person>, at: Record<string, string[]>, looks: () => Promise<void>) => Promise<void>, options = {}) {
  const client = await join({ dashcam: false, environment: { PATH: `${path.join(REPO_ROOT, 'features', 'fixtures', 'bin')}:${process.env.PATH}` }, ...options });
  await client.provision.app({ command });
  const at: Record<string, string[]> = {};
  for (const target of targets) {
    const element = await client.find(target);
    assert.ok(element.found(), target);
    at[target] = [String(Math.round(element.centerX!)), String(Math.round(element.centerY!))];
  }
  const result = await record(client, (x, looks) => act(x, at, looks));
  await client.disconnect();
  return result;
}

test('on a Tk program, which has no tree, fields are named by the labels read beside them and buttons by their text', async () => {
  const { gherkin } = await recordOnProgram('stockroom', ["the 'Item' field", "the 'Quantity' field", "'Add item'"], async (x, at, looks) => {
    x('mousemove', ...at["the 'Item' field"], 'click', '1');
    await looks();
    x('type', '--delay', '20', 'Bolts');
    x('mousemove', ...at["the 'Quantity' field"], 'click', '1');
    await looks();
    x('type', '--delay', '20', '12');
    x('mousemove', ...at["'Add item'"], 'click', '1');
  });
  assert.equal(gherkin, [
    "When I type 'Bolts' into the 'Item' field",
    "And I type '12' into the 'Quantity' field",
    "And I click 'Add item'",
  ].join('\n'));
  toReplay.push({ name: 'Recorded stock', env: {}, steps: ["Given I launch 'stockroom'", ...gherkin.split('\n'), "Then I should see 'Bolts x 12'", "And I should see '1 item(s) in stock'"] });
});

test('on a GTK dialog, the tree names the fields and the button, and a password typed there stays a $NAME', async () => {
  // The dialog prints what was entered; the sandbox's home is where its programs may write.
  const command = 'zenity --forms --title=Order --text=Order --add-entry=Name --add-password=PIN --ok-label=Place > $HOME/order.txt';
  const { gherkin, recorder } = await recordOnProgram(command, ["the 'Name' field", "the 'PIN' field", "the 'Place' button"], async (x, at, looks) => {
    x('mousemove', ...at["the 'Name' field"], 'click', '1');
    await looks();
    x('type', '--delay', '20', 'Ada');
    x('mousemove', ...at["the 'PIN' field"], 'click', '1');
    await looks();
    x('type', '--delay', '20', '4711');
    x('mousemove', ...at["the 'Place' button"], 'click', '1');
  });
  assert.equal(gherkin, [
    "When I type 'Ada' into the 'Name' field",
    "And I type '$PIN' into the 'PIN' field",
    "And I click the 'Place' button",
  ].join('\n'));
  assert.deepEqual(recorder.secrets(), { PIN: '4711' });
  toReplay.push({
    name: 'Recorded order', env: recorder.secrets(),
    steps: [`Given I launch '${command}'`, ...gherkin.split('\n'), "Then I run 'cat $HOME/order.txt'", "And the command output should contain 'Ada|4711'"],
  });
});

test("two dialogs with the same button: find takes 'in the 'X' dialog', and the recorder writes it where the button's name alone finds the other one", async () => {
  const client = await join({ dashcam: false });
  const dialog = (title: string, x: number) => `yad --title=${title} --text='${title} details' --button=OK:0 --geometry=360x160+${x}+200 --fixed`;
  await client.provision.app({ command: dialog('Billing', 80) });
  await client.provision.app({ command: dialog('Shipping', 700) });
  const billing = await client.find("the 'OK' button in the 'Billing' window");
  const shipping = await client.find("the 'OK' button in the 'Shipping' window");
  assert.ok(billing.found() && shipping.found());
  assert.ok(billing.centerX! < 683 && shipping.centerX! > 683, `each dialog's own button (${billing.centerX}, ${shipping.centerX})`);
  const missing = await client.find("the 'OK' button in the 'Invoices' window", { timeout: 0 });
  assert.ok(!missing.found());
  assert.match(String(missing.reason), /no window titled 'Invoices' is on the screen \(windows: .*'Billing'.*\)/);

  // The button's name alone finds one of them; a click on the other needs the window's words.
  const plain = await client.find("the 'OK' button");
  assert.ok(plain.found(), plain.reason ?? '');
  const [other, title] = plain.centerX! < 683 ? [shipping, 'Shipping'] : [billing, 'Billing'];
  const { gherkin } = await record(client, async (x) => {
    x('mousemove', String(Math.round(other.centerX!)), String(Math.round(other.centerY!)), 'click', '1');
  });
  assert.equal(gherkin, `When I click the 'OK' button in the '${title}' window`);
});

/** Drafts: a checkbox with its label, items opened by a double-click, Ctrl+S to save. */
const DRAFTS_PAGE = `<!doctype html><meta charset="utf-8"><title>Drafts</title>
  <style>body{font:18px sans-serif;margin:40px} li{padding:6px;cursor:default;user-select:none} #status{margin-top:30px}</style>
  <label><input type="checkbox" id="updates"> Email me updates</label>
  <ul><li>Draft 1</li><li>Draft 2</li><li>Draft 3</li></ul>
  <p id="status">Nothing saved</p>
  <script>
    let open = 'none';
    document.querySelectorAll('li').forEach((li) => li.addEventListener('dblclick', () => { open = li.textContent; document.getElementById('status').textContent = 'Editing ' + open; }));
    addEventListener('keydown', (e) => {
      if (!(e.ctrlKey && e.key === 's')) return;
      e.preventDefault();
      document.getElementById('status').textContent = 'Saved ' + open + (document.getElementById('updates').checked ? ' with updates on' : '');
    });
  </script>`;

test('a checkbox clicked by its label, a double-click and a shortcut are recorded as the library writes them', async () => {
  const { client, url } = await onPage('drafts.html', DRAFTS_PAGE);
  const label = await client.find("'Email me updates'");
  const draft = await client.find("'Draft 2'");
  const { gherkin } = await record(client, async (x, looks) => {
    x('mousemove', String(Math.round(label.centerX!)), String(Math.round(label.centerY!)), 'click', '1');
    await looks();
    x('mousemove', String(Math.round(draft.centerX!)), String(Math.round(draft.centerY!)), 'click', '--repeat', '2', '--delay', '80', '1');
    await looks();
    x('key', 'ctrl+s');
    await looks();
  });
  assert.equal(gherkin, [
    "When I click the 'Email me updates' checkbox",
    "And I double-click 'Draft 2'",
    "And I press 'ctrl+s'",
  ].join('\n'));
  toReplay.push({ name: 'Recorded drafts', env: {}, steps: [`Given I open '${url}' in the browser`, ...gherkin.split('\n'), "Then I should see 'Saved Draft 2 with updates on'"] });
});

// Page code runs in the browser; the tests compile without the DOM's types.
declare const document: any;

const NOTES_PAGE = `<!doctype html><meta charset="utf-8"><title>Notes</title>
<style>body{font:18px sans-serif;margin:0} button{position:absolute;top:40px;font-size:18px;padding:6px 16px} p{position:absolute;left:40px}</style>
<button id="save" style="left:40px">Save</button><button id="publish" style="left:200px">Publish</button>
<p id="status" style="top:120px">Nothing saved</p><p id="tip" style="top:200px"></p>
<script>let saves = 0;
document.getElementById('save').onclick = () => { saves++; document.getElementById('status').textContent = 'Saved ' + saves + (saves > 1 ? ' times' : ' time'); };
document.getElementById('publish').onmouseenter = () => { document.getElementById('tip').textContent = 'Publishing is final'; };</script>`;

test("in the live preview: the person uses the app on the page's screen, the steps are listed with their pictures, and checks, hover, delete, undo, re-pick and Stop are done there", async () => {
  const { client, url } = await onPage('notes.html', NOTES_PAGE, { preview: 'ide' });
  const [save, publish, blank] = [await client.find("the 'Save' button"), await client.find("the 'Publish' button"), { centerX: 900, centerY: 600 }];
  const display = client.getInstance()!.display!;
  const viewOnly = () => /viewonly:1/.test(execFileSync('x11vnc', ['-display', display, '-Q', 'viewonly'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }));
  assert.ok(viewOnly(), 'the preview takes no input before recording');

  const recorder = await client.record();
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1800, height: 900 } });
    await page.goto(`${client.getPreviewUrl()}&fit=0`);
    await page.waitForSelector('body[data-state="connected"][data-recording="on"]', { timeout: 15_000 });
    /** A click on the preview's screen at a point of the sandbox's screen. */
    const clickScreen = async (at: { centerX: number | null; centerY: number | null }) => {
      const box = (await page.locator('#screen canvas').boundingBox())!;
      await page.mouse.click(box.x + at.centerX!, box.y + at.centerY!);
    };
    const listed = (p: Page) => p.$$eval('#steps li .text', (items: any[]) => items.map((i) => i.textContent));
    const untilListed = async (lines: string[]) => {
      await page.waitForFunction((want: string[]) => [...document.querySelectorAll('#steps li .text')].map((i: any) => i.textContent).join('\n') === want.join('\n'), lines, { timeout: 15_000 })
        .catch(async () => assert.deepEqual(await listed(page), lines));
    };

    // Input through the page's screen reaches the app and is recorded; the step shows its picture.
    await page.waitForFunction(() => !document.querySelector('canvas') || document.querySelector('canvas').width > 100);
    await clickScreen(save);
    await untilListed(["When I click the 'Save' button"]);
    assert.ok((await client.find("'Saved 1 time'", { timeout: 5000 })).found(), 'the click on the page reached the app');
    await page.waitForFunction(() => document.querySelector('#steps li img')?.naturalWidth >= 300, undefined, { timeout: 10_000 });

    // The suggested check is taken with its Add button.
    await page.locator('#suggestions button').first().click({ timeout: 15_000 });
    await untilListed(["When I click the 'Save' button", "Then I should see 'Saved 1 time'"]);

    // A check by pointing: the click goes to the recorder, not to the app (the button is not pressed again).
    await page.click('#tools [data-mode="see"]');
    await clickScreen(save);
    await untilListed(["When I click the 'Save' button", "Then I should see 'Saved 1 time'", "Then I should see the 'Save' button"]);
    assert.equal(await client.find("'Saved 2 times'", { timeout: 0 }).then((e) => e.found()), false, "the check's click did not reach the app");

    // Delete, then undo brings it back; delete it again for good.
    const deleteStep = (text: string) => page.locator('#steps li', { hasText: text }).locator('button', { hasText: 'Delete' }).click();
    await deleteStep("I should see the 'Save' button");
    await untilListed(["When I click the 'Save' button", "Then I should see 'Saved 1 time'"]);
    await page.click('#undo');
    await untilListed(["When I click the 'Save' button", "Then I should see 'Saved 1 time'", "Then I should see the 'Save' button"]);
    await deleteStep("I should see the 'Save' button");

    // Hover by the toolbar, then re-picked onto another element; a re-pick where nothing has words is refused, with the reason.
    await page.click('#tools [data-mode="hover"]');
    await clickScreen(save);
    await untilListed(["When I click the 'Save' button", "Then I should see 'Saved 1 time'", "When I hover over the 'Save' button"]);
    const repick = (text: string) => page.locator('#steps li', { hasText: text }).locator('button', { hasText: 'Re-pick' }).click();
    await repick("I hover over the 'Save' button");
    await clickScreen(blank);
    await page.waitForFunction(() => /has words to name it by/.test(document.getElementById('notice').textContent), undefined, { timeout: 15_000 });
    await repick("I hover over the 'Save' button");
    await clickScreen(publish);
    await untilListed(["When I click the 'Save' button", "Then I should see 'Saved 1 time'", "When I hover over the 'Publish' button"]);

    // A check that a text holds, and one that a text is not shown (its text given in the page's prompt).
    const asked = (answer: string) => page.waitForEvent('dialog', { timeout: 10_000 }).then((dialog) => dialog.accept(answer));
    const savedStatus = await client.find("'Saved 1 time'");
    await page.click('#tools [data-mode="contain"]');
    await Promise.all([asked('Saved'), clickScreen(savedStatus)]);
    const contained = ["When I click the 'Save' button", "Then I should see 'Saved 1 time'", "When I hover over the 'Publish' button", "Then 'Saved 1 time' should contain the text 'Saved'"];
    await untilListed(contained);
    await Promise.all([asked('Error'), page.click('#not-see')]);
    const final = [...contained, "Then I should not see 'Error'"];
    await untilListed(final);

    // Stop on the page stops the recording: the screen takes no input any more.
    await page.click('#stop');
    await recorder.stopRequested();
    const gherkin = await recorder.stop();
    await page.waitForSelector('body[data-recording="off"]', { timeout: 10_000 });
    assert.ok(viewOnly(), 'the preview takes no input once the recording stopped');
    assert.equal(gherkin, final.map((line, n) => (n > 0 && line.split(' ')[0] === final[n - 1].split(' ')[0] ? line.replace(/^\w+/, 'And') : line)).join('\n'));
    for (const line of stepLines(gherkin)) assert.equal(matchingPhrases(line).length, 1, `'${line}' matches exactly one step`);
    toReplay.push({ name: 'Recorded in the preview', env: {}, steps: [`Given I open '${url}' in the browser`, ...gherkin.split('\n'), "Then I should see 'Publishing is final'"] });
  } finally {
    await browser.close();
  }
});

test('a pointer held still over an element that made text appear is a hover; one held still to no effect is nothing', async () => {
  const { client, url } = await onPage('notes.html', NOTES_PAGE);
  const [status, publish, save] = [await centreOf(client, "'Nothing saved'"), await centreOf(client, "the 'Publish' button"), await centreOf(client, "the 'Save' button")];
  // The person rests the pointer on each: looks at what the screen shows, and holds still a moment before going on.
  const holdStill = () => new Promise((resolve) => setTimeout(resolve, 800));
  const { gherkin } = await record(client, async (x, looks) => {
    x('mousemove', ...status);
    await looks();
    await holdStill();
    x('mousemove', ...publish);
    await looks();
    await holdStill();
    x('mousemove', ...save, 'click', '1');
    await looks();
  });
  assert.equal(gherkin, ["When I hover over the 'Publish' button", "And I click the 'Save' button"].join('\n'));
  toReplay.push({ name: 'Recorded hover', env: {}, steps: [`Given I open '${url}' in the browser`, ...gherkin.split('\n'), "Then I should see 'Publishing is final'", "And I should see 'Saved 1 time'"] });
});

/** A gear drawn in one green no other pixel has, with no words and no name: only a vision model can name it. */
const GEAR_GREEN = [0x00, 0xb0, 0x50];
// The shading and the words around it let the model (the test's, which matches the picture it is shown against the screen) tell where a crop of the page comes from.
const ICON_PAGE = `<!doctype html><meta charset="utf-8"><title>Tools</title>
<style>html,body{margin:0;height:100%;font:18px sans-serif;background:radial-gradient(circle at 20% 30%, #fff, #9ab 60%, #567)} nav{position:absolute;left:40px;top:40px;word-spacing:40px} p{position:absolute}</style>
<nav>Projects Reports Archive Help</nav><p style="left:520px;top:180px">Workshop tools and their settings</p>
<div id="gear" style="position:absolute;left:300px;top:200px;width:48px;height:48px;cursor:pointer"><svg width="48" height="48" viewBox="0 0 24 24"><path fill="#00b050" d="M19.4 13a7.5 7.5 0 0 0 0-2l2.1-1.6-2-3.5-2.5 1a7.6 7.6 0 0 0-1.7-1L15 3h-4l-.4 2.9a7.6 7.6 0 0 0-1.7 1l-2.5-1-2 3.5L6.6 11a7.5 7.5 0 0 0 0 2l-2.1 1.6 2 3.5 2.5-1a7.6 7.6 0 0 0 1.7 1L11 21h4l.4-2.9a7.6 7.6 0 0 0 1.7-1l2.5 1 2-3.5zM13 15.5a3.5 3.5 0 1 1 0-7 3.5 3.5 0 0 1 0 7z"/></svg></div>
<p id="status" style="position:absolute;left:40px;top:420px">Ready</p>
<script>document.getElementById('gear').onclick = () => { document.getElementById('status').textContent = 'Settings opened'; };</script>`;

test('an icon with no words is named by the vision model, where one is configured, and found again by that name', async () => {
  const model = new VisionServer({ family: 'pixels' });
  await model.start();
  try {
    const { client, url } = await onPage('tools.html', ICON_PAGE, {}, model.env());
    // The model's ground truth is the gear's own pixels on the sandbox's screen.
    const screen = await client.captureScreen();
    let gear: Box | null = null;
    for (let y = 0; y < screen.height; y++) {
      for (let x = 0; x < screen.width; x++) {
        const i = (y * screen.width + x) * 4;
        if (screen.data[i + 2] !== GEAR_GREEN[0] || screen.data[i + 1] !== GEAR_GREEN[1] || screen.data[i] !== GEAR_GREEN[2]) continue;
        gear = gear ? { x: Math.min(gear.x, x), y: Math.min(gear.y, y), width: Math.max(gear.x + gear.width, x + 1) - Math.min(gear.x, x), height: Math.max(gear.y + gear.height, y + 1) - Math.min(gear.y, y) } : { x, y, width: 1, height: 1 };
      }
    }
    assert.ok(gear && gear.width > 30 && gear.width < 60, `the gear is on the screen (${JSON.stringify(gear)})`);
    await model.show({ screen, targets: { 'gear icon': [gear] } });

    // The test model finds the part of the screen each picture shows by matching it against the whole (a second or more of work here, more on a loaded machine).
    const { gherkin } = await record(client, async (x, looks) => {
      x('mousemove', String(gear!.x + gear!.width / 2), String(gear!.y + gear!.height / 2), 'click', '1');
      await looks();
    }, 40_000);
    assert.equal(gherkin, "When I click the 'gear icon'", JSON.stringify(model.requests.map((r) => [r.task, r.answer])));
    assert.ok(model.requests.some((r) => r.task === 'name'), 'the model was asked to name it');
    await client.disconnect();

    // Replayed with the same model in a fresh sandbox: the name finds the gear again, and the click opens the settings.
    const feature = ['Feature: Icons', '  Scenario: Recorded settings', `    Given I open '${url}' in the browser`, ...gherkin.split('\n').map((l) => `    ${l}`), "    Then I should see 'Settings opened'", ''].join('\n');
    const run = await replay('icons', feature, model.env());
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /1 scenario \(1 passed\)/);
  } finally {
    await model.close();
  }
});

test('every recorded scenario replays green under cucumber-js in a fresh sandbox', async () => {
  assert.deepEqual(toReplay.map((r) => r.name), ['Recorded sign-up', 'Recorded file work', 'Recorded stock', 'Recorded order', 'Recorded drafts', 'Recorded in the preview', 'Recorded hover'], 'each recording test left its scenario');
  // One run, one sandbox reused across the scenarios (the profile's reuseSandbox), as a suite runs them.
  const feature = ['Feature: Recorded', '', ...toReplay.flatMap((r) => [`  Scenario: ${r.name}`, ...r.steps.map((l) => `    ${l}`), '']), ''].join('\n');
  const run = await replay('recorded', feature, Object.assign({}, ...toReplay.map((r) => r.env)));
  assert.equal(run.status, 0, run.output);
  assert.match(run.output, /7 scenarios \(7 passed\)/);
});
