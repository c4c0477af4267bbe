import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { RemoteService } from '../../lib/service/remote-service';
import { startServer } from '../../lib/server/serve';
import { serviceContract } from '../contract/service-contract';
import { fixtureServer, testState } from '../helpers/glance';

/** A team server on loopback over a fresh state folder, and a client's own state folder. */
export async function teamServer() {
  const state = testState();
  const server = await startServer({ host: '127.0.0.1', port: 0, stateDir: state.stateDir });
  const clientDir = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'client-'));
  return { ...state, server, clientDir };
}

// The team server's transport against the contract the embedded Service passes.
serviceContract('RemoteService', async () => {
  const it = await teamServer();
  const fixtures = await fixtureServer();
  const service = new RemoteService(it.server.url, it.clientDir);
  return {
    service, apiKey: it.apiKey, stateDir: it.clientDir, base: fixtures.url,
    cleanup: async () => {
      service.close();
      await it.server.close();
      await fixtures.close();
    },
  };
});
