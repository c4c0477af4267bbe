import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { spawn } from 'child_process';
import { ElementCache, MAX_PENDING } from '../../lib/cache/element-cache';
import { openDb } from '../../lib/store/db';
import { fileCacheKey } from '../../lib/client/cache-key';
import { Candidate } from '../../lib/locate/engine';
import { REPO_ROOT, testState } from '../helpers/glance';
import { syntheticScreen } from '../helpers/screens';

const partition = { key: 'k', description: "the 'Save' button", os: 'linux', resolution: '320x200' };
const found: Candidate = { box: { x: 40, y: 60, width: 90, height: 30 }, text: 'Save', confidence: 0.97, engine: 'ocr', reason: 'the control around Save' };
const thresholds = { screen: 0.05, element: 0.8 };

async function cacheWithEntry(maxEntries?: number): Promise<{ cache: ElementCache; stateDir: string }> {
  const { stateDir } = testState();
  const cache = new ElementCache(stateDir, maxEntries);
  cache.record(partition, syntheticScreen(), [found]);
  assert.equal(await cache.commit(), 1);
  return { cache, stateDir };
}

test('a hit on an unchanged screen reuses the box, by pixel diff', async () => {
  const { cache, stateDir } = await cacheWithEntry();
  const result = cache.lookup(partition, syntheticScreen(), thresholds);
  assert.deepEqual(result.candidate!.box, found.box);
  assert.equal(result.info.hit, true);
  assert.equal(result.info.strategy, 'pixel-diff');
  assert.equal(result.info.diffPercent, 0);
  assert.equal(result.similarity, 1);
  assert.ok(result.info.imageUrl!.startsWith('file://'));
  assert.ok(fs.existsSync(new URL(result.info.imageUrl!)));
  assert.ok(!Number.isNaN(Date.parse(result.info.createdAt)));
  assert.ok(fs.readdirSync(path.join(stateDir, 'cache')).includes('1.png'));
});

test('entries are only written on commit, and discard drops them', async () => {
  const { stateDir } = testState();
  const cache = new ElementCache(stateDir);
  cache.record(partition, syntheticScreen(), [found]);
  assert.equal(cache.lookup(partition, syntheticScreen(), thresholds).info.hit, false, 'pending entries are not used');
  assert.equal(cache.discard(), 1);
  assert.equal(await cache.commit(), 0);
  assert.equal(cache.lookup(partition, syntheticScreen(), thresholds).info.hit, false);
});

test('a miss when the screen changed beyond the threshold, with the measured difference', async () => {
  const { cache } = await cacheWithEntry();
  const changed = syntheticScreen({ changedPixels: 320 * 200 * 0.08 });
  const result = cache.lookup(partition, changed, thresholds);
  assert.equal(result.info.hit, false);
  assert.equal(result.info.strategy, 'miss');
  assert.equal(result.info.diffPercent, 8);
  assert.equal(cache.lookup(partition, syntheticScreen(), thresholds).info.hit, true, 'the entry is kept: only the screen differed');
});

test('the screen threshold is honoured at its boundary', async () => {
  const { cache } = await cacheWithEntry();
  const changed = syntheticScreen({ changedPixels: 640 }); // exactly 1% of 64000 pixels
  assert.equal(cache.lookup(partition, changed, { ...thresholds, screen: 0.01 }).info.hit, true, 'a difference equal to the threshold hits');
  assert.equal(cache.lookup(partition, changed, { ...thresholds, screen: 0.0099 }).info.hit, false, 'just below it misses');
});

test('the element threshold is honoured at its boundary', async () => {
  const { cache } = await cacheWithEntry();
  const shifted = syntheticScreen({ buttonX: 43, noise: 6 }); // moved a little, and rendered a little differently
  const near = cache.lookup(partition, shifted, { screen: 0.05, element: 0.8 });
  assert.equal(near.info.hit, true);
  const exact = near.similarity!;
  assert.ok(exact > 0.8 && exact < 1, `similarity ${exact}`);
  const { cache: again } = await cacheWithEntry();
  assert.equal(again.lookup(partition, shifted, { screen: 0.05, element: exact }).info.hit, true, 'a similarity equal to the threshold hits');
  assert.equal(again.lookup(partition, shifted, { screen: 0.05, element: Math.min(1, exact + 0.0011) }).info.hit, false, 'above it misses');
});

test('a hit after the element moved: near first, then over the whole screen', async () => {
  const { cache } = await cacheWithEntry();
  const near = cache.lookup(partition, syntheticScreen({ buttonX: 44, buttonY: 63 }), thresholds);
  assert.equal(near.info.strategy, 'template-match');
  assert.deepEqual(near.candidate!.box, { x: 44, y: 63, width: 90, height: 30 });
  const far = cache.lookup(partition, syntheticScreen({ buttonX: 190, buttonY: 20 }), { screen: 0.2, element: 0.8 });
  assert.equal(far.info.hit, true);
  assert.equal(far.info.strategy, 'template-match');
  assert.deepEqual(far.candidate!.box, { x: 190, y: 20, width: 90, height: 30 });
  // A waiting find's later looks look only near: on a screen that changes while it waits, the whole-screen search costs too much.
  const later = cache.lookup(partition, syntheticScreen({ buttonX: 190, buttonY: 20 }), { screen: 0.2, element: 0.8 }, false);
  assert.equal(later.candidate, null);
  assert.equal(cache.lookup(partition, syntheticScreen({ buttonX: 44, buttonY: 63 }), thresholds, false).candidate?.box.x, 44);
});

test('an entry whose element is gone is kept while it may yet appear, and evicted once proven wrong', async () => {
  const { cache, stateDir } = await cacheWithEntry();
  const gone = syntheticScreen();
  gone.data.fill(245, (60 * 320) * 4, (95 * 320) * 4); // the button's rows are blank now
  const result = cache.lookup(partition, gone, { screen: 0.5, element: 0.8 });
  assert.equal(result.info.hit, false);
  assert.equal(cache.lookup(partition, syntheticScreen(), thresholds).info.hit, true, 'not shown yet is no proof: the entry stays');
  // The engine then found the element (elsewhere, or looking different): the entry was wrong.
  cache.lookup(partition, gone, { screen: 0.5, element: 0.8 }).evictStale!();
  assert.equal(cache.lookup(partition, syntheticScreen(), thresholds).info.hit, false, 'evicted: a later lookup finds no entry');
  assert.deepEqual(fs.readdirSync(path.join(stateDir, 'cache')), [], 'its crop file is gone too');
});

test('entries are partitioned by key, description, OS and resolution', async () => {
  const { cache } = await cacheWithEntry();
  for (const other of [{ key: 'edited' }, { description: 'Save' }, { os: 'windows' }, { resolution: '1024x768' }]) {
    assert.equal(cache.lookup({ ...partition, ...other }, syntheticScreen(), thresholds).info.hit, false, JSON.stringify(other));
  }
});

test('the automatic key is the SHA-256 of the test file, and changes when it is edited', () => {
  const file = path.join(testState().stateDir, 'login.feature');
  fs.writeFileSync(file, 'Feature: Log in\n');
  const before = fileCacheKey(file);
  assert.match(before, /^[0-9a-f]{64}$/);
  fs.writeFileSync(file, 'Feature: Log in\n  # edited\n');
  fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
  assert.notEqual(fileCacheKey(file), before);
});

test('the store is bounded: the least recently used entries go first', async () => {
  const { stateDir } = testState();
  const cache = new ElementCache(stateDir, 3);
  for (let i = 0; i < 5; i++) {
    cache.record({ ...partition, description: `d${i}` }, syntheticScreen(), [found]);
    await cache.commit();
    await new Promise((r) => setTimeout(r, 5));
  }
  const db = openDb(stateDir);
  const left = db.prepare('SELECT description FROM cache_entries ORDER BY description').all().map((r: any) => r.description);
  db.close();
  assert.deepEqual(left, ['d2', 'd3', 'd4']);
  assert.equal(fs.readdirSync(path.join(stateDir, 'cache')).length, 3);
});

test('concurrent writers neither corrupt the store nor lose entries', async () => {
  const { stateDir } = testState();
  const writers = 4;
  const each = 25;
  await Promise.all(Array.from({ length: writers }, (_, w) => new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', path.join(REPO_ROOT, 'lib/runtime/register.js'), path.join(REPO_ROOT, 'test/helpers/cache-writer.ts'), stateDir, String(w), String(each)], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${w} exited with ${code}`))));
  })));
  const db = openDb(stateDir);
  const count = (db.prepare('SELECT COUNT(*) AS n FROM cache_entries').get() as { n: number }).n;
  const integrity = db.pragma('integrity_check', { simple: true });
  const perWriter = db.prepare('SELECT cache_key, COUNT(*) AS n FROM cache_entries GROUP BY cache_key').all();
  db.close();
  assert.equal(integrity, 'ok');
  assert.equal(count, writers * each);
  assert.deepEqual(perWriter, Array.from({ length: writers }, (_, w) => ({ cache_key: `writer-${w}`, n: each })));
});

test('a findAll group is cached as a whole and replaced as a whole', async () => {
  const { stateDir } = testState();
  const cache = new ElementCache(stateDir);
  const group = { ...partition, description: 'findAll: Save buttons' };
  const second: Candidate = { ...found, box: { x: 60, y: 65, width: 40, height: 20 } };
  cache.record(group, syntheticScreen(), [found, second]);
  assert.equal(await cache.commit(), 2);
  const hit = cache.lookupAll(group, syntheticScreen(), thresholds);
  assert.deepEqual(hit.candidates!.map((c) => c.box), [found.box, second.box]);
  cache.record(group, syntheticScreen(), [found]);
  assert.equal(await cache.commit(), 1);
  assert.equal(cache.lookupAll(group, syntheticScreen(), thresholds).candidates!.length, 1, 'the new group replaced the old one');
});

test('a findAll group is a miss where two of its elements would be found on one spot: the screen has fewer of them', async () => {
  const { stateDir } = testState();
  const cache = new ElementCache(stateDir);
  const group = { ...partition, description: 'findAll: Save buttons' };
  // Two identical buttons, one above the other; then the lower one is gone.
  const screenWith = (tops: number[]) => {
    const screen = syntheticScreen();
    screen.data.fill(245);
    for (const top of tops) {
      for (let y = 0; y < 30; y++) for (let x = 0; x < 90; x++) {
        const i = ((top + y) * screen.width + 40 + x) * 4;
        const edge = x < 3 || y < 3 || x > 86 || y > 26;
        screen.data.fill(edge ? 40 : x > 20 && x < 70 && y > 10 && y < 20 ? 90 : 200, i, i + 3);
      }
    }
    return screen;
  };
  const two = screenWith([60, 120]);
  cache.record(group, two, [found, { ...found, box: { ...found.box, y: 120 } }]);
  assert.equal(await cache.commit(), 2);
  assert.equal(cache.lookupAll(group, two, thresholds).candidates!.length, 2);
  const one = screenWith([60]);
  const lookup = cache.lookupAll(group, one, { screen: 0.05, element: 0.8 });
  assert.ok(lookup.info.diffPercent! < 5, 'the screens are near enough to be compared');
  assert.equal(lookup.candidates, null, 'not two buttons where one is left');
});

test('a lookup leaves the captured screen as it was, and pending entries are capped', async () => {
  const { cache } = await cacheWithEntry();
  const screen = syntheticScreen();
  for (let i = 3; i < screen.data.length; i += 4) screen.data[i] = 0; // X11's fourth byte
  const before = Buffer.from(screen.data);
  assert.equal(cache.lookup(partition, screen, thresholds).info.hit, true);
  assert.ok(screen.data.equals(before), 'the screen buffer was not written');

  for (let i = 0; i < MAX_PENDING + 10; i++) cache.record({ ...partition, description: `button ${i}` }, syntheticScreen(), [found]);
  assert.equal(cache.pendingCount(), MAX_PENDING);
  assert.equal(await cache.commit(), MAX_PENDING);
  assert.equal(cache.lookup({ ...partition, description: `button ${MAX_PENDING + 9}` }, syntheticScreen(), thresholds).info.hit, true, 'the newest are kept');
  assert.equal(cache.lookup({ ...partition, description: 'button 0' }, syntheticScreen(), thresholds).info.hit, false, 'the oldest went');
  cache.close();
});

test('a description found on several screens keeps a group for each, and the least recently used goes past four', async () => {
  const { stateDir } = testState();
  const cache = new ElementCache(stateDir);
  // Pages with banners of different sizes (9% of the screen apart: beyond the threshold), the button elsewhere on each.
  const page = (n: number) => syntheticScreen({ changedPixels: 320 * 200 * 0.09 * n, buttonX: 10 + n * 12 });
  const at = (n: number): Candidate => ({ ...found, box: { ...found.box, x: 10 + n * 12 } });
  for (const n of [1, 2, 3, 4]) cache.record(partition, page(n), [at(n)]);
  assert.equal(await cache.commit(), 4);
  for (const n of [1, 2, 3, 4]) {
    await new Promise((resolve) => setTimeout(resolve, 5)); // each group's last use at its own millisecond
    const hit = cache.lookup(partition, page(n), thresholds);
    assert.equal(hit.info.strategy, 'pixel-diff', `page ${n} hits its own group`);
    assert.deepEqual(hit.candidate!.box, at(n).box);
  }
  cache.record(partition, page(5), [at(5)]);
  assert.equal(await cache.commit(), 1);
  assert.equal(cache.lookup(partition, page(5), thresholds).info.hit, true);
  assert.equal(cache.lookup(partition, page(1), thresholds).info.hit, false, 'the least recently used group made room');
  assert.equal(cache.lookup(partition, page(4), thresholds).info.hit, true);
  cache.close();
});

test('a miss on another page near enough proves nothing: only a miss on the same screen but where the element stood can evict', async () => {
  const { cache } = await cacheWithEntry();
  const otherPage = syntheticScreen({ changedPixels: 320 * 200 * 0.2 });
  otherPage.data.fill(245, (60 * 320) * 4, (95 * 320) * 4); // and no button on it
  const miss = cache.lookup(partition, otherPage, { screen: 0.5, element: 0.8 });
  assert.equal(miss.info.hit, false);
  assert.equal(miss.evictStale, undefined, 'a page that differs elsewhere keeps the entry');
  const sameScreen = syntheticScreen();
  sameScreen.data.fill(245, (60 * 320) * 4, (95 * 320) * 4);
  assert.equal(typeof cache.lookup(partition, sameScreen, { screen: 0.5, element: 0.8 }).evictStale, 'function');
});
