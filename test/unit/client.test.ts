import { test } from 'node:test';
import http from 'http';
import type { AddressInfo } from 'net';
import assert from 'node:assert/strict';
import { Client, AuthError, StateError, InvalidOptionError } from '../../lib/sdk';
import { testState } from '../helpers/glance';

test('a missing key fails in the constructor and says how to get one', () => {
  const saved = process.env.GLANCE_API_KEY;
  const cwd = process.cwd();
  const state = testState();
  delete process.env.GLANCE_API_KEY;
  process.chdir(state.stateDir); // no .env here
  try {
    assert.throws(() => new Client({ stateDir: state.stateDir }), (e: Error) => e instanceof AuthError && /glance init/.test(e.message));
  } finally {
    process.chdir(cwd);
    if (saved !== undefined) process.env.GLANCE_API_KEY = saved;
  }
});

test('the key comes from GLANCE_API_KEY when not passed', async () => {
  const state = testState();
  process.env.GLANCE_API_KEY = state.apiKey;
  try {
    const client = new Client({ stateDir: state.stateDir, logging: false });
    assert.equal(typeof (await client.auth()), 'string');
  } finally {
    delete process.env.GLANCE_API_KEY;
  }
});

test('bad options fail in the constructor, naming the option', () => {
  const state = testState();
  assert.throws(() => new Client(state.apiKey, { resolution: '1366*768' }), InvalidOptionError);
  assert.throws(() => new Client(state.apiKey, { os: 'mac' as 'linux' }), /'os'.*'mac'/);
});

test('connect() before auth() is an error that says so', async () => {
  const state = testState();
  const client = new Client(state.apiKey, { stateDir: state.stateDir, logging: false });
  await assert.rejects(client.connect(), (e: Error) => e instanceof StateError && /auth\(\)/.test(e.message));
});

test('actions before connect() fail clearly, and disconnect() is safe anyway', async () => {
  const state = testState();
  const client = new Client(state.apiKey, { stateDir: state.stateDir, logging: false });
  await assert.rejects(client.click(10, 10), /Not connected/);
  await client.disconnect();
  await client.disconnect();
  assert.equal(client.getInstance(), null);
  assert.equal(client.getSessionId(), null);
});

test('a wrong key never appears in errors, events or logs', async () => {
  const state = testState();
  const wrongKey = `glance_${'Z'.repeat(43)}`;
  const client = new Client(wrongKey, { stateDir: state.stateDir, logging: false });
  const seen: string[] = [];
  for (const name of ['command:start', 'command:success', 'command:error', 'log:info']) {
    client.getEmitter().on(name, (payload) => seen.push(JSON.stringify(payload, (_k, v) => (v instanceof Error ? `${v.message} ${v.stack}` : v))));
  }
  const error = await client.auth().then(() => null, (e: Error) => e);
  assert.ok(error instanceof AuthError);
  assert.ok(seen.length >= 2, 'start and error events were emitted');
  for (const text of [...seen, error.message, String(error.stack)]) assert.ok(!text.includes(wrongKey), `key leaked in: ${text}`);
});

test('headless logs a one-line deprecation', () => {
  const state = testState();
  const lines: string[] = [];
  const original = console.log;
  console.log = (line: string) => lines.push(line);
  try {
    const client = new Client(state.apiKey, { stateDir: state.stateDir, headless: true });
    assert.equal(client.getInstance(), null);
  } finally {
    console.log = original;
  }
  assert.equal(lines.filter((l) => /headless.*deprecated.*preview: 'none'/.test(l)).length, 1);
});

test('apiRoot sends auth() to the team server, never falling back to the local service, and a bad URL is refused by name', async () => {
  const state = testState();
  // Something that is not a team server: the sign-in goes there, and fails naming apiRoot.
  const other = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  try {
    const apiRoot = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const client = new Client(state.apiKey, { stateDir: state.stateDir, logging: false, apiRoot });
    await assert.rejects(client.auth(), (e: Error) => e instanceof InvalidOptionError && e.option === 'apiRoot' && /answered 404 with something other than JSON/.test(e.message));
  } finally {
    other.close();
  }
  process.env.GLANCE_API_ROOT = 'not a url';
  try {
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), /GLANCE_API_ROOT.*'not a url'/);
  } finally {
    delete process.env.GLANCE_API_ROOT;
  }
});

test('the locator is checked in the constructor, from the option and from GLANCE_LOCATOR', () => {
  const state = testState();
  assert.throws(() => new Client(state.apiKey, { locator: 'ocrr' as 'ocr' }), /'locator'.*'ocrr'.*did you mean 'ocr'/);
  assert.throws(() => new Client(state.apiKey, { locator: 'vision' }), (e: Error) => e instanceof InvalidOptionError && /'vision' locator needs a vision model.*GLANCE_AI_MODEL/.test(e.message));
  process.env.GLANCE_LOCATOR = 'tesseract';
  try {
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), (e: Error) => e instanceof InvalidOptionError && /GLANCE_LOCATOR.*'tesseract'/.test(e.message));
    process.env.GLANCE_LOCATOR = 'ocr';
    assert.equal(new Client(state.apiKey, { stateDir: state.stateDir }).getLocator(), 'ocr');
  } finally {
    delete process.env.GLANCE_LOCATOR;
  }
});

test('the vision model is read from GLANCE_AI_* in the constructor, and bad values are named', () => {
  const state = testState();
  const set = (vars: Record<string, string>) => Object.assign(process.env, vars);
  const names = ['GLANCE_AI_MODEL', 'GLANCE_AI_BASE_URL', 'GLANCE_AI_FAMILY', 'GLANCE_AI_TIMEOUT', 'GLANCE_AI_RETRIES'];
  try {
    set({ GLANCE_AI_MODEL: 'some-model' });
    assert.equal(new Client(state.apiKey, { stateDir: state.stateDir }).getLocator(), 'auto');
    set({ GLANCE_AI_FAMILY: 'qwen25' });
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), /GLANCE_AI_FAMILY.*'qwen25'.*'qwen2.5-vl'/);
    delete process.env.GLANCE_AI_FAMILY;
    set({ GLANCE_AI_TIMEOUT: 'soon' });
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), /GLANCE_AI_TIMEOUT.*'soon'.*whole number/);
    delete process.env.GLANCE_AI_TIMEOUT;
    set({ GLANCE_AI_BASE_URL: 'localhost:8000' });
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), /GLANCE_AI_BASE_URL.*'localhost:8000'.*http/);
    delete process.env.GLANCE_AI_MODEL;
    set({ GLANCE_AI_BASE_URL: 'http://localhost:8000/v1' });
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir }), /GLANCE_AI_MODEL is not/);
  } finally {
    for (const name of names) delete process.env[name];
  }
});

test('GLANCE_OCR_READER is checked in the constructor, by name', () => {
  const state = testState();
  process.env.GLANCE_OCR_READER = 'easyocr';
  try {
    assert.throws(() => new Client(state.apiKey, { stateDir: state.stateDir, logging: false }), (e: Error) => e instanceof InvalidOptionError && /GLANCE_OCR_READER 'easyocr'.*tesseract\+paddle, tesseract\+detector, tesseract, paddle/.test(e.message));
    process.env.GLANCE_OCR_READER = 'tesseract';
    assert.doesNotThrow(() => new Client(state.apiKey, { stateDir: state.stateDir, logging: false }));
  } finally {
    delete process.env.GLANCE_OCR_READER;
  }
});
