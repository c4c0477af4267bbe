import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'child_process';
import { promisify } from 'util';
import fs from 'fs';
import path from 'path';
import { chromium, Browser } from 'playwright-core';
import { findChromium } from '../../lib/sandbox/agent/launcher';
import { Client } from '../../lib/sdk';
import { startServer, RunningServer } from '../../lib/server/serve';
import { createApiKey } from '../../lib/service/api-keys';
import { openDb } from '../../lib/store/db';
import { CUCUMBER_BIN, fixtureServer, REPO_ROOT, testState } from '../helpers/glance';
import { runId } from '../../lib/client/analytics';

// The team console in a real browser, over what real runs left on a team server.
const state = testState();
const clientDir = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'console-client-'));
const RUN = `console-run-${process.pid}`;
let server: RunningServer;
let browser: Browser;
let teamB: string;

function entries(): { id: number; description: string }[] {
  const db = openDb(state.stateDir);
  try {
    return db.prepare('SELECT id, description FROM cache_entries').all() as { id: number; description: string }[];
  } finally {
    db.close();
  }
}

before(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir });
  const db = openDb(state.stateDir);
  teamB = createApiKey(db, 'b').key;
  db.close();

  // A real failing run, reported by the Cucumber hooks with its evidence.
  // Run beside the server (which answers in this process), not blocking it.
  const run = await promisify(execFile)(process.execPath, [CUCUMBER_BIN, 'features/expected-failure.feature', '--format', `json:${path.join(clientDir, 'json', 'cucumber.json')}`], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 180_000,
    env: { ...process.env, GLANCE_API_ROOT: server.url, GLANCE_API_KEY: state.apiKey, GLANCE_STATE_DIR: clientDir, GLANCE_TAGS: '@expected-failure', GLANCE_RUN_ID: RUN },
  }).then(() => ({ code: 0, stdout: '', stderr: '' }), (error: { code: number; stdout: string; stderr: string }) => error);
  assert.equal(run.code, 1, run.stdout + run.stderr);

  // A cache entry, committed by a passing session through the server.
  const fixtures = await fixtureServer();
  const client = new Client(state.apiKey, { apiRoot: server.url, stateDir: clientDir, preview: 'none', logging: false, cacheKey: 'console' });
  try {
    await client.auth();
    await client.connect({ keepAlive: 0 });
    await client.provision.chrome({ url: `${fixtures.url}/app/studio.html` });
    assert.ok((await client.find('Export button')).found());
  } finally {
    await client.disconnect();
    await fixtures.close();
  }
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function logIn(key: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url);
  await page.fill('#apiKey', key);
  await page.click('input[type=submit]');
  await page.waitForURL(/\/console\/runs$/);
  return { context, page };
}

test('log in with a key: the key leaves no trace in the address, and the session cookie is HttpOnly and SameSite', async () => {
  const { context, page } = await logIn(state.apiKey);
  try {
    assert.ok(!page.url().includes(state.apiKey));
    const [cookie] = await context.cookies();
    assert.equal(cookie.name, 'glance_console');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.doesNotMatch(await page.content(), new RegExp(state.apiKey));
  } finally {
    await context.close();
  }
});

test('the run just made is listed, and its failing step shows its screenshot and clip', async () => {
  const { context, page } = await logIn(state.apiKey);
  try {
    await page.click(`text=${RUN}`);
    await page.waitForSelector('tr.result');
    assert.match(await page.textContent('tr.result') ?? '', /The payment goes through[\s\S]*failed[\s\S]*Order confirmed/);
    const shot = page.locator('img.shot');
    await shot.waitFor();
    const width = await shot.evaluate((img: any) => img.complete ? img.naturalWidth : img.decode().then(() => img.naturalWidth));
    assert.ok(width > 500, `the failure screenshot is shown (${width} px wide)`);
    assert.equal(await page.locator('video').count(), 1, 'the dashcam clip is there');
    await page.click('text=Flaky tests');
    assert.match(await page.textContent('main') ?? '', /features\/expected-failure\.feature: The payment goes through/);
  } finally {
    await context.close();
  }
});

test('a cache entry opens with its crop, and deleting it removes it from the store', async () => {
  const { context, page } = await logIn(state.apiKey);
  try {
    await page.click('text=Cache');
    const row = page.locator('tr.entry', { hasText: 'Export button' });
    await row.waitFor();
    const crop = row.locator('img.crop');
    assert.ok(await crop.evaluate((img: any) => img.decode().then(() => img.naturalWidth)) > 10, 'the crop is shown');
    const id = Number(await row.getAttribute('data-id'));
    assert.ok(entries().some((e) => e.id === id));
    // A forged form (no session token) is refused, and the entry stays.
    const forged = await page.request.post(`${server.url}/console/cache/${id}/delete`, { form: { csrf: 'x'.repeat(32) } });
    assert.equal(forged.status(), 401);
    assert.ok(entries().some((e) => e.id === id));
    await row.locator('button', { hasText: 'Delete' }).click();
    await page.waitForURL(/\/console\/cache$/);
    assert.equal(await page.locator('tr.entry', { hasText: 'Export button' }).count(), 0);
    assert.ok(!entries().some((e) => e.id === id), 'gone from the store');
  } finally {
    await context.close();
  }
});

test("another team's key sees none of the first team's runs, evidence or cache", async () => {
  const { context, page } = await logIn(teamB);
  try {
    assert.doesNotMatch(await page.textContent('main') ?? '', new RegExp(RUN));
    await page.goto(`${server.url}/console/runs/${RUN}`);
    assert.match(await page.textContent('main') ?? '', /No scenarios or commands of your team/);
    const db = openDb(state.stateDir);
    const evidence = (db.prepare('SELECT id FROM evidence_files').all() as { id: number }[]).map((e) => e.id);
    db.close();
    assert.ok(evidence.length >= 1);
    for (const id of evidence) assert.equal((await page.request.get(`${server.url}/console/evidence/${id}`)).status(), 409);
    await page.goto(`${server.url}/console/cache`);
    assert.match(await page.textContent('main') ?? '', /cache of your team is empty/);
  } finally {
    await context.close();
  }
});

test('glance report --publish sends an existing Cucumber JSON report to the server as a run, evidence and all', async () => {
  const published = await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'report', '--publish', '--json', path.join(clientDir, 'json'), '--run', 'published'], {
    cwd: clientDir, encoding: 'utf8', env: { ...process.env, GLANCE_API_ROOT: server.url, GLANCE_API_KEY: state.apiKey },
  });
  assert.match(published.stdout, /Published 1 scenario\(s\) from 1 file\(s\) .* as run published/);
  const { token } = await (await fetch(`${server.url}/v1/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: state.apiKey }) })).json() as { token: string };
  const results = await (await fetch(`${server.url}/v1/runs/published`, { headers: { authorization: `Bearer ${token}` } })).json() as { scenario: string; outcome: string; failingStep: string; evidence: { kind: string }[] }[];
  assert.equal(results.length, 1);
  assert.equal(results[0].scenario, 'features/expected-failure.feature: The payment goes through');
  assert.equal(results[0].outcome, 'failed');
  assert.match(results[0].failingStep, /Order confirmed/);
  assert.deepEqual(results[0].evidence.map((e) => e.kind).sort(), ['clip', 'failure']);
});

test("glance report --merge takes a shard's failure screenshot and clip from the team server when its files were not brought along", async () => {
  // The shard's JSON alone, on another machine: none of the files it names are there.
  const elsewhere = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'merging-machine-'));
  const json = path.join(elsewhere, 'shard-1.json');
  const moved = path.join(elsewhere, 'gone');
  fs.copyFileSync(path.join(clientDir, 'json', 'cucumber.json'), json);
  fs.mkdirSync(moved);
  for (const folder of ['screenshots', 'recordings']) fs.renameSync(path.join(clientDir, folder), path.join(moved, folder));
  try {
    const merge = (env: Record<string, string>) => promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'report', '--merge', json, '--out', path.join(elsewhere, 'report')], {
      cwd: elsewhere, encoding: 'utf8', env: { ...process.env, GLANCE_API_KEY: state.apiKey, GLANCE_API_ROOT: server.url, ...env },
    });
    const alone = await merge({ GLANCE_RUN_ID: '' });
    assert.match(alone.stderr, /found neither beside their shard \(give the run with --run or GLANCE_RUN_ID to look on the team server too\)/);
    assert.match(alone.stderr, /The payment goes through: failure /);
    const withServer = await merge({ GLANCE_RUN_ID: RUN });
    assert.doesNotMatch(withServer.stderr, /: (failure|clip) /, 'the failure screenshot and the clip came from the server');
    assert.match(withServer.stderr, /: picture /, 'the find screens, which shards do not upload, are still named');
    const fetched = fs.readdirSync(path.join(elsewhere, 'report', 'shard-evidence')).map((f) => path.extname(f) === '.mp4' ? 'clip' : 'picture').sort();
    assert.deepEqual(fetched, ['clip', 'picture']);
    const page = fs.readdirSync(path.join(elsewhere, 'report', 'features')).map((f) => fs.readFileSync(path.join(elsewhere, 'report', 'features', f), 'utf8')).join('');
    assert.match(page, /<video[^>]+src="\.\.\/media\/[0-9a-f]+\.mp4/);
  } finally {
    for (const folder of ['screenshots', 'recordings']) fs.renameSync(path.join(moved, folder), path.join(clientDir, folder));
  }
});

test("a running sandbox is watched live from the console, its screen bridged through the server; another team's key cannot", async () => {
  const fixtures = await fixtureServer();
  const client = new Client(state.apiKey, { apiRoot: server.url, stateDir: clientDir, preview: 'none', logging: false });
  const { context, page } = await logIn(state.apiKey);
  try {
    await client.auth();
    const { instanceId } = await client.connect({ keepAlive: 0 });
    await client.provision.chrome({ url: `${fixtures.url}/app/studio.html` });
    await page.click('text=Sandboxes');
    const [live] = await Promise.all([context.waitForEvent('page'), page.click(`tr:has-text("${instanceId}") >> text=Watch live`)]);
    await live.waitForSelector('body[data-state=connected]', { timeout: 15_000 });
    assert.match(live.url(), new RegExp(`/console/live/${instanceId}/#key=`));
    const canvas = await live.$eval('#screen canvas', (c: any) => ({ width: c.width, height: c.height }));
    assert.deepEqual(canvas, { width: 1366, height: 768 });
    const other = await logIn(teamB);
    const refused = await other.page.request.get(`${server.url}/console/live/${instanceId}/`);
    assert.equal(refused.status(), 404);
    await other.context.close();
  } finally {
    await context.close();
    await client.disconnect();
    await fixtures.close();
  }
});

test('an SDK session shows as a run with its commands, and its sandbox in the recent sessions', async () => {
  const { context, page } = await logIn(state.apiKey);
  try {
    const sdkRun = page.locator('h2:has-text("SDK runs") + table tr', { hasText: runId() });
    await sdkRun.locator('a').click();
    const find = page.locator('tr.command', { hasText: 'find' }).filter({ hasText: 'Export button' });
    assert.ok(await find.count() >= 1, 'the find is listed');
    await page.goto(`${server.url}/console/sandboxes`);
    assert.match(await page.textContent('main') ?? '', /Recent sessions[\s\S]*disconnected, sandbox stopped/);
  } finally {
    await context.close();
  }
});
