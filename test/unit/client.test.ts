import { test } from 'node:test';
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
