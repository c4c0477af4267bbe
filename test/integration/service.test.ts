import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { LocalService } from '../../lib/service/local-service';
import { AgentClient } from '../../lib/sandbox/agent-client';
import { serviceContract } from '../contract/service-contract';
import { fixtureServer, testState } from '../helpers/glance';

// The embedded Service against the contract every transport must pass.
serviceContract('LocalService', async () => {
  const state = testState();
  const server = await fixtureServer();
  const service = new LocalService(state.stateDir);
  return {
    service, apiKey: state.apiKey, stateDir: state.stateDir, base: server.url,
    cleanup: async () => {
      await service.shutdown();
      await server.close();
    },
  };
});

/** Open descriptors of this process that point at a file. */
function openHandles(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(path.join('/proc/self/fd', fd)) === file;
    } catch {
      return false;
    }
  }).length;
}

test('LocalService closes its SQLite handles when the last session ends', async () => {
  const state = testState();
  const service = new LocalService(state.stateDir);
  const db = path.join(state.stateDir, 'glance.db');
  const { token } = await service.auth(state.apiKey);
  const sandbox = await service.createSandbox(token, { os: 'linux', width: 1024, height: 768, keepAlive: 0, environment: {}, preview: 'none' });
  const agent = new AgentClient(sandbox.agent);
  try {
    await agent.call('POST', '/session', { keepAlive: 0 });
    const settings = { locator: 'ocr' as const, os: 'linux' as const, cache: { enabled: true, thresholds: { find: { screen: 0.05, element: 0.8 }, assert: 0.05 }, maxEntries: 10 }, vision: null };
    const { sessionId } = await service.openSession(token, sandbox.instance.instanceId, settings);
    await service.commitCache(sessionId);
    await service.locate(sessionId, { description: 'anything at all', cacheKey: 'k', cacheThreshold: 0.05, timeout: 0, type: 'any', zoom: false, verify: false, ai: {} });
    assert.ok(openHandles(db) >= 1, 'the session uses the database');
    await service.stopSandbox(sessionId, { keepAlive: 0 });
    assert.equal(openHandles(db), 0, 'no handle to glance.db is left open');
  } finally {
    agent.close();
    await service.shutdown();
  }
});
