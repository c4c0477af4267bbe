import http from 'http';
import net from 'net';
import type { Duplex } from 'stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AgentClient } from '../../sandbox/agent-client';
import { previewKey } from '../../sandbox/preview-key';
import type { TokenClaims } from '../../service/tokens';
import type { App, ServerContext } from '../app';

const LIVE_PATH = /^\/console\/live\/([\w.-]{1,128})(\/.*)?$/;

/**
 * The console's live view of a sandbox: the sandbox's own preview page
 * (noVNC, view only, with its command log) served below
 * `/console/live/ID/`, its WebSocket bridged through the server. Only the
 * sandbox's team gets there; the preview key, derived from the agent's
 * token, goes to the page after `#`, so no log sees it.
 */
export function liveView(app: App, context: ServerContext, signedIn: (cookie: string | undefined) => TokenClaims | null): void {
  const { service } = context;

  /** The preview server of a sandbox the team owns: its port and key; null when it has none. */
  const preview = async (claims: TokenClaims, id: string): Promise<{ port: number; key: string } | null> => {
    if (!service.owns(claims.team, id)) return null;
    const endpoint = service.agentEndpoint(id);
    if (!endpoint || endpoint.host !== '127.0.0.1') return null;
    const agent = new AgentClient(endpoint);
    try {
      const { previewPort } = await agent.call<{ previewPort?: number | null }>('GET', '/health', undefined, 2_000);
      return previewPort ? { port: previewPort, key: previewKey(endpoint.token) } : null;
    } catch {
      return null;
    } finally {
      agent.close();
    }
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const claims = signedIn(request.headers.cookie);
    if (!claims) return reply.redirect('/', 303);
    const [, id, rest] = LIVE_PATH.exec(request.url.split('?')[0])!;
    const live = await preview(claims, id);
    if (!live) return reply.code(404).type('text/plain; charset=utf-8').send(`Sandbox ${id} has no live view: it is not your team's, it stopped, or it runs on an agent of your own.`);
    if (!rest) return reply.redirect(`/console/live/${id}/#key=${live.key}`, 303);
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    reply.hijack();
    const upstream = http.get({ host: '127.0.0.1', port: live.port, path: `${rest}${query}` }, (answer) => {
      reply.raw.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'text/plain', 'cache-control': 'no-store' });
      answer.pipe(reply.raw);
    });
    upstream.on('error', () => reply.raw.destroy());
    reply.raw.on('close', () => upstream.destroy());
  };
  app.get('/console/live/:id', handle);
  app.get('/console/live/:id/*', handle);

  // The screen's WebSocket: the upgrade is checked like a page, then bridged byte for byte.
  app.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = LIVE_PATH.exec((req.url ?? '').split('?')[0]);
    const refuse = () => socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
    const claims = match && match[2] === '/vnc' ? signedIn(req.headers.cookie) : null;
    if (!match || !claims) return refuse();
    void preview(claims, match[1]).then((live) => {
      if (!live) return refuse();
      const upstream = net.connect(live.port, '127.0.0.1', () => {
        const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?')) : '';
        const headers = Object.entries(req.headers).filter(([name]) => name !== 'cookie').map(([name, value]) => `${name}: ${value}`);
        upstream.write(`GET /vnc${query} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      const end = () => { upstream.destroy(); socket.destroy(); };
      upstream.on('error', end);
      socket.on('error', end);
      socket.on('close', () => upstream.destroy());
    });
  });
}
