import fs from 'fs';
import http from 'http';
import { randomBytes } from 'crypto';
import { RawImage } from '../image/pixels';
import type { A11ySnapshot, A11yTextBox, A11yTextRequest } from '../types/a11y';
import { FRAME_DIR, frameFilePath, removeStaleFrameFilesOnce } from './frame-files';

/** Where an agent listens and the token it requires. */
export interface AgentEndpoint {
  host: string;
  port: number;
  token: string;
}

export class AgentRequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'AgentRequestError';
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** The agent holds a changes request at most this long. */
const MAX_CHANGES_WAIT_MS = 10_000;

/**
 * Speaks the agent's HTTP API. One keep-alive connection pool per agent keeps
 * the hot path (screenshot, click) at loopback round-trip cost.
 */
export class AgentClient {
  private readonly pool = new http.Agent({ keepAlive: true, maxSockets: 4 });
  /** A frame file in /dev/shm that a local agent's X server writes into; null when not usable. */
  private sharedFrame: { path: string; fd: number } | null | undefined;
  /** Captures into the shared frame run one at a time. */
  private frameQueue: Promise<unknown> = Promise.resolve();

  /** `sharedMemory: false` forces frames over HTTP even for a local agent (a baseline for benchmarks). */
  constructor(readonly endpoint: AgentEndpoint, private readonly options: { sharedMemory?: boolean } = {}) {}

  get address(): string {
    return `${this.endpoint.host}:${this.endpoint.port}`;
  }

  private async send(method: string, path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; headers: http.IncomingHttpHeaders; data: Buffer }> {
    try {
      return await this.sendOnce(method, path, body, timeoutMs, signal);
    } catch (error) {
      // A kept-alive connection the agent closed while idle fails before the agent reads the request:
      // sent again on a new connection, the call is made once, as meant.
      if (!(error as { staleConnection?: boolean }).staleConnection) throw error;
      return this.sendOnce(method, path, body, timeoutMs, signal);
    }
  }

  private sendOnce(method: string, path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; headers: http.IncomingHttpHeaders; data: Buffer }> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      let gotResponse = false;
      const req = http.request({
        host: this.endpoint.host,
        port: this.endpoint.port,
        method,
        path,
        agent: this.pool,
        signal,
        headers: {
          authorization: `Bearer ${this.endpoint.token}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      }, (res) => {
        gotResponse = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`the agent at ${this.address} did not answer ${method} ${path} within ${timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && error.code === 'ECONNRESET' && !gotResponse;
        reject(stale ? Object.assign(error, { staleConnection: true }) : error);
      });
      req.end(payload);
    });
  }

  /** A JSON call; non-2xx answers reject with the agent's error message. `signal` abandons it. */
  async call<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS, signal?: AbortSignal): Promise<T> {
    const res = await this.send(method, path, body, timeoutMs, signal);
    const json = res.data.length ? JSON.parse(res.data.toString('utf8')) : {};
    if (res.status < 200 || res.status >= 300) throw new AgentRequestError(res.status, json.error ?? `agent answered ${res.status}`);
    return json as T;
  }

  /**
   * The screen as raw BGRX pixels: no encoding on the hot path. A local agent
   * writes into shared memory, so only a small JSON reply crosses the socket.
   */
  screenRaw(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RawImage> {
    const frame = this.frameFile();
    if (!frame) return this.screenOverHttp(timeoutMs);
    const next = this.frameQueue.then(async () => {
      const { width, height } = await this.call<{ width: number; height: number }>('POST', '/screen/shared', { path: frame.path }, timeoutMs);
      const data = Buffer.allocUnsafe(width * height * 4);
      fs.readSync(frame.fd, data, 0, data.length, 0);
      return { width, height, data };
    });
    this.frameQueue = next.catch(() => undefined);
    return next;
  }

  private frameFile(): { path: string; fd: number } | null {
    if (this.sharedFrame !== undefined) return this.sharedFrame;
    this.sharedFrame = null;
    if (this.options.sharedMemory !== false && ['127.0.0.1', 'localhost', '::1'].includes(this.endpoint.host) && fs.existsSync(FRAME_DIR)) {
      try {
        removeStaleFrameFilesOnce();
        const path = frameFilePath('client', randomBytes(4).toString('hex'));
        this.sharedFrame = { path, fd: fs.openSync(path, 'w+', 0o600) };
      } catch {
        /* no shared memory: frames come over HTTP */
      }
    }
    return this.sharedFrame;
  }

  private async screenOverHttp(timeoutMs: number): Promise<RawImage> {
    const res = await this.send('GET', '/screen', undefined, timeoutMs);
    if (res.status !== 200) throw new AgentRequestError(res.status, JSON.parse(res.data.toString('utf8')).error);
    return { width: Number(res.headers['x-width']), height: Number(res.headers['x-height']), data: res.data };
  }

  /**
   * The elements of the sandbox's accessibility tree that are on the screen
   * now. Bounded by `deadlineMs` (default 1 s) and `maxNodes` (default
   * 5,000); an application silent for `appIdleMs` (default 300 ms) is
   * skipped. A sandbox without the tree gives an empty snapshot, not an error.
   */
  a11ySnapshot(options: { deadlineMs?: number; maxNodes?: number; appIdleMs?: number } = {}): Promise<A11ySnapshot> {
    // The agent keeps to the deadline itself; the request's own timeout only covers a lost agent.
    return this.call<A11ySnapshot>('POST', '/a11y', options, (options.deadlineMs ?? 1000) + 5_000);
  }

  /** Every copy of each text inside its node's text (of the last snapshot), with its box; bounded by `deadlineMs`. */
  async a11yTextBoxes(requests: A11yTextRequest[], deadlineMs = 500): Promise<A11yTextBox[]> {
    const { boxes } = await this.call<{ boxes: A11yTextBox[] }>('POST', '/a11y/text-boxes', { requests, deadlineMs }, deadlineMs + 5_000);
    return boxes;
  }

  /**
   * The count of the screen's changes once it passes `after` (-1: at once),
   * or as it is after `timeoutMs`; null when the sandbox does not report
   * changes. `signal` stops waiting.
   */
  async screenChanges(after: number, timeoutMs: number, signal?: AbortSignal): Promise<number | null> {
    const wait = Math.max(0, Math.min(MAX_CHANGES_WAIT_MS, Math.round(timeoutMs)));
    const { count } = await this.call<{ count: number | null }>('GET', `/screen/changes?after=${after}&timeoutMs=${wait}`, undefined, wait + 5_000, signal);
    return count;
  }

  screenPng(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer> {
    return this.download('/screen?format=png', timeoutMs);
  }

  /** The bytes a GET answers with (a PNG, a clip); a non-200 answer rejects with the agent's error. */
  async download(path: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer> {
    const res = await this.send('GET', path, undefined, timeoutMs);
    if (res.status !== 200) throw new AgentRequestError(res.status, JSON.parse(res.data.toString('utf8')).error);
    return res.data;
  }

  close(): void {
    this.pool.destroy();
    if (this.sharedFrame) {
      fs.closeSync(this.sharedFrame.fd);
      fs.rmSync(this.sharedFrame.path, { force: true });
      this.sharedFrame = undefined;
    }
  }
}
