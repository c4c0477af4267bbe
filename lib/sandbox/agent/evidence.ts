import fs from 'fs';
import net from 'net';
import path from 'path';
import type http from 'http';
import { execFile } from 'child_process';
import { Driver } from './driver';
import { ProcessGroup } from './processes';
import { Dashcam } from './dashcam';
import type { PageActivity } from './page-loads';
import { RedrawWatch } from './redraw';
import { captureOnChange, pauseUntilDrawn } from './screen-changes';
import { NetworkWatch } from './network-watch';
import { evidenceRoutes } from './evidence-routes';
import { startPreviewServer } from './preview/server';
import { waitFor } from '../../util/wait';

export interface EvidenceOptions {
  display: string;
  driver: Driver;
  processes: ProcessGroup;
  /** Where clips are written. */
  recordingsDir: string;
  /** Start x11vnc and the preview page (a local sandbox whose client wants a preview). */
  vnc: { token: string; title: string; env: NodeJS.ProcessEnv; log: number } | null;
  /** The browser's pages, which an action's redraw wait also waits for. */
  pageLoads: PageActivity;
}

export interface Evidence {
  routes: Record<string, (body: Record<string, any>, url: URL, res: http.ServerResponse) => Promise<unknown>>;
  vncPort: number | null;
  previewPort: number | null;
  /** Finishes the clip being recorded and closes the preview: the sandbox is ending. */
  stop(): Promise<void>;
}

const VNC_READY_MS = 10_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

/**
 * The sandbox's evidence parts: the dashcam, redraw detection with its
 * network watch, and (when asked) x11vnc with the live preview page. Every
 * process they start belongs to the sandbox's process group and ends with it.
 */
export async function startEvidence(options: EvidenceOptions): Promise<Evidence> {
  const { driver, processes } = options;
  // Whatever runs now is the desktop itself; programs started later are the apps whose network is watched.
  const desktop = new Set(processes.pids());
  const dashcam = new Dashcam(options.display, () => ({ width: driver.width, height: driver.height }), processes, options.recordingsDir);
  const network = new NetworkWatch(() => processes.pids().filter((pid) => !desktop.has(pid) && pid !== dashcam.pid));
  const redraw = new RedrawWatch(captureOnChange(driver), (deadline) => network.quiet(deadline), options.pageLoads, pauseUntilDrawn(driver));

  let vncPort: number | null = null;
  let preview: { port: number; close(): void } | null = null;
  if (options.vnc) {
    // A preview that cannot start leaves the sandbox without one (the client says so), never without a sandbox.
    try {
      const port = await freePort();
      // View only: the preview watches; input goes through Glance, but while a recording runs (allowInput below).
      const vnc = processes.spawn('x11vnc', ['-display', options.display, '-rfbport', String(port), '-localhost', '-nopw', '-forever', '-shared', '-viewonly', '-quiet'],
        { env: options.vnc.env, stdio: ['ignore', options.vnc.log, options.vnc.log] });
      vnc.once('error', () => undefined); // not installed: the wait below says so
      if (vnc.pid) desktop.add(vnc.pid);
      await waitFor('x11vnc to listen', () => accepts(port), { timeoutMs: VNC_READY_MS, intervalMs: 20 });
      vncPort = port;
      const vncEnv = options.vnc.env;
      const log = options.vnc.log;
      // x11vnc's remote control (through an X property on the display) switches view-only off and on.
      const allowInput = (allowed: boolean) => execFile('x11vnc', ['-display', options.display, '-R', allowed ? 'noviewonly' : 'viewonly'], { env: vncEnv, timeout: VNC_READY_MS }, (error) => {
        if (error) fs.writeSync(log, `${new Date().toISOString()} the preview could not ${allowed ? 'take' : 'stop taking'} input: ${error.message}\n`);
      });
      preview = await startPreviewServer({ token: options.vnc.token, vncPort: port, title: options.vnc.title, allowInput });
    } catch (error) {
      fs.writeSync(options.vnc.log, `${new Date().toISOString()} no live preview: ${(error as Error).message} (is x11vnc installed? apt-get install x11vnc)\n`);
      vncPort = null;
    }
  }
  return {
    routes: evidenceRoutes(dashcam, redraw),
    vncPort,
    previewPort: preview?.port ?? null,
    stop: async () => {
      preview?.close();
      await dashcam.stop();
    },
  };
}

/** Where a local sandbox's clips go: the state folder's recordings/, where the client keeps them. */
export function recordingsDir(stateDir: string): string {
  return path.join(stateDir, 'recordings');
}
