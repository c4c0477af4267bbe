import fs from 'fs';
import http from 'http';
import path from 'path';
import { spawn } from 'child_process';
import type { Preview } from '../config/options';
import { previewKey } from '../sandbox/preview-key';
import type { FinishedCommand } from './command-runner';

/** Command-log lines are sent in small batches, this far apart, never waited for. */
const FEED_EVERY_MS = 100;

/** The program that opens a URL in the default browser, per platform. */
function opener(url: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/** Why a browser cannot be opened here (CI, no display, no opener), or null when it can. */
export function noBrowserReason(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CI && !/^(0|false)$/i.test(env.CI)) return 'this is a CI run (CI is set)';
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display (DISPLAY is not set)';
  if (process.platform === 'linux' && !onPath('xdg-open', env)) return 'there is no xdg-open to open a browser with';
  return null;
}

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, program)));
}

/**
 * The live preview (the `preview` option): the sandbox's preview page shows
 * its screen and this client's command log as it happens. `browser` opens the
 * page in the default browser (or, where none can open, goes on without it
 * and says so in one line); `ide` writes its URL to `.glance/preview-url` for
 * an editor panel and prints it; `none` does nothing.
 */
export class LivePreview {
  url: string | null = null;
  private pending: { time: number; kind: string; text: string }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private feed: { host: string; port: number; token: string; pool: http.Agent; calls: http.Agent } | null = null;

  constructor(private readonly stateDir: string, private readonly log: (line: string) => void) {}

  /**
   * The mode a session really runs with: `browser` where no browser can open
   * falls back to `none`, said in one line, before a sandbox is started, so
   * that it runs no VNC server nobody watches.
   */
  resolve(mode: Preview): Preview {
    if (mode !== 'browser') return mode;
    const unable = noBrowserReason();
    if (!unable) return mode;
    this.log(`Live preview not opened: ${unable}; going on without it (preview: 'none' silences this).`);
    return 'none';
  }

  /** Starts the preview for a sandbox whose agent serves one at `previewPort` (null: it has none). */
  start(mode: Preview, sandbox: { host: string; previewPort: number | null; token: string }): void {
    if (mode === 'none') return;
    if (!sandbox.previewPort) {
      this.log("No live preview: this sandbox has none (it was started with preview 'none', is an agent you run yourself, or its x11vnc could not start: see its agent.log); going on without it.");
      return;
    }
    this.url = `http://${sandbox.host}:${sandbox.previewPort}/#key=${previewKey(sandbox.token)}`;
    this.feed = {
      host: sandbox.host, port: sandbox.previewPort, token: sandbox.token,
      pool: new http.Agent({ keepAlive: true, maxSockets: 1 }),
      // The recording panel's own: its long read of the page's commands must not hold the log back.
      calls: new http.Agent({ keepAlive: true, maxSockets: 3 }),
    };
    if (mode === 'ide') {
      const file = path.join(this.stateDir, 'preview-url');
      fs.mkdirSync(this.stateDir, { recursive: true });
      fs.writeFileSync(file, `${this.url}\n`, { mode: 0o600 });
      this.log(`Live preview: ${this.url} (also in ${file})`);
      return;
    }
    const { command, args } = opener(this.url);
    try {
      // Detached and never waited for: a browser that hangs or fails cannot hold the test.
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', (error) => this.log(`Live preview not opened (${command}: ${error.message}); going on without it.`));
      child.unref();
      this.log(`Live preview opened in your browser: ${this.url}`);
    } catch (error) {
      this.log(`Live preview not opened (${(error as Error).message}); going on without it.`);
    }
  }

  /** A finished command, for the page's log. */
  observe(command: FinishedCommand): void {
    if (!this.feed) return;
    const mark = command.outcome === 'success' ? 'ok' : command.outcome === 'not-found' ? 'not found' : 'failed';
    const label = command.label ? ` '${command.label}'` : '';
    const why = command.outcome === 'error' && command.errorMessage ? `: ${command.errorMessage.split('\n')[0]}` : '';
    this.add(command.startedAt, command.outcome === 'success' ? 'success' : 'error', `${command.command}${label} ${mark} (${Math.round(command.durationMs)} ms)${why}`);
  }

  private add(time: number, kind: string, text: string): void {
    this.pending.push({ time, kind, text });
    this.timer ??= setTimeout(() => this.send(), FEED_EVERY_MS);
    this.timer.unref();
  }

  private send(): Promise<void> {
    this.timer = null;
    const feed = this.feed;
    if (!feed || !this.pending.length) return Promise.resolve();
    const body = Buffer.from(JSON.stringify({ lines: this.pending.splice(0) }));
    return new Promise((resolve) => {
      const req = http.request({
        host: feed.host, port: feed.port, method: 'POST', path: '/log', agent: feed.pool, timeout: 2000,
        headers: { authorization: `Bearer ${feed.token}`, 'content-type': 'application/json', 'content-length': body.length },
      }, (res) => res.resume().on('end', resolve));
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve()); // the log is a convenience: a lost line fails nothing
      req.end(body);
    });
  }

  /** Whether a page can be shown: the sandbox serves one and this session shows it. */
  get showing(): boolean {
    return this.feed !== null;
  }

  /**
   * A call to the preview server with the sandbox's token (the recording
   * panel's state, pictures and commands); resolves to the status and body,
   * or rejects when the server cannot be reached within `timeoutMs`.
   */
  call(method: string, route: string, body: Buffer | null, { contentType = 'application/json', timeoutMs = 5000 } = {}): Promise<{ status: number; body: Buffer }> {
    const feed = this.feed;
    if (!feed) return Promise.reject(new Error('the live preview is not shown'));
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: feed.host, port: feed.port, method, path: route, agent: feed.calls, timeout: timeoutMs,
        headers: { authorization: `Bearer ${feed.token}`, ...(body ? { 'content-type': contentType, 'content-length': body.length } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`the preview server did not answer ${method} ${route.split('?')[0]} within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  }

  /** Sends what is left and lets go of the connection. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.send();
    this.feed?.pool.destroy();
    this.feed?.calls.destroy();
    this.feed = null;
    this.url = null;
  }
}
