import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { execFileSync } from 'child_process';
import { Client, ElementNotFoundError } from '../../lib/sdk';
import { clientOnPage, fixtureServer, REPO_ROOT, testState } from '../helpers/glance';

// find() and findAll() against Chromium in a real sandbox, read with real OCR.
let server: Awaited<ReturnType<typeof fixtureServer>>;
let client: Client;
const state = testState();

before(async () => {
  server = await fixtureServer();
  client = await clientOnPage(state, `${server.url}/app/users.html`);
});

after(async () => {
  await client?.disconnect();
  await server?.close();
});

test('find().click() on an ordinal pick changes the page', async () => {
  await client.find("the second 'Edit' button").click();
  const heading = await client.find('Editing Bob Stone', { timeout: 5000 });
  assert.equal(heading.found(), true);
  assert.ok(heading.y! < 80, `the heading is at the top, got y=${heading.y}`);
});

test('findAll returns every match in reading order, and [] when nothing matches', async () => {
  const deletes = await client.findAll('Delete buttons');
  assert.equal(deletes.length, 5);
  const ys = deletes.map((e) => e.centerY!);
  assert.deepEqual([...ys].sort((a, b) => a - b), ys);
  assert.ok(deletes.every((e) => e.width! > 40 && e.height! > 20), 'boxes are the buttons, not the words');
  assert.deepEqual(await client.findAll("the 'Archive' button"), []);
});

test('Element carries the spec properties and serialises to exactly the spec keys', async () => {
  const element = await client.find('Add user button');
  assert.equal(element.found(), true);
  assert.deepEqual(element.coordinates, { x: element.x, y: element.y, centerX: element.centerX, centerY: element.centerY });
  assert.deepEqual(element.boundingBox, { x: element.x, y: element.y, width: element.width, height: element.height });
  assert.equal(element.text, 'Add user');
  assert.ok(element.confidence! > 0.8 && element.confidence! <= 1);
  assert.equal(Buffer.from(element.screenshot!, 'base64').subarray(1, 4).toString(), 'PNG');
  const json = JSON.parse(JSON.stringify(element));
  assert.deepEqual(Object.keys(json).sort(), ['aiResponse', 'cache', 'confidence', 'coordinates', 'description', 'found', 'selector', 'similarity', 'threshold', 'x', 'y'].sort());
  assert.deepEqual(Object.keys(json.cache).sort(), ['createdAt', 'diffPercent', 'hit', 'imageUrl', 'strategy']);
  assert.equal(json.threshold, 0.05);
  assert.ok(!JSON.stringify(element).includes(element.screenshot!), 'no image data in the JSON');
  const again = await element.find();
  assert.deepEqual(again.boundingBox, element.boundingBox);
});

test('zoom and verify combined find the same control', async () => {
  // Zoom refines what the pixels say: the OCR engine alone (the tree's boxes are exact already).
  const ocr = await clientOnPage(state, `${server.url}/app/users.html`, { locator: 'ocr' });
  try {
    const plain = await ocr.find('the Search users field');
    const zoomed = await ocr.find('the Search users field', { zoom: true, verify: true });
    assert.equal(zoomed.found(), true);
    assert.ok(Math.abs(zoomed.centerX! - plain.centerX!) <= 3 && Math.abs(zoomed.centerY! - plain.centerY!) <= 3);
    assert.match(zoomed.reason!, /zoomed into 410x230/);
    assert.match(zoomed.reason!, /verified/);
    await ocr.find('the Search users field', { zoom: true, verify: true }).click();
    await ocr.type('carol');
    assert.equal((await ocr.find("the 'carol' input", { timeout: 3000 })).found(), true);
  } finally {
    await ocr.disconnect();
  }
  const tree = await client.find('the Search users field', { zoom: true, verify: true, cacheThreshold: -1 });
  assert.equal(tree.engine, 'a11y');
  assert.match(tree.reason!, /zoom skipped: the a11y engine's box is exact; verified: the tree still shows/);
});

test('not found resolves found() false; acting throws ElementNotFoundError with what was tried', async () => {
  const lines: string[] = [];
  const listener = (line: string) => lines.push(line);
  client.getEmitter().on('log:info', listener);
  const missing = await client.find("the 'Archive' button", { timeout: 0 });
  client.getEmitter().off('log:info', listener);
  assert.equal(missing.found(), false);
  // A bare number is the cache threshold, not a timeout (a miss would wait out the default one).
  assert.equal(await client.find('Add user button', 0.05).found(), true);
  const error = await missing.click().then(() => null, (e: Error) => e);
  assert.ok(error instanceof ElementNotFoundError);
  assert.match(error.message, /'the 'Archive' button'/);
  assert.match(error.message, /ocr engine, 1 attempt/);
  assert.match(error.message, /best candidate/);
  assert.match(error.message, /cache: /);
  assert.ok(error.screenshotPath && fs.existsSync(error.screenshotPath), 'a debug screenshot is saved');
  assert.ok(lines.some((l) => l.startsWith('Element not found')));
  await assert.rejects(client.find("the 'Archive' button", { timeout: 0 }).click(), ElementNotFoundError);
});

test('a confidence above the score makes found() false', async () => {
  const element = await client.find('Add usr button', { timeout: 0 });
  assert.equal(element.found(), true);
  const strict = await client.find('Add usr button', { timeout: 0, confidence: 0.99 });
  assert.equal(strict.found(), false);
});

test('the OCR engine refuses what has no text, and says a vision model is needed', async () => {
  const logo = await client.find('the red logo', { timeout: 10_000 });
  assert.equal(logo.found(), false);
  assert.match(logo.reason!, /vision model/);
});

test('bad find input is refused with the fix', async () => {
  await assert.rejects(client.find('', {}), /needs a description/);
  await assert.rejects(client.find('Save', { timeout: -1 }), /'timeout'/);
  await assert.rejects(client.find('Save', { cacheThreshold: 2 }), /'cacheThreshold'.*or -1/);
  await assert.rejects(client.find('Save', { zom: true } as object), /Did you mean 'zoom'/);
});

test('a field found by its label takes typing, and the form submits', async () => {
  await client.provision.chrome({ url: `${server.url}/app/signup.html` });
  await client.find('the First name field').click();
  await client.type('Ada');
  await client.find("'I agree to the terms of service' checkbox").click();
  await client.find('Sign up button').click();
  const welcome = await client.find('Welcome aboard, Ada!', { timeout: 5000 });
  assert.equal(welcome.found(), true);
});

test('polling re-checks a changed screen at once instead of waiting out 5 s', async () => {
  await client.provision.chrome({ url: `${server.url}/app/delayed.html?delay=1500` });
  const started = Date.now();
  const button = await client.find('Download report button', { timeout: 10_000 });
  assert.equal(button.found(), true);
  // The button shows 1.5 s in; a find that waited out its 5 s between whole looks would come after 5 s.
  assert.ok(Date.now() - started < 4500, `found ${Date.now() - started} ms after the start`);
});

test('glance locate reads a screenshot file without a sandbox, singly and in batch', async () => {
  const screen = await client.screenshot();
  const single = JSON.parse(execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin/glance.js'), 'locate', screen, 'Download report button', '--json'], { encoding: 'utf8' }));
  assert.equal(single.found, true);
  const batchFile = path.join(state.stateDir, 'batch.jsonl');
  fs.writeFileSync(batchFile, `${JSON.stringify({ id: 1, screen, description: 'Reports' })}\n${JSON.stringify({ id: 2, screen, description: 'Missing thing' })}\n`);
  const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin/glance.js'), 'locate', '--batch', batchFile], { encoding: 'utf8' })
    .trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(out.map((r) => [r.id, r.found]), [[1, true], [2, false]]);
  assert.deepEqual(Object.keys(out[0]).sort(), ['centerX', 'centerY', 'confidence', 'found', 'height', 'id', 'width', 'x', 'y']);
});
