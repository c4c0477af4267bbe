import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { chromium } from 'playwright-core';
import { findChromium } from '../../lib/sandbox/agent/launcher';
import { openDb } from '../../lib/store/db';
import { processAlive, SandboxRegistry } from '../../lib/sandbox/registry';
import sharp from 'sharp';
import { CUCUMBER_BIN as cucumberBin, REPO_ROOT, testState } from '../helpers/glance';
import { STEP_EVIDENCE } from '../../lib/report/step-evidence';

// The example features, run as a QA engineer runs them, and the report a
// product owner reads, opened in a real browser.
const state = testState();
const env = { ...process.env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey };

function cacheEntries(): number {
  const db = openDb(state.stateDir);
  try {
    return (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'cache_entries'").get() as { n: number }).n
      ? (db.prepare('SELECT count(*) AS n FROM cache_entries').get() as { n: number }).n
      : 0;
  } finally {
    db.close();
  }
}

after(() => fs.rmSync(path.join(state.stateDir), { recursive: true, force: true }));

test('the expected failure says what was looked for and what was seen, writes no cache entry, and its report shows the picture, the boxes and the clip at that moment', async () => {
  const json = path.join(state.stateDir, 'failure.json');
  // The default profile leaves @expected-failure out; GLANCE_TAGS picks it instead.
  const run = spawnSync(process.execPath, [cucumberBin, 'features/expected-failure.feature', '--format', `json:${json}`],
    { cwd: REPO_ROOT, env: { ...env, GLANCE_TAGS: '@expected-failure', GLANCE_DEBUG_ON_FAILURE: 'true' }, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  // debugOnFailure keeps the sandbox and prints the exact command that rejoins it.
  const rejoin = /GLANCE_SANDBOX_ID=(\S+) npx cucumber-js features\/expected-failure\.feature:(\d+)/.exec(run.stdout);
  assert.ok(rejoin, run.stdout);
  const scenarioLine = fs.readFileSync(path.join(REPO_ROOT, 'features', 'expected-failure.feature'), 'utf8').split('\n').findIndex((l) => l.trim().startsWith('Scenario:')) + 1;
  assert.equal(Number(rejoin![2]), scenarioLine, 'the line of the failed scenario');
  const glance = (...args: string[]) => spawnSync(process.execPath, ['bin/glance.js', ...args], { cwd: REPO_ROOT, env, encoding: 'utf8' }).stdout;
  assert.match(glance('sandboxes', 'list'), new RegExp(`${rejoin![1]}\\s+running`), 'the failed sandbox is still running');
  assert.match(glance('sandboxes', 'stop', rejoin![1]), /Stopped/);
  const stopped = new SandboxRegistry(state.stateDir).read(rejoin![1])!;
  assert.ok(stopped.state === 'stopped' && !processAlive(stopped.pid) && !processAlive(stopped.xvfbPid), 'stopped means ended: nothing of it runs on');
  const [feature] = JSON.parse(fs.readFileSync(json, 'utf8'));
  const failed = feature.elements[0].steps.find((s: any) => s.result.status === 'failed');
  assert.match(failed.name, /Order confirmed/);
  assert.match(failed.result.error_message, /Element not found: 'Order confirmed'/);
  assert.match(failed.result.error_message, /seen instead: .*'Payment declined'/);
  const failure = evidence(failed).find((e) => e.kind === 'failure');
  assert.ok(failure && fs.existsSync(failure.picture), 'the failed step has its screen');
  assert.equal(failure.lookedFor, "'Order confirmed'");
  assert.equal(cacheEntries(), 0, 'a failed scenario commits nothing to the cache');

  // The report explains the failure: its picture with the boxes, and the dashcam clip at that moment.
  const reportDir = path.join(state.stateDir, 'failure-report');
  fs.mkdirSync(path.join(reportDir, 'json'), { recursive: true });
  fs.copyFileSync(json, path.join(reportDir, 'json', 'cucumber.json'));
  const report = spawnSync(process.execPath, ['bin/glance.js', 'report', '--json', path.join(reportDir, 'json'), '--out', reportDir], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  assert.equal(report.status, 0, report.stderr);
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  try {
    const page = await browser.newPage();
    await page.goto(`file://${path.join(reportDir, 'index.html')}`);
    await page.click('text=What a failure looks like');
    await page.waitForSelector('text=The payment goes through');
    await page.click('text=The payment goes through');
    const info = page.locator('a:has-text("Show Info")');
    for (let i = 0; i < await info.count(); i++) await info.nth(i).click();
    const shown = await page.$eval('img.glance-failure-picture', (img: any) => ({
      src: img.getAttribute('src'), width: img.naturalWidth, visible: img.getBoundingClientRect().width > 0, boxes: img.dataset.boxes,
    }));
    assert.ok(shown.visible && shown.width === 1024, `the failure picture is shown, scaled (${JSON.stringify(shown)})`);
    const text = await page.textContent('.glance-failure');
    assert.match(text!, /Looked for: 'Order confirmed'/);
    assert.match(text!, /Seen instead: .*'Pay now'/);
    assert.match(text!, /Last located, in amber: 'Pay now'/);
    // The amber box around 'Pay now' is drawn on the stored picture, where the data says.
    const [x, y, w] = shown.boxes.split(';')[0].split(',').map(Number);
    const scale = 1024 / 1366;
    const { data, info: meta } = await sharp(path.resolve(path.dirname(page.url().replace('file://', '')), shown.src)).raw().toBuffer({ resolveWithObject: true });
    const amber = [0.25, 0.5, 0.75].filter((f) => {
      const px = Math.round((x + w * f) * scale);
      return [-1, 0, 1].some((dy) => {
        const i = ((Math.round(y * scale) + dy - 1) * meta.width + px) * meta.channels;
        return data[i] > 200 && data[i + 1] > 100 && data[i + 1] < 200 && data[i + 2] < 90;
      });
    });
    assert.equal(amber.length, 3, 'the top edge of the box is amber');
    // The clip link opens the scenario's recording a little before the failure.
    const href = await page.$eval('.glance-failure a.glance-clip', (a: any) => a.getAttribute('href'));
    const match = /^\.\.\/media\/[0-9a-f]+\.mp4#t=([\d.]+)$/.exec(href);
    assert.ok(match, href);
    const seek = await page.evaluate((src: string) => new Promise<{ time: number; duration: number }>((resolve, reject) => {
      const video = (globalThis as any).document.createElement('video');
      video.muted = true;
      video.onloadeddata = () => resolve({ time: video.currentTime, duration: video.duration });
      video.onerror = () => reject(new Error('the clip does not play'));
      video.src = src;
    }), href);
    assert.ok(seek.duration > Number(match![1]), `the clip (${seek.duration} s) holds the moment (${match![1]} s)`);
    assert.ok(Math.abs(seek.time - Number(match![1])) < 0.6, `the link seeks to the moment (${seek.time} s)`);
  } finally {
    await browser.close();
  }
});

/** The Glance evidence a step of the Cucumber JSON carries. */
function evidence(step: any): any[] {
  return (step.embeddings ?? []).filter((e: any) => e.mime_type === STEP_EVIDENCE).map((e: any) => JSON.parse(Buffer.from(e.data, 'base64').toString('utf8')));
}

/**
 * The example features run here in part, as `npm run features` runs them: the first scenario of sign-up,
 * the team page, the desktop program and the long page, at two resolutions. All of them run warm in the
 * bench (`npm run bench -- steps`, `parallel`), which fails when one does.
 */
const SAMPLED_FEATURES = ['features/signup-and-login.feature:8', 'features/team.feature:8', 'features/desktop-app.feature:7', 'features/scrolling.feature:8'];

test('the example features pass, and the report shows them with screenshots and metadata', async () => {
  // Two workers, as CI runs them: each has its own sandbox, screenshots and attachments.
  const run = spawnSync(process.execPath, ['scripts/features.js', ...SAMPLED_FEATURES], { cwd: REPO_ROOT, env: { ...env, GLANCE_PARALLEL: '2' }, encoding: 'utf8', timeout: 600_000 });
  assert.equal(run.status, 0, run.stdout.slice(-4000) + run.stderr.slice(-2000));
  assert.match(run.stdout, /\d+ scenarios \(\d+ passed\)/);
  assert.match(run.stdout, /report: .*reports\/index\.html/);
  assert.ok(cacheEntries() > 0, 'passing scenarios commit their finds');
  // Screenshots go to a folder per scenario, named with the step's line in its feature.
  const shotLine = fs.readFileSync(path.join(REPO_ROOT, 'features', 'signup-and-login.feature'), 'utf8').split('\n').findIndex((l) => l.includes("I take a screenshot named 'signed in'")) + 1;
  const shots = fs.readdirSync(path.join(state.stateDir, 'screenshots', 'signup_and_login_A_new_visitor_signs_up_then_logs_in'));
  assert.ok(shots.some((f) => f.endsWith(`-screenshot-now-L${shotLine}-signed_in.png`)), JSON.stringify(shots));
  const junit = fs.readFileSync(path.join(REPO_ROOT, 'reports', 'junit.xml'), 'utf8');
  assert.match(junit, /<testsuite[^>]*failures="0"/);

  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  try {
    const page = await browser.newPage();
    await page.goto(`file://${path.join(REPO_ROOT, 'reports', 'index.html')}`);
    const overview = await page.textContent('body');
    // Each feature's metadata names what its own scenarios ran with (the long page runs at 1280x800).
    const longPage = await page.textContent('tr:has-text("A long page")');
    assert.match(longPage!, /1280x800/);
    assert.doesNotMatch(longPage!, /1366x768/);
    for (const fact of ['Sign up and log in', 'Managing the team', 'A desktop program', 'Locate engine', 'ocr', '1366x768', process.version]) {
      assert.ok(overview!.includes(fact), `the overview shows '${fact}'`);
    }
    await page.click('text=Sign up and log in');
    await page.waitForSelector('text=A new visitor signs up, then logs in');
    // Pictures are files of the report, stored once, never inline.
    const shots = await page.$$eval('img.glance-picture', (imgs) => imgs.map((i) => (i as unknown as { getAttribute(n: string): string }).getAttribute('src')));
    assert.ok(shots.length >= 3 && shots.every((src) => /^\.\.\/media\/[0-9a-f]+\.jpg$/.test(src)), `the feature page shows the find steps' screens (${shots.length})`);
    assert.doesNotMatch(await page.content(), /data:image\//);
    const text = await page.textContent('body');
    assert.match(text!, /find .*Full name.*: found by \w+ in \d+ ms · cache (hit|miss)/, 'each find step says what answered, the cache and the time');
    assert.match(text!, /Dashcam: \d+:\d\d/, 'each scenario has its clip');
    assert.ok(!text!.includes(process.env.ACME_PASSWORD ?? 'correct-horse-battery'), 'the $ACME_PASSWORD secret is not in the report');
  } finally {
    await browser.close();
  }
});

test('an undefined step suggests the nearest phrasings Glance has', () => {
  const feature = path.join(state.stateDir, 'typo.feature');
  fs.writeFileSync(feature, "Feature: Typo\n  Scenario: A slip of the finger\n    When I clik on the 'Save' button\n");
  // A dry run: the snippets, without a sandbox.
  const run = spawnSync(process.execPath, [cucumberBin, feature, '--dry-run'], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
  assert.match(run.stdout, /1 step \(1 undefined\)/);
  assert.match(run.stdout, /Glance has no step for this\. The nearest phrasings it has:/);
  const suggestions = run.stdout.split('nearest phrasings it has:')[1].split('Or define it')[0];
  assert.match(suggestions.split('\n')[1], /\/\/ {3}I click \(on \)\(the \)\{element\}$/, 'the nearest comes first');
});

test('with autoScreenshots every step attaches its after-step screenshot', () => {
  const feature = path.join(state.stateDir, 'auto.feature');
  fs.writeFileSync(feature, "Feature: Evidence\n  Scenario: Every step shows its screen\n    Given I open 'acme/login.html' in the browser\n    When I click the 'Email' field\n    Then I should see 'Log in to Acme'\n");
  const json = path.join(state.stateDir, 'auto.json');
  const run = spawnSync(process.execPath, [cucumberBin, feature, '--format', `json:${json}`],
    { cwd: REPO_ROOT, env: { ...env, GLANCE_AUTO_SCREENSHOTS: 'true' }, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const [result] = JSON.parse(fs.readFileSync(json, 'utf8'));
  const steps = result.elements[0].steps.filter((s: any) => !s.hidden && s.keyword.trim() !== 'Before' && s.keyword.trim() !== 'After');
  assert.equal(steps.length, 3);
  for (const step of steps) {
    const picture = evidence(step).find((e) => e.kind === 'picture');
    assert.ok(picture && fs.existsSync(picture.picture), `'${step.name}' has its screenshot`);
  }
});
