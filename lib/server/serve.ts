import { AddressInfo } from 'net';
import { openDb } from '../store/db';
import { markEnded, openSandboxes } from '../service/sandbox-owners';
import { endOpenSessions } from '../service/session-log';
import { sandboxAlive, SandboxRegistry } from '../sandbox/registry';
import { App, buildServer, ServerOptions } from './app';

export interface RunningServer {
  /** The root URL clients set as apiRoot. */
  url: string;
  app: App;
  /** What reconciliation at start found: sandboxes still running, and those recorded as ended. */
  reconciled: { alive: string[]; ended: string[] };
  close(): Promise<void>;
}

/**
 * Starts the team server. At start, the database's open sandboxes are
 * reconciled with the backend: the backend's word on whether each still runs
 * wins, so a restarted server takes up the sandboxes that outlived it and
 * records the others as ended.
 */
export async function startServer(options: ServerOptions & { host: string; port: number }): Promise<RunningServer> {
  const { app, service } = await buildServer(options);
  // The backend's word first: containers that ended or passed their deadline are recorded as stopped.
  await service.reconcileBackends();
  const reconciled = reconcile(options.stateDir);
  await app.listen({ host: options.host, port: options.port });
  const { port } = app.server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
    app,
    reconciled,
    close: () => app.close(),
  };
}

export function reconcile(stateDir: string): { alive: string[]; ended: string[] } {
  const db = openDb(stateDir);
  const registry = new SandboxRegistry(stateDir);
  const alive: string[] = [];
  const ended: string[] = [];
  try {
    // Sessions do not outlive the server; their clients open them again on their next call.
    endOpenSessions(db, 'the server stopped');
    for (const row of openSandboxes(db)) {
      // An agent of your own outlives the server; a session on it is connected again by attaching.
      if (row.provider === 'ip') continue;
      const record = registry.read(row.sandboxId);
      if (record && sandboxAlive(record)) {
        alive.push(row.sandboxId);
      } else {
        markEnded(db, row.sandboxId, record?.stopReason ? `stopped: ${record.stopReason}` : 'found gone when the server started');
        ended.push(row.sandboxId);
      }
    }
  } finally {
    db.close();
  }
  return { alive, ended };
}
