import type { Os } from '../config/options';
import fs from 'fs';
import { randomBytes } from 'crypto';
import { HttpAnswer, HttpClient, HttpTarget } from './http-client';
import { OWN_VERSION, versionMismatch } from '../util/version';
import { SandboxError } from '../config/errors';
import { RawImage } from '../image/pixels';
import type { A11ySnapshot, A11yTextBox, A11yTextRequest } from '../types/a11y';
import { FRAME_DIR, frameFilePath, removeStaleFrameFilesOnce } from './frame-files';

/** What an agent says of itself. */
export interface AgentHealth {
  id: string;
  display: string;
  width: number;
  height: number;
  vncPort: number | null;
  /** The desktop it serves (agents before Glance 0.1 did not say: linux); 'macos' is reached by ip only. */
  os?: Os | 'macos';
}

/** Where an agent listens and the token it requires; behind the team server, a path of the server. */
export interface AgentEndpoint extends HttpTarget {
  /** false: the agent cannot write into this machine's shared memory (it runs in a container), so frames come over HTTP. */
  sharedMemory?: boolean;
}

export class AgentRequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'AgentRequestError';
  }
}

/** The error an agent answered with: its own `{ error: message }`, or the team server's `{ error: { message } }`. */
function answerError(res: HttpAnswer): AgentRequestError {
  let message = `agent answered ${res.status}`;
  try {
    const { error } = JSON.parse(res.data.toString('utf8'));
    message = typeof error === 'string' ? error : error?.message ?? message;
  } catch {
    /* not JSON: the status says it */
  }
  return new AgentRequestError(res.status, message);
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** The agent holds a changes request at most this long. */
const MAX_CHANGES_WAIT_MS = 10_000;

/**
 * Speaks the agent's HTTP API, directly or through the team server. One
 * keep-alive pool per agent keeps the hot path (screenshot, click) at
 * loopback round-trip cost.
 */
export class AgentClient {
  private readonly http: HttpClient;
  /** A frame file in /dev/shm that a local agent's X server writes into; null when not usable. */
  private sharedFrame: { path: string; fd: number } | null | undefined;
  /** Captures into the shared frame run one at a time. */
  private frameQueue: Promise<unknown> = Promise.resolve();

  /** `sharedMemory: false` forces frames over HTTP even for a local agent (a baseline for benchmarks). */
  constructor(readonly endpoint: AgentEndpoint, private readonly options: { sharedMemory?: boolean } = {}) {
    this.http = new HttpClient(endpoint);
  }

  get address(): string {
    return this.http.address;
  }

  private send(method: string, path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> {
    return this.http.send(method, path, body, timeoutMs, signal);
  }

  /**
   * What the agent says of itself (`/health`), once its Glance version is
   * known to speak this one's protocol; a SandboxError names both versions
   * when it does not.
   */
  async health(timeoutMs = 5_000): Promise<AgentHealth> {
    const health = await this.call<AgentHealth & { glance?: string; protocol?: number }>('GET', '/health', undefined, timeoutMs);
    const mismatch = versionMismatch(OWN_VERSION, 'Glance service', { glance: health.glance ?? 'an older version', protocol: health.protocol ?? 0 }, `agent at ${this.address}`);
    if (mismatch) throw new SandboxError(mismatch);
    return health;
  }

  /** A JSON call; non-2xx answers reject with the agent's error message. `signal` abandons it. */
  async call<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS, signal?: AbortSignal): Promise<T> {
    const res = await this.send(method, path, body, timeoutMs, signal);
    if (res.status < 200 || res.status >= 300) throw answerError(res);
    return (res.data.length ? JSON.parse(res.data.toString('utf8')) : {}) as T;
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
    // Behind the team server (a base path), frames travel over HTTP: the server does not pass on frame files.
    const local = ['127.0.0.1', 'localhost', '::1'].includes(this.endpoint.host) && !this.endpoint.basePath;
    if (this.options.sharedMemory !== false && this.endpoint.sharedMemory !== false && local && fs.existsSync(FRAME_DIR)) {
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
    if (res.status !== 200) throw answerError(res);
    return { width: Number(res.headers['x-width']), height: Number(res.headers['x-height']), data: res.data };
  }

  /**
   * The elements of the sandbox's accessibility tree that are on the screen
   * now. Bounded by `deadlineMs` (default 1 s) and `maxNodes` (default
   * 5,000); an application silent for `appIdleMs` (default 300 ms) is
   * skipped. A sandbox without the tree gives an empty snapshot, not an error.
   */
  a11ySnapshot(options: { deadlineMs?: number; maxNodes?: number; appIdleMs?: number; texts?: string[] } = {}): Promise<A11ySnapshot> {
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
   * changes. `signal` stops waiting. With `ignoreCaret`, a drawing no bigger
   * than a caret neither ends the wait nor counts (an agent too old to tell
   * counts it).
   */
  async screenChanges(after: number, timeoutMs: number, signal?: AbortSignal, ignoreCaret = false): Promise<number | null> {
    const wait = Math.max(0, Math.min(MAX_CHANGES_WAIT_MS, Math.round(timeoutMs)));
    const ignore = ignoreCaret ? '&ignore=caret' : '';
    const { count } = await this.call<{ count: number | null }>('GET', `/screen/changes?after=${after}&timeoutMs=${wait}${ignore}`, undefined, wait + 5_000, signal);
    return count;
  }

  screenPng(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer> {
    return this.download('/screen?format=png', timeoutMs);
  }

  /** The bytes a GET answers with (a PNG, a clip); a non-200 answer rejects with the agent's error. */
  async download(path: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Buffer> {
    const res = await this.send('GET', path, undefined, timeoutMs);
    if (res.status !== 200) throw answerError(res);
    return res.data;
  }

  close(): void {
    this.http.close();
    if (this.sharedFrame) {
      fs.closeSync(this.sharedFrame.fd);
      fs.rmSync(this.sharedFrame.path, { force: true });
      this.sharedFrame = undefined;
    }
  }
}
