import fs from 'fs';
import http from 'http';
import net from 'net';
import path from 'path';
import { timingSafeEqual } from 'crypto';
import { WebSocketServer } from 'ws';
import { previewKey } from '../../preview-key';
import { previewPage } from './page';

/** One line of the command log, as the client sends it (already masked). */
export interface PreviewLogEntry {
  time: number;
  kind: 'start' | 'success' | 'error' | 'info' | 'step';
  text: string;
}

const LOG_KEPT = 500;
const MAX_BODY = 256 * 1024;
/** noVNC's ES modules, served as they are: the page imports core/rfb.js, which imports the rest. */
function novncRoot(): string {
  return path.resolve(path.dirname(require.resolve('@novnc/novnc')), '..');
}

function same(given: string | null | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The live preview's server, on a port of its own next to the agent's: the
 * page, noVNC's modules, a WebSocket bridge to x11vnc (bound to localhost),
 * and the command log as server-sent events. The page and noVNC are public;
 * the screen and the log need the preview key; adding to the log needs the
 * sandbox's token, which only its client has.
 */
export async function startPreviewServer(options: { token: string; vncPort: number; title: string }): Promise<{ port: number; close(): void }> {
  const key = previewKey(options.token);
  const NOVNC_ROOT = novncRoot();
  const entries: PreviewLogEntry[] = [];
  const listeners = new Set<http.ServerResponse>();
  const page = previewPage(options.title);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://preview');
    const fail = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(message);
    };
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end(page);
    } else if (req.method === 'GET' && url.pathname.startsWith('/novnc/')) {
      const file = path.resolve(NOVNC_ROOT, `.${decodeURIComponent(url.pathname.slice('/novnc'.length))}`);
      if (!file.startsWith(NOVNC_ROOT + path.sep) || !file.endsWith('.js') || !fs.existsSync(file)) return fail(404, 'not found');
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      fs.createReadStream(file).pipe(res);
    } else if (req.method === 'GET' && url.pathname === '/log') {
      if (!same(url.searchParams.get('key'), key)) return fail(401, 'the preview needs its key');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      for (const entry of entries) res.write(`data: ${JSON.stringify(entry)}\n\n`);
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
    } else if (req.method === 'POST' && url.pathname === '/log') {
      const header = req.headers.authorization ?? '';
      if (!same(header.startsWith('Bearer ') ? header.slice(7) : '', options.token)) return fail(401, 'missing or wrong agent token');
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => { size += chunk.length; if (size <= MAX_BODY) chunks.push(chunk); });
      req.on('end', () => {
        try {
          const { lines } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { lines: PreviewLogEntry[] };
          for (const line of Array.isArray(lines) ? lines : []) {
            const entry: PreviewLogEntry = { time: Number(line.time) || Date.now(), kind: line.kind, text: String(line.text).slice(0, 2000) };
            entries.push(entry);
            if (entries.length > LOG_KEPT) entries.shift();
            for (const listener of listeners) listener.write(`data: ${JSON.stringify(entry)}\n\n`);
          }
          res.writeHead(204).end();
        } catch {
          fail(400, 'the log takes {"lines": [{time, kind, text}]}');
        }
      });
    } else {
      fail(404, 'not found');
    }
  });

  // The screen: each WebSocket is bridged to its own connection to x11vnc.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://preview');
    if (url.pathname !== '/vnc' || !same(url.searchParams.get('key'), key)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => {
      const vnc = net.connect(options.vncPort, '127.0.0.1');
      vnc.on('data', (data) => ws.send(data));
      ws.on('message', (data) => vnc.write(data as Buffer));
      const end = () => { vnc.destroy(); ws.close(); };
      vnc.on('close', end);
      vnc.on('error', end);
      ws.on('close', end);
      ws.on('error', end);
    });
  });

  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).on('error', reject));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const listener of listeners) listener.end();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      server.close();
    },
  };
}
