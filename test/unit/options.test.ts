import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveClientOptions, resolveConnectOptions, resolveFindOptions } from '../../lib/config/options';
import { InvalidOptionError } from '../../lib/config/errors';

test('constructor defaults follow the interface spec', () => {
  const o = resolveClientOptions({});
  assert.equal(o.os, 'linux');
  assert.equal(o.resolution, '1366x768');
  assert.deepEqual([o.width, o.height], [1366, 768]);
  assert.equal(o.analytics, true);
  assert.equal(o.logging, true);
  assert.equal(o.autoScreenshots, false);
  assert.equal(o.newSandbox, true);
  assert.equal(o.reconnect, false);
  assert.equal(o.preview, 'browser');
  assert.equal(o.debugOnFailure, false);
  assert.equal(o.verify, false);
  assert.equal(o.dashcam, true);
  assert.deepEqual(o.cache, { enabled: true, thresholds: { find: { screen: 0.05, element: 0.8 }, assert: 0.05 }, maxEntries: 5000 });
  assert.deepEqual(o.redraw, { enabled: true, thresholds: { screen: 0.05, network: false }, timeout: 3000 });
  assert.equal(o.keepAlive, 60000);
});

test('connect defaults: newSandbox is false there', () => {
  assert.equal(resolveConnectOptions({}).newSandbox, false);
  assert.equal(resolveConnectOptions({ newSandbox: true }).newSandbox, true);
});

test('every spec option is accepted', () => {
  const o = resolveClientOptions({
    os: 'windows', resolution: '1920x1080', apiRoot: 'http://127.0.0.1:4780', analytics: false, logging: false,
    autoScreenshots: true, newSandbox: false, reconnect: true, sandboxId: 'sbx-1', preview: 'ide', headless: false,
    debugOnFailure: true, ip: '10.0.0.5', sandboxAmi: 'ami-1', sandboxInstance: 'i3.large',
    cache: { enabled: false, thresholds: { find: { screen: 0.01, element: 0.9 }, assert: 0.1 } }, cacheKey: 'k',
    verify: true, dashcam: false, redraw: { enabled: true, thresholds: { screen: false, network: true } },
    environment: { LANG: 'C' }, ai: { temperature: 0, top: { p: 0.9, k: 1 } },
  });
  assert.equal(o.os, 'windows');
  assert.deepEqual([o.width, o.height], [1920, 1080]);
  assert.equal(o.cache.thresholds.find.element, 0.9);
  assert.equal(o.redraw.thresholds.screen, false);
  assert.equal(o.preview, 'ide');
});

function rejects(input: unknown, option: string, ...fragments: (string | RegExp)[]) {
  assert.throws(() => resolveClientOptions(input), (error: unknown) => {
    assert.ok(error instanceof InvalidOptionError, `expected InvalidOptionError, got ${error}`);
    assert.equal(error.option, option);
    for (const f of fragments) assert.match(error.message, typeof f === 'string' ? new RegExp(f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : f);
    return true;
  });
}

test('a bad resolution names the option, the value and the form', () => {
  rejects({ resolution: '1366*768' }, 'resolution', "'resolution'", "'1366*768'", "'1366x768'");
});

test('a threshold out of range names its path and range', () => {
  rejects({ cache: { thresholds: { find: { screen: 1.5 } } } }, 'cache.thresholds.find.screen', '1.5', 'from 0 to 1');
});

test('an unknown os lists the allowed ones', () => {
  rejects({ os: 'mac' }, 'os', "'mac'", "'linux'", "'windows'");
});

test('an unknown option suggests the closest name', () => {
  rejects({ resolutoin: '1366x768' }, 'resolutoin', "Did you mean 'resolution'");
  rejects({ cache: { tresholds: {} } }, 'cache.tresholds', "Did you mean 'cache.thresholds'");
});

test('wrong types are rejected with what is expected', () => {
  rejects({ logging: 'yes' }, 'logging', 'true or false');
  rejects({ cache: 'on' }, 'cache', 'an object');
  rejects({ environment: { A: 1 } }, 'environment', 'string values');
  rejects({ ai: { top: { p: 2 } } }, 'ai.top.p', 'from 0 to 1');
  rejects({ apiRoot: 'ftp://x' }, 'apiRoot', 'http(s) URL');
  rejects({ keepAlive: -1 }, 'keepAlive', '>= 0');
});

test('headless: true means preview none', () => {
  const o = resolveClientOptions({ headless: true });
  assert.equal(o.preview, 'none');
  assert.equal(o.usedHeadless, true);
  assert.equal(resolveConnectOptions({ headless: true }).preview, 'none');
});

test('connect options are validated too', () => {
  assert.throws(() => resolveConnectOptions({ keepAlive: 'long' }), /'keepAlive'.*'long'/);
  assert.throws(() => resolveConnectOptions({ sandboxid: 'x' }), /Did you mean 'sandboxId'/);
});

test('findAll refuses zoom and verify by name, and says what to use instead', () => {
  const client = resolveClientOptions({});
  assert.throws(() => resolveFindOptions({ zoom: true }, 'findAll', client), /findAll\(\) does not take 'zoom'.*find\(description, \{ zoom: true \}\)/);
  assert.throws(() => resolveFindOptions({ verify: true }, 'findAll', client), /findAll\(\) does not take 'verify'/);
  assert.equal(resolveFindOptions({ zoom: true }, 'find', client).zoom, true);
});
