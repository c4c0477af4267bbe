import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'http';
import fs from 'fs';
import path from 'path';
import { execFileSync } from 'child_process';
import { AddressInfo } from 'net';
import { RemoteService } from '../../lib/service/remote-service';
import { startServer, RunningServer } from '../../lib/server/serve';
import { createApiKey } from '../../lib/service/api-keys';
import { requireTeam, revokeKey, listKeys } from '../../lib/service/teams';
import { openDb } from '../../lib/store/db';
import { InvalidOptionError } from '../../lib/config/errors';
import { sleep } from '../../lib/util/wait';
import { testState } from '../helpers/glance';

// What the team server does with requests that are not what they should be: no sandbox is started here.

async function send(url: string, method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${url}${path}`, { method, body: options.body, headers: options.headers });
  const text = await response.text();
  let json: { error?: { name: string; message: string } } = {};
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: response.status, json, text, headers: response.headers };
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** A sign-in sent from `from`, an address of the loopback network: the server counts failures by the address it sees. */
function signInFrom(url: string, apiKey: string, from: string): Promise<{ status: number; message: string; retryAfter: string | undefined }> {
  const body = JSON.stringify({ apiKey });
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/v1/auth`, { method: 'POST', localAddress: from, headers: { ...JSON_TYPE, 'content-length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => {
        let message = '';
        try { message = JSON.parse(text).error?.message ?? ''; } catch { /* not JSON */ }
        resolve({ status: response.statusCode!, message, retryAfter: response.headers['retry-after'] as string | undefined });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('sign-in and tokens', () => {
  let server: RunningServer;
  let state: { stateDir: string; apiKey: string };

  before(async () => {
    state = testState();
    server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir, tokenTtlMs: 2_000, authAttemptsPerMinute: 3 });
  });

  after(() => server.close());

  test('no token, a bogus key and a forged token are refused with 401 and what to do', async () => {
    const none = await send(server.url, 'GET', '/v1/sandboxes/last');
    assert.equal(none.status, 401);
    assert.match(none.json.error!.message, /has no bearer token.*POST \/v1\/auth/);
    const forged = await send(server.url, 'GET', '/v1/sandboxes/last', { headers: { authorization: 'Bearer eyJ0ZWFtIjoxLCJrZXkiOjF9.AAAA' } });
    assert.equal(forged.status, 401);
    assert.match(forged.json.error!.message, /signature is invalid/);
    const bogus = await send(server.url, 'POST', '/v1/auth', { body: JSON.stringify({ apiKey: 'glance_bogus' }), headers: JSON_TYPE });
    assert.equal(bogus.status, 401);
    assert.match(bogus.json.error!.message, /API key is not valid for this team server.*glance keys create/);
    assert.doesNotMatch(bogus.json.error!.message, new RegExp(state.stateDir), 'the server does not tell clients where its state is');
  });

  test('tokens expire, and the client renews its token with its key without the caller noticing', async () => {
    const service = new RemoteService(server.url, state.stateDir);
    try {
      const { token } = await service.auth(state.apiKey);
      await sleep(2_100);
      const expired = await send(server.url, 'GET', '/v1/sandboxes/last', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(expired.status, 401);
      assert.match(expired.json.error!.message, /expired/);
      assert.equal(await service.lastSandboxId(token), null, 'the old token was renewed behind the call');
    } finally {
      service.close();
    }
  });

  test("a revoked key's tokens stop working at once", async () => {
    const db = openDb(state.stateDir);
    const { key } = createApiKey(db, 'default');
    db.close();
    const service = new RemoteService(server.url, state.stateDir);
    try {
      const { token } = await service.auth(key);
      assert.equal(await service.lastSandboxId(token), null);
      const admin = openDb(state.stateDir);
      const team = requireTeam(admin, 'default');
      revokeKey(admin, team.id, String(listKeys(admin, team.id).at(-1)!.id));
      admin.close();
      await assert.rejects(service.lastSandboxId(token), /revoked/);
    } finally {
      service.close();
    }
  });

  test('failed sign-ins are limited per address and per key (3 a minute here)', async () => {
    // Per address: three wrong keys from one address, and then the right key from it waits.
    for (let i = 0; i < 3; i++) assert.equal((await signInFrom(server.url, `glance_guess_${i}`, '127.0.0.3')).status, 401);
    const limited = await signInFrom(server.url, state.apiKey, '127.0.0.3');
    assert.equal(limited.status, 429);
    assert.match(limited.message, /Too many failed sign-ins.*try again in \d+ s/);
    assert.ok(Number(limited.retryAfter) > 0);
    // Per key: one wrong key tried from three addresses, and then from a fourth it waits; the right key from there does not.
    for (const from of ['127.0.0.4', '127.0.0.5', '127.0.0.6']) assert.equal((await signInFrom(server.url, 'glance_one_guess', from)).status, 401);
    assert.equal((await signInFrom(server.url, 'glance_one_guess', '127.0.0.7')).status, 429);
    assert.equal((await signInFrom(server.url, state.apiKey, '127.0.0.7')).status, 200);
  });
});

test('a client and a server of different protocols say so plainly, naming both versions', async () => {
  const state = testState();
  const server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir });
  // An older server: answers sign-in in the protocol's shape, with another protocol number.
  const older = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: 'x.y', expiresAt: new Date(Date.now() + 60_000).toISOString(), server: { glance: '0.0.9', protocol: 0 } }));
  });
  await new Promise<void>((resolve) => older.listen(0, '127.0.0.1', resolve));
  const service = new RemoteService(`http://127.0.0.1:${(older.address() as AddressInfo).port}`, state.stateDir);
  try {
    const refused = await send(server.url, 'GET', '/v1/version', { headers: { 'x-glance-version': '9.0.0', 'x-glance-protocol': '99' } });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error!.message, /team server runs Glance \S+ \(protocol 1\), but the client runs Glance 9\.0\.0 \(protocol 99\)\. Install the same Glance version on both/);
    const error = await service.auth(state.apiKey).catch((e) => e);
    assert.ok(error instanceof InvalidOptionError && error.option === 'apiRoot', String(error));
    assert.match(error.message, /client runs Glance \S+ \(protocol 1\), but the team server at .* runs Glance 0\.0\.9 \(protocol 0\)/);
  } finally {
    service.close();
    older.close();
    await server.close();
  }
});

test('malformed, oversized and unauthorised requests across the routes each get a 4xx with a message, and the server lives on', async () => {
  const state = testState();
  const server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir });
  try {
    const token = (await send(server.url, 'POST', '/v1/auth', { body: JSON.stringify({ apiKey: state.apiKey }), headers: JSON_TYPE })).json as unknown as { token: string };
    const auth = { authorization: `Bearer ${token.token}` };
    const authJson = { ...auth, ...JSON_TYPE };
    const big = Buffer.alloc(5 * 1024 * 1024, 'a');
    const cases: [string, string, { body?: string | Buffer; headers?: Record<string, string> }][] = [
      ['POST', '/v1/auth', { body: '{"apiKey":', headers: JSON_TYPE }],
      ['POST', '/v1/auth', { body: '{}', headers: JSON_TYPE }],
      ['POST', '/v1/auth', { body: '{"apiKey":42}', headers: JSON_TYPE }],
      ['POST', '/v1/auth', { body: JSON.stringify({ apiKey: 'k'.repeat(500) }), headers: JSON_TYPE }],
      ['POST', '/v1/auth', { body: JSON.stringify({ apiKey: 'glance_x', extra: 1 }), headers: JSON_TYPE }],
      ['POST', '/v1/auth', { body: 'apiKey=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['POST', '/v1/auth', { body: big, headers: JSON_TYPE }],
      ['POST', '/v1/sandboxes', { body: '{}', headers: JSON_TYPE }],
      ['POST', '/v1/sandboxes', { body: '{}', headers: authJson }],
      ['POST', '/v1/sandboxes', { body: JSON.stringify({ os: 'linux', width: -1, height: 768, keepAlive: 0, environment: {}, preview: 'none' }), headers: authJson }],
      ['POST', '/v1/sandboxes', { body: JSON.stringify({ os: 'beos', width: 800, height: 600, keepAlive: 0, environment: {}, preview: 'none' }), headers: authJson }],
      ['POST', '/v1/sandboxes', { body: JSON.stringify({ os: 'linux', width: 800, height: 600, keepAlive: 0, environment: { A: 1 }, preview: 'none' }), headers: authJson }],
      ['POST', '/v1/sandboxes', { body: big, headers: authJson }],
      ['POST', '/v1/sandboxes', { body: 'null', headers: authJson }],
      ['POST', '/v1/sandboxes', { body: '[]', headers: authJson }],
      ['POST', '/v1/sandboxes/attach', { body: JSON.stringify({ host: 'x', port: 70000, agentToken: 't' }), headers: authJson }],
      ['POST', '/v1/sandboxes/attach', { body: JSON.stringify({ host: '', port: 1, agentToken: 't' }), headers: authJson }],
      ['POST', '/v1/sandboxes/attach', { body: JSON.stringify({ host: '127.0.0.1', port: 1, agentToken: 't' }), headers: authJson }],
      ['GET', '/v1/sandboxes/last', { headers: { authorization: 'Basic abc' } }],
      ['GET', '/v1/sandboxes/last', { headers: { authorization: 'Bearer ' } }],
      ['GET', '/v1/sandboxes/last', { headers: { authorization: 'Bearer a.b' } }],
      ['GET', '/v1/sandboxes/last', { headers: { authorization: `Bearer ${token.token}x` } }],
      ['POST', '/v1/sandboxes/sbx-000000000000/rejoin', { headers: auth }],
      ['POST', '/v1/sandboxes/..%2F..%2Fetc/rejoin', { headers: auth }],
      ['POST', '/v1/sandboxes/sbx-1/rejoin', {}],
      ['POST', '/v1/sessions', { body: '{}', headers: authJson }],
      ['POST', '/v1/sessions', { body: JSON.stringify({ instanceId: 'sbx-000000000000', settings: {} }), headers: authJson }],
      ['POST', '/v1/sessions', { body: JSON.stringify({ instanceId: 'sbx-000000000000', settings: { locator: 'auto', os: 'linux', vision: null, cache: { enabled: true, thresholds: { find: { screen: 0.05, element: 0.8 }, assert: 0.05 }, maxEntries: 10 } } }), headers: authJson }],
      ['POST', '/v1/sessions/nope/locate', { body: '{}', headers: authJson }],
      ['POST', '/v1/sessions/nope/locate', { body: JSON.stringify({ description: 'x', cacheKey: null, cacheThreshold: 0, timeout: 0, type: 'any', zoom: false, verify: false, ai: {} }), headers: authJson }],
      ['POST', '/v1/sessions/nope/locate', { body: JSON.stringify({ description: '', cacheKey: null, cacheThreshold: 0, timeout: 0, type: 'any', zoom: false, verify: false, ai: {} }), headers: authJson }],
      ['POST', '/v1/sessions/nope/locate', { body: JSON.stringify({ description: 'x', cacheKey: null, cacheThreshold: 0, timeout: -5, type: 'any', zoom: false, verify: false, ai: {} }), headers: authJson }],
      ['POST', '/v1/sessions/nope/locate-all', { body: '{"description":"x"', headers: authJson }],
      ['POST', '/v1/sessions/nope/read-text', { body: JSON.stringify({ x: 'a', y: 0, width: 1, height: 1 }), headers: authJson }],
      ['POST', '/v1/sessions/nope/read-text', { body: JSON.stringify({ x: 0, y: 0, width: 1, height: 1 }), headers: authJson }],
      ['POST', '/v1/sessions/nope/assert', { body: JSON.stringify({ statement: 'x' }), headers: authJson }],
      ['POST', '/v1/sessions/nope/cache/commit', { headers: auth }],
      ['POST', '/v1/sessions/nope/cache/discard', {}],
      ['POST', '/v1/sessions/nope/stop', { body: JSON.stringify({ keepAlive: 'soon' }), headers: authJson }],
      ['POST', '/v1/commands', { body: JSON.stringify({ records: [{ runId: 'r' }] }), headers: authJson }],
      ['POST', '/v1/commands', { body: JSON.stringify({ records: 'none' }), headers: authJson }],
      ['GET', '/v1/screenshots/../../glance.db', { headers: auth }],
      ['GET', '/v1/screenshots/%2e%2e/%2e%2e/glance.db', { headers: auth }],
      ['GET', '/v1/screenshots/none.png', {}],
      ['GET', '/v1/sandboxes/sbx-000000000000/agent/health', {}],
      ['GET', '/v1/sandboxes/sbx-000000000000/agent/health', { headers: auth }],
      ['POST', '/v1/sandboxes/sbx-000000000000/agent/click', { body: big, headers: authJson }],
      ['DELETE', '/v1/sandboxes/last', { headers: auth }],
      ['GET', '/v2/anything', {}],
      ['PUT', '/v1/auth', { body: '{}', headers: JSON_TYPE }],
    ];
    for (const [method, path, options] of cases) {
      const answer = await send(server.url, method, path, options);
      const what = `${method} ${path} ${String(options.body ?? '').slice(0, 60)}`;
      assert.ok(answer.status >= 400 && answer.status < 500, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
      assert.ok(answer.json.error?.message && answer.json.error.message.length > 10, `${what}: a message, got ${answer.text.slice(0, 200)}`);
      assert.doesNotMatch(answer.text, new RegExp(token.token.replace(/[.]/g, '\\.')), `${what}: the token is not echoed`);
    }
    const oversized = await send(server.url, 'POST', '/v1/sandboxes', { body: big, headers: authJson });
    assert.equal(oversized.status, 413);
    assert.equal((await send(server.url, 'POST', '/v1/auth', { body: '{"apiKey":', headers: JSON_TYPE })).status, 400);
    assert.equal((await send(server.url, 'GET', '/v1/version')).status, 200, 'the server lives on');
  } finally {
    await server.close();
  }
});

test('with --tls-cert and --tls-key the server speaks HTTPS, and a client that trusts the certificate signs in', async () => {
  const state = testState();
  const dir = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'tls-'));
  const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir, tls: { cert: fs.readFileSync(cert, 'utf8'), key: fs.readFileSync(key, 'utf8') } });
  const trusting = new RemoteService(server.url, state.stateDir, { ca: fs.readFileSync(cert, 'utf8') });
  const untrusting = new RemoteService(server.url, state.stateDir);
  try {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const { token } = await trusting.auth(state.apiKey);
    assert.equal(await trusting.lastSandboxId(token), null);
    const started = Date.now();
    await assert.rejects(untrusting.auth(state.apiKey), /\(1 try\).*self-signed certificate.*NODE_EXTRA_CA_CERTS/s);
    assert.ok(Date.now() - started < 2000, 'an untrusted certificate is not tried again');
    const plain = await fetch(server.url.replace('https:', 'http:') + '/v1/version').then((r) => r.status, (e: Error) => e.message);
    assert.notEqual(plain, 200, 'no plain HTTP on the HTTPS port');
  } finally {
    trusting.close();
    untrusting.close();
    await server.close();
  }
});

test('an apiRoot that is not a team server (a proxy error page) is named as such, not read as an answer', async () => {
  const state = testState();
  const proxy = http.createServer((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body>Bad Gateway</body></html>');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const service = new RemoteService(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, state.stateDir);
  try {
    const error = await service.auth(state.apiKey).catch((e) => e);
    assert.ok(error instanceof InvalidOptionError && error.option === 'apiRoot', String(error));
    assert.match(error.message, /answered 502 with something other than JSON .*Bad Gateway.*Is apiRoot the team server's URL/);
  } finally {
    service.close();
    proxy.close();
  }
});

test('behind a reverse proxy (--trust-proxy) the console takes the scheme from the proxy; without it, forwarded headers are not believed', async () => {
  const state = testState();
  const proxied = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir, trustProxy: true });
  const direct = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir });
  const login = (url: string) => fetch(`${url}/console/login`, {
    method: 'POST', redirect: 'manual', body: new URLSearchParams({ apiKey: state.apiKey }),
    headers: { origin: `https://${new URL(url).host}`, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
  });
  try {
    const through = await login(proxied.url);
    assert.equal(through.status, 303);
    assert.match(through.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict; Path=\/; Secure/);
    const spoofed = await login(direct.url);
    assert.equal(spoofed.status, 401, 'an https origin on a plain-HTTP server is another site');
  } finally {
    await proxied.close();
    await direct.close();
  }
});
