import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDb } from '../../lib/store/db';
import { createApiKey, findKey } from '../../lib/service/api-keys';
import { issueToken, signingSecret, verifyToken } from '../../lib/service/tokens';
import { LocalService } from '../../lib/service/local-service';
import { AuthError } from '../../lib/config/errors';
import { testState } from '../helpers/glance';

test('keys are stored hashed, never in clear', () => {
  const { stateDir } = testState();
  const db = openDb(stateDir);
  const { key } = createApiKey(db);
  const rows = db.prepare('SELECT hash, hint FROM api_keys').all() as { hash: string; hint: string }[];
  assert.ok(rows.every((r) => r.hash !== key && !key.includes(r.hash) && r.hash.length === 64));
  assert.ok(findKey(db, key));
  assert.equal(findKey(db, `${key.slice(0, -1)}x`), null);
  db.close();
});

test('auth exchanges a valid key for a token', async () => {
  const state = testState();
  const service = new LocalService(state.stateDir);
  const { token, expiresAt } = await service.auth(state.apiKey);
  assert.match(token, /^[\w-]+\.[\w-]+$/);
  assert.ok(Date.parse(expiresAt) > Date.now());
  service.close();
});

test('a wrong key is rejected and says how to get one', async () => {
  const state = testState();
  const service = new LocalService(state.stateDir);
  const wrong = `glance_${'A'.repeat(43)}`;
  await assert.rejects(service.auth(wrong), (e: Error) => e instanceof AuthError && /glance init/.test(e.message) && !e.message.includes(wrong));
  service.close();
});

test('forged and expired tokens are rejected', async () => {
  const state = testState();
  const db = openDb(state.stateDir);
  const secret = signingSecret(db);
  const good = issueToken(secret, { team: 1, key: 1 });
  assert.equal(verifyToken(secret, good).team, 1);
  const [payload, sig] = good.split('.');
  const forgedPayload = Buffer.from(JSON.stringify({ team: 2, key: 1, iat: 0, exp: Date.now() + 1e9 })).toString('base64url');
  assert.throws(() => verifyToken(secret, `${forgedPayload}.${sig}`), /signature is invalid/);
  assert.throws(() => verifyToken(Buffer.alloc(32, 7), good), /signature is invalid/);
  assert.throws(() => verifyToken(secret, `${payload}`), /malformed/);
  const expired = issueToken(secret, { team: 1, key: 1 }, 1000, Date.now() - 5000);
  assert.throws(() => verifyToken(secret, expired), /expired at/);
  const service = new LocalService(state.stateDir);
  await assert.rejects(service.createSandbox(expired, { os: 'linux', width: 800, height: 600, keepAlive: 0, environment: {}, preview: 'none' }), /expired/);
  service.close();
  db.close();
});
