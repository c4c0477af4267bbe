import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { execFile, execFileSync } from 'child_process';
import { promisify } from 'util';
import type { ClientOptions } from '../../lib/config/options';
import { cleanupAfterFile, fixtureServer, REPO_ROOT, sandboxTurns, testState } from '../helpers/glance';

// The element cache with a real sandbox, real OCR and a real SQLite file.
let server: Awaited<ReturnType<typeof fixtureServer>>;
const state = testState();
const KEY = { cacheKey: 'cache-suite' };
// The tests take turns in one sandbox, each with a fresh page.
const join = sandboxTurns(state, cleanupAfterFile(state, after));

async function onPage(url: string, options: ClientOptions) {
  const client = await join(options);
  await client.provision.chrome({ url });
  return client;
}

before(async () => {
  server = await fixtureServer();
});

after(async () => {
  await server?.close();
});

test('a hit on an unchanged screen after a passing session; -1 bypasses it', async () => {
  const first = await join(KEY);
  await first.provision.chrome({ url: `${server.url}/app/cache-lab.html` });
  const miss = await first.find('Publish button');
  assert.equal(miss.cache.hit, false);
  assert.equal(miss.cache.strategy, 'miss');
  assert.equal(await first.commitCache(), 1);

  const hit = await first.find('Publish button');
  assert.equal(hit.cache.hit, true);
  assert.equal(hit.cache.strategy, 'pixel-diff');
  assert.deepEqual(hit.boundingBox, miss.boundingBox);
  const json = JSON.parse(JSON.stringify(hit));
  assert.equal(json.cache.hit, true);
  assert.equal(json.cache.diffPercent, 0);
  assert.equal(json.similarity, 1);
  assert.match(json.cache.imageUrl, /^file:\/\/.*\.png$/);

  const bypass = await first.find('Publish button', -1);
  assert.equal(bypass.cache.hit, false);
  assert.equal(bypass.toJSON().threshold, -1);
  assert.equal((await first.find('Publish button', { cacheThreshold: -1 })).cache.hit, false);
  assert.equal((await first.find('Publish button', 0.01)).cache.hit, true, 'the number form is cacheThreshold');
  await first.disconnect();
});

test('a look that expects nothing there is answered on the same screen by the absence the engines found, never by a waiting find, and never once the screen differs', async () => {
  const open = async () => {
    const client = await join({ cacheKey: 'absence-suite' });
    await client.provision.chrome({ url: `${server.url}/app/cache-lab.html` });
    return client;
  };
  const first = await open();
  const looked = await first.find("'Published' heading", { timeout: 0 });
  assert.equal(looked.found(), false);
  assert.equal(looked.cache.strategy, 'miss', 'the engines looked');
  // One description looked for on two screens keeps both absences.
  assert.equal((await first.find("'Archived' heading", { timeout: 0 })).found(), false);
  await first.find('Publish button').click();
  assert.equal((await first.find("'Archived' heading", { timeout: 0 })).found(), false);
  await first.disconnect(); // a passing session keeps what it saw

  const second = await open();
  const cached = await second.find("'Published' heading", { timeout: 0 });
  assert.equal(cached.found(), false);
  assert.equal(cached.cache.hit, true);
  assert.equal(cached.cache.strategy, 'absent');
  const waiting = await second.find("'Published' heading", { timeout: 300 });
  assert.equal(waiting.found(), false);
  assert.equal(waiting.cache.strategy, 'miss', 'a find that waits for the element looks with the engines');
  assert.equal((await second.find("'Archived' heading", { timeout: 0 })).cache.strategy, 'absent');
  await second.find('Publish button').click();
  const shown = await second.find("'Published' heading", { timeout: 0 });
  assert.equal(shown.found(), true, 'a screen that changed is read again');
  assert.equal((await second.find("'Archived' heading", { timeout: 0 })).cache.strategy, 'absent', 'the second screen has its own absence');
  await second.disconnect();
});

test('a screen changed beyond the threshold misses; a moved element still hits where it is now', async () => {
  const client = await join(KEY);
  await client.provision.chrome({ url: `${server.url}/app/cache-lab.html?banner=1` });
  const changed = await client.find('Publish button');
  assert.equal(changed.cache.hit, false);
  assert.ok(changed.cache.diffPercent! > 5, `diff ${changed.cache.diffPercent}%`);
  client.discardCache();

  await client.provision.chrome({ url: `${server.url}/app/cache-lab.html?shift=120` });
  const moved = await client.find('Publish button');
  assert.equal(moved.cache.hit, true);
  assert.equal(moved.cache.strategy, 'template-match');
  await moved.click();
  assert.equal((await client.find('Published', { timeout: 5000, cacheThreshold: -1 })).found(), true, 'the click landed on the moved button');
  await client.disconnect();

  // The moved button was kept for its new screen too: the next run finds it where it stands, with no search.
  const rerun = await join(KEY);
  await rerun.provision.chrome({ url: `${server.url}/app/cache-lab.html?shift=120` });
  const there = await rerun.find('Publish button');
  assert.equal(there.cache.hit, true);
  assert.equal(there.cache.strategy, 'pixel-diff');
  assert.deepEqual(there.boundingBox, moved.boundingBox);
  assert.doesNotMatch(there.reason ?? '', /cached.*cached/, 'the kept reason is the engine\'s, not the cache\'s words again');
  await rerun.disconnect();
});

test("a heading across the page, found where its words stand, is taken from the cache on a screen that changed a little", async () => {
  const client = await onPage(`${server.url}/app/cache-lab.html`, { cacheKey: 'cache-suite-heading' });
  const first = await client.find("'Drafts'");
  assert.equal(first.cache.hit, false);
  assert.match(first.reason ?? '', /a11y|tree/i, 'the tree found the heading');
  assert.ok(first.boundingBox!.width < 300, `the box holds the words, not the page-wide heading: ${JSON.stringify(first.boundingBox)}`);
  assert.equal(await client.commitCache(), 1);

  // A line shown elsewhere: the heading's own pixels are unchanged, and need no look at the tree.
  await client.provision.chrome({ url: `${server.url}/app/cache-lab.html?note=1` });
  const elsewhere = await client.find("'Drafts'");
  assert.equal(elsewhere.cache.hit, true, elsewhere.reason ?? '');
  assert.ok(elsewhere.cache.diffPercent! > 0, 'the screen did change');
  assert.doesNotMatch(elsewhere.reason ?? '', /the tree still shows/);
  assert.deepEqual(elsewhere.boundingBox, first.boundingBox);

  // The heading a shade lighter: its pixels differ a little, and the tree, whose heading spans the page, still holds its words.
  await client.provision.chrome({ url: `${server.url}/app/cache-lab.html?tint=1` });
  const tinted = await client.find("'Drafts'");
  assert.equal(tinted.cache.hit, true, tinted.reason ?? '');
  assert.match(tinted.reason ?? '', /the tree still shows the heading 'Drafts'/);
  client.discardCache();
  await client.disconnect();
});

test('a failed session writes nothing; a passing one commits on disconnect', async () => {
  const failing = await onPage(`${server.url}/app/cache-lab.html`, { cacheKey: 'failing' });
  assert.equal((await failing.find('Drafts')).found(), true);
  failing.markFailed('assertion failed');
  await failing.disconnect();
  const after = await join({ cacheKey: 'failing' });
  await after.provision.chrome({ url: `${server.url}/app/cache-lab.html` });
  assert.equal((await after.find('Drafts')).cache.hit, false, 'nothing was written by the failed session');
  await after.disconnect(); // passes: commits
  const third = await join({ cacheKey: 'failing' });
  await third.provision.chrome({ url: `${server.url}/app/cache-lab.html` });
  const thirdLook = await third.find('Drafts');
  assert.equal(thirdLook.cache.hit, true, `the passing session committed on disconnect; cache said ${JSON.stringify(thirdLook.cache)} similarity ${thirdLook.toJSON().similarity}`);
  await third.disconnect();
});

test('the automatic key follows the test file: a rerun hits, an edited file misses', async () => {
  const script = path.join(state.stateDir, 'publish-check.js');
  const source = `require(${JSON.stringify(path.join(REPO_ROOT, 'lib/runtime/register.js'))});
const { Client } = require(${JSON.stringify(path.join(REPO_ROOT, 'lib/sdk.ts'))});
(async () => {
  const client = new Client(${JSON.stringify(state.apiKey)}, { stateDir: ${JSON.stringify(state.stateDir)}, preview: 'none', logging: false });
  await client.auth();
  await client.connect({ keepAlive: 0 });
  await client.provision.chrome({ url: ${JSON.stringify(`${server.url}/app/cache-lab.html`)} });
  const element = await client.find('Publish button');
  console.log(JSON.stringify({ found: element.found(), hit: element.cache.hit }));
  await client.disconnect();
})().catch((error) => { console.error(error); process.exit(1); });
`;
  fs.writeFileSync(script, source);
  // Asynchronous on purpose: this process serves the page the script opens.
  const run = async () => JSON.parse((await promisify(execFile)(process.execPath, [script], { encoding: 'utf8' })).stdout.trim().split('\n').pop()!);
  assert.deepEqual(await run(), { found: true, hit: false });
  assert.deepEqual(await run(), { found: true, hit: true });
  fs.writeFileSync(script, `${source}// edited\n`);
  assert.deepEqual(await run(), { found: true, hit: false }, 'editing the file changed its key');
});

test('glance cache list, show and clear', async () => {
  const cli = (...args: string[]) => execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin/glance.js'), 'cache', ...args], {
    encoding: 'utf8', env: { ...process.env, GLANCE_STATE_DIR: state.stateDir },
  });
  const listed = cli('list', '--key', 'cache-suite');
  const id = /^\s*(\d+)\s+cache-suite/m.exec(listed)?.[1];
  assert.ok(id, listed);
  const shown = cli('show', id!);
  const images = /images: (\S+) and (\S+)/.exec(shown)!;
  assert.ok(fs.existsSync(images[1]) && fs.existsSync(images[2]));
  const count = (listed.match(/^\s*\d+\s+cache-suite/gm) ?? []).length;
  assert.equal(count, 2, `a button on two screens (it moved): ${listed}`);
  assert.match(cli('clear', '--key', 'cache-suite'), /Removed 2 cache entries for key cache-suite/);
  assert.match(cli('list', '--key', 'cache-suite'), /No cache entries/);
});

test('findAll uses the cache only when given a cacheThreshold', async () => {
  const client = await join({ cacheKey: 'find-all' });
  await client.provision.chrome({ url: `${server.url}/app/users.html` });
  const fresh = await client.findAll('Edit buttons', 0.05);
  assert.equal(fresh.length, 5);
  assert.equal(fresh[0].cache.hit, false);
  await client.commitCache();
  const cached = await client.findAll('Edit buttons', 0.05);
  assert.deepEqual(cached.map((e) => e.boundingBox), fresh.map((e) => e.boundingBox));
  assert.ok(cached.every((e) => e.cache.hit));
  const uncached = await client.findAll('Edit buttons');
  assert.equal(uncached.length, 5);
  assert.ok(uncached.every((e) => !e.cache.hit), 'the findAll default, -1, leaves the cache alone');
  client.discardCache();
  await client.disconnect();
});
