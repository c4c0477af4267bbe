import fs from 'fs';
import path from 'path';
import { Client } from '../lib/sdk';
import { serveFolder } from '../lib/util/static-server';
import { FIXTURES, testState } from '../test/helpers/glance';
import { serveProcess } from '../test/helpers/server-process';
import { Figure, figure, withRatio } from './stats';

const CLIENTS = 4;
const FINDS = 200;

/**
 * Cached finds through the team server against the same finds through the
 * embedded Service, in one run on one sandbox: 4 clients at once, 200 finds
 * each. The server runs as its own process (`glance serve`), as a team runs it.
 */
export async function serverBench(): Promise<Figure[]> {
  const state = testState();
  const pages = await serveFolder(FIXTURES);
  const server = await serveProcess(state.stateDir);
  const clientDir = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'bench-client-'));
  const clients: Client[] = [];
  let instanceId = '';
  const options = { preview: 'none' as const, logging: false, analytics: false, dashcam: false, cacheKey: 'bench-server' };
  try {
    // One sandbox, its page open; every client joins it.
    const first = new Client(state.apiKey, { ...options, apiRoot: server.url, stateDir: clientDir });
    clients.push(first);
    await first.auth();
    ({ instanceId } = await first.connect({ keepAlive: 300_000 }));
    await first.provision.chrome({ url: `${pages.url}/app/studio.html` });

    const run = async (made: Client[]) => {
      // Each transport's cache is its own: the first find writes the entry, the rest are hits.
      await made[0].find('Export button');
      await made[0].commitCache();
      const errors: string[] = [];
      const times = (await Promise.all(made.map(async (client) => {
        const own: number[] = [];
        for (let i = 0; i < FINDS; i++) {
          const started = performance.now();
          const element = await client.find('Export button').catch((e: Error) => { errors.push(e.message); return null; });
          own.push(performance.now() - started);
          if (element && !element.cache.hit) errors.push(`find ${i} missed the cache`);
        }
        return own;
      }))).flat();
      if (errors.length) throw new Error(`${errors.length} of ${times.length} finds failed: ${errors[0]}`);
      return times;
    };
    const join = async (apiRoot: string | undefined, stateDir: string) => {
      const made: Client[] = [];
      for (let i = 0; i < CLIENTS; i++) {
        const client = new Client(state.apiKey, { ...options, apiRoot, stateDir });
        clients.push(client);
        await client.auth();
        await client.connect({ sandboxId: instanceId, keepAlive: 300_000 });
        made.push(client);
      }
      return made;
    };
    const remoteClients = await join(server.url, clientDir);
    const localClients = await join(undefined, state.stateDir);
    const remote = await run(remoteClients);
    const local = await run(localClients);
    // One client alone: the transport's own latency, without the server's second core working for four.
    const remoteAlone = await run(remoteClients.slice(0, 1));
    const localAlone = await run(localClients.slice(0, 1));

    const compare = (label: string, remoteTimes: number[], localTimes: number[], target?: string): Figure[] => {
      const localFigure = figure(`cached find, embedded Service, ${label}`, localTimes);
      const remoteFigure = withRatio(figure(`cached find, through the team server, ${label}`, remoteTimes), localFigure);
      const difference = (a: number, b: number) => Math.round((a - b) * 10) / 10;
      return [remoteFigure, localFigure, {
        name: `the server's cost per cached find, ${label} (median difference)`, unit: 'ms', median: difference(remoteFigure.median, localFigure.median),
        p90: difference(remoteFigure.p90, localFigure.p90), p95: difference(remoteFigure.p95, localFigure.p95), samples: remoteTimes.length, target,
      }];
    };
    return [...compare(`${CLIENTS} clients x ${FINDS}`, remote, local, '<= 15'), ...compare(`1 client x ${FINDS}`, remoteAlone, localAlone)];
  } finally {
    for (const client of clients.reverse()) await client.disconnect().catch(() => undefined);
    if (instanceId) {
      // The sandbox was kept alive for the clients that joined it: the last one stops it.
      const last = new Client(state.apiKey, { ...options, stateDir: state.stateDir });
      await last.auth();
      await last.connect({ sandboxId: instanceId, keepAlive: 0 }).then(() => last.disconnect(), () => undefined);
    }
    await server.stop();
    await pages.close();
  }
}
