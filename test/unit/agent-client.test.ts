import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'http';
import { AgentClient } from '../../lib/sandbox/agent-client';

/**
 * A server that, like an agent closing an idle kept-alive connection in the
 * same instant the client reuses it, drops the second request on a reused
 * connection unanswered; a new connection is served.
 */
async function closingServer(): Promise<{ server: http.Server; port: number; served: () => number }> {
  let served = 0;
  const seen = new WeakSet<object>();
  const server = http.createServer((req, res) => {
    if (seen.has(req.socket)) { req.socket.destroy(); return; }
    seen.add(req.socket);
    served++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ n: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, served: () => served };
}

test('a call on a kept-alive connection the agent dropped unanswered is sent once more, on a new connection', async () => {
  const { server, port, served } = await closingServer();
  const client = new AgentClient({ host: '127.0.0.1', port, token: 't' });
  try {
    assert.deepEqual(await client.call('GET', '/health'), { n: 1 });
    assert.deepEqual(await client.call('POST', '/pointer', { action: 'click', x: 1, y: 1 }), { n: 2 });
    assert.equal(served(), 2);
  } finally {
    client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
