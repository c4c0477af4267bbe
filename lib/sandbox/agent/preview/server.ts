import fs from 'fs';
import http from 'http';
import net from 'net';
import path from 'path';
import { WebSocketServer } from 'ws';
import { previewKey } from '../../preview-key';
import { previewPage } from './page';
import { bearerToken, readBody, sameSecret } from '../http-requests';
import { PANEL_LIMITS, RecordingPanel } from './recording-panel';

/** One line of the command log, as the client sends it (already masked). */
export interface PreviewLogEntry {
  time: number;
  kind: 'start' | 'success' | 'error' | 'info';
  text: string;
}

const LOG_KEPT = 500;
const MAX_BODY = 256 * 1024;
/** noVNC's ES modules, served as they are: the page imports core/rfb.js, which imports the rest. */
function novncRoot(): string {
  return path.resolve(path.dirname(require.resolve('@novnc/novnc')), '..');
}

/**
 * The live preview's server, on a port of its own next to the agent's: the
 * page, noVNC's modules, a WebSocket bridge to x11vnc (bound to localhost),
 * the command log as server-sent events, and while a recording runs, its
 * panel (recording-panel.ts). The page and noVNC are public; the screen, the
 * log and the panel need the preview key; adding to the log and putting the
 * panel's steps need the sandbox's token, which only its client has.
 * `allowInput` lets the screen take the page's input while a recording runs.
 */
export async function startPreviewServer(options: { token: string; vncPort: number; title: string; allowInput?: (allowed: boolean) => void }): Promise<{ port: number; close(): void }> {
  const key = previewKey(options.token);
  const NOVNC_ROOT = novncRoot();
  const entries: PreviewLogEntry[] = [];
  const listeners = new Set<http.ServerResponse>();
  const page = previewPage(options.title);
  const publish = (event: string, data: unknown) => {
    for (const listener of listeners) listener.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const panel = new RecordingPanel(publish, options.allowInput ?? (() => undefined));

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://preview');
    const fail = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(message);
    };
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    /** A change the panel took (204), or refused with its reason. */
    const done = (refused: string | null, status: number) => (refused ? fail(status, refused) : res.writeHead(204).end());
    const withKey = () => sameSecret(url.searchParams.get('key'), key);
    const withToken = () => sameSecret(bearerToken(req), options.token);
    const jsonBody = async (max: number): Promise<unknown> => {
      const body = await readBody(req, max);
      if (!body) return undefined;
      try {
        return JSON.parse(body.toString('utf8'));
      } catch {
        return undefined;
      }
    };
    const index = Number(url.searchParams.get('index'));
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end(page);
    } else if (req.method === 'GET' && url.pathname.startsWith('/novnc/')) {
      const file = path.resolve(NOVNC_ROOT, `.${decodeURIComponent(url.pathname.slice('/novnc'.length))}`);
      if (!file.startsWith(NOVNC_ROOT + path.sep) || !file.endsWith('.js') || !fs.existsSync(file)) return fail(404, 'not found');
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      fs.createReadStream(file).pipe(res);
    } else if (req.method === 'GET' && url.pathname === '/log') {
      if (!withKey()) return fail(401, 'the preview needs its key');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      for (const entry of entries) res.write(`data: ${JSON.stringify(entry)}\n\n`);
      if (panel.current.active || panel.current.steps.length) res.write(`event: recording\ndata: ${JSON.stringify(panel.current)}\n\n`);
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
    } else if (req.method === 'POST' && url.pathname === '/log') {
      if (!withToken()) return fail(401, 'missing or wrong agent token');
      void jsonBody(MAX_BODY).then((body) => {
        const lines = (body as { lines?: PreviewLogEntry[] } | undefined)?.lines;
        if (!Array.isArray(lines)) return fail(400, 'the log takes {"lines": [{time, kind, text}]}');
        for (const line of lines) {
          const entry: PreviewLogEntry = { time: Number(line.time) || Date.now(), kind: line.kind, text: String(line.text).slice(0, 2000) };
          entries.push(entry);
          if (entries.length > LOG_KEPT) entries.shift();
          for (const listener of listeners) listener.write(`data: ${JSON.stringify(entry)}\n\n`);
        }
        res.writeHead(204).end();
      });
    } else if (url.pathname === '/recording' && req.method === 'PUT') {
      if (!withToken()) return fail(401, 'missing or wrong agent token');
      void jsonBody(PANEL_LIMITS.state).then((body) => done(panel.put(body), 400));
    } else if (url.pathname === '/recording/picture' && req.method === 'PUT') {
      if (!withToken()) return fail(401, 'missing or wrong agent token');
      if (!Number.isInteger(index)) return fail(400, 'a picture needs ?index=N, its step');
      void readBody(req, PANEL_LIMITS.picture).then((png) => {
        if (!png) return fail(413, 'a step picture is at most 2 MB');
        panel.putPicture(index, png);
        res.writeHead(204).end();
      });
    } else if (url.pathname === '/recording/picture' && req.method === 'GET') {
      if (!withKey()) return fail(401, 'the preview needs its key');
      const png = panel.picture(index);
      if (!png) return fail(404, `no picture for step ${url.searchParams.get('index')}`);
      // A step's picture never changes (a re-picked step is a new step).
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'private, max-age=3600' });
      res.end(png);
    } else if (url.pathname === '/recording/command' && req.method === 'POST') {
      if (!withKey()) return fail(401, 'the preview needs its key');
      void jsonBody(PANEL_LIMITS.command).then((body) => done(panel.command(body), 409));
    } else if (url.pathname === '/recording/commands' && req.method === 'GET') {
      if (!withToken()) return fail(401, 'missing or wrong agent token');
      void panel.read(Number(url.searchParams.get('after')) || 0, Number(url.searchParams.get('timeoutMs')) || 0).then((commands) => json({ commands }));
    } else {
      fail(404, 'not found');
    }
  });

  // The screen: each WebSocket is bridged to its own connection to x11vnc.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://preview');
    if (url.pathname !== '/vnc' || !sameSecret(url.searchParams.get('key'), key)) {
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
      panel.close();
      for (const listener of listeners) listener.end();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      server.close();
    },
  };
}
