import fs from 'fs';
import path from 'path';
import { ChildProcess, StdioOptions } from 'child_process';
import { Readable, Writable } from 'stream';
import { CdpPipe } from './cdp-pipe';
import { Driver, WindowInfo } from './driver';
import { ProcessGroup } from './processes';
import { sleep, waitFor } from '../../util/wait';

/** The rest between the two moves of introducePointer(). */
const POINTER_STEP_MS = 30;

/**
 * Starts desktop programs inside the sandbox and waits until they are really
 * there: a new top-level window, and for a browser a painted, settled screen.
 */

/**
 * Flags Chromium needs to run as root on a closed network, fill the screen at
 * 0,0, and publish its pages' accessibility tree (which it otherwise builds
 * only once a screen reader asks).
 */
export function chromiumArgs(url: string, userDataDir: string, width: number, height: number): string[] {
  return [
    '--no-sandbox', '--test-type', '--disable-gpu', '--disable-quic', '--no-first-run', '--no-default-browser-check',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--password-store=basic',
    '--disable-dev-shm-usage', '--disable-features=Translate,MediaRouter', '--disable-session-crashed-bubble',
    '--remote-debugging-pipe', '--disable-smooth-scrolling', '--force-renderer-accessibility',
    `--user-data-dir=${userDataDir}`, '--kiosk', '--window-position=0,0', `--window-size=${width},${height}`, url,
  ];
}

export function findChromium(): string {
  const candidates = [process.env.GLANCE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
    .filter((c): c is string => !!c);
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`Chromium was not found (looked at ${candidates.join(', ')}). Install it with 'apt-get install chromium' or set GLANCE_CHROMIUM to its path.`);
  return found;
}

export interface LaunchResult {
  window: WindowInfo;
  durationMs: number;
}

export class Launcher {
  private launches = 0;
  /** The programs started through this launcher (not the X server or window manager). */
  private readonly launched = new Set<ChildProcess>();

  constructor(
    private readonly driver: Driver,
    private readonly processes: ProcessGroup,
    private readonly env: NodeJS.ProcessEnv,
    private readonly workDir: string,
  ) {}

  /** Runs `command` through sh and waits for its first new window. */
  async app(command: string, timeoutMs: number): Promise<LaunchResult> {
    const started = Date.now();
    const { window } = await this.launch('sh', ['-c', command], command, timeoutMs, false);
    await this.activate(window, timeoutMs);
    return { window, durationMs: Date.now() - started };
  }

  /** Opens Chromium in kiosk mode on `url`; resolves once the page has loaded and painted. */
  async chrome(url: string, timeoutMs: number): Promise<LaunchResult> {
    const started = Date.now();
    const profile = path.join(this.workDir, `chromium-${++this.launches}`);
    const args = chromiumArgs(url, profile, this.driver.width, this.driver.height);
    const { window, child } = await this.launch(findChromium(), args, `chromium ${url}`, timeoutMs, true);
    const cdp = new CdpPipe(child.stdio[3] as Writable, child.stdio[4] as Readable);
    await cdp.waitForPaintedPage(started + timeoutMs);
    await this.activate(window, timeoutMs);
    await cdp.waitForInput(started + timeoutMs, () => this.introducePointer());
    const current = (await this.driver.windows()).find((w) => w.id === window.id) ?? window;
    return { window: current, durationMs: Date.now() - started };
  }

  private async launch(file: string, args: string[], label: string, timeoutMs: number, debugPipe: boolean): Promise<{ window: WindowInfo; child: ChildProcess }> {
    // Window ids are reused when a program is restarted, so a window is known by its id and its process.
    const identity = (w: WindowInfo) => `${w.id}:${w.pid}`;
    const before = new Set((await this.driver.windows()).map(identity));
    const logPath = path.join(this.workDir, `launch-${++this.launches}.log`);
    const log = fs.openSync(logPath, 'w');
    const stdio: StdioOptions = debugPipe ? ['ignore', log, log, 'pipe', 'pipe'] : ['ignore', log, log];
    const child = this.processes.spawn(file, args, { env: this.env, cwd: this.workDir, stdio });
    this.launched.add(child);
    child.once('exit', () => this.launched.delete(child));
    fs.closeSync(log);
    let exitCode: number | null = null;
    child.once('exit', (code) => { exitCode = code ?? -1; });

    const window = await waitFor(`a window from '${label}'`, async () => {
      if (exitCode !== null && exitCode !== 0) {
        const tail = fs.readFileSync(logPath, 'utf8').trim().split('\n').slice(-5).join('\n');
        throw new Error(`'${label}' exited with code ${exitCode} before opening a window.${tail ? `\n${tail}` : ''}`);
      }
      return (await this.driver.windows()).find((w) => !before.has(identity(w)));
    }, { timeoutMs, intervalMs: 40 });
    return { window, child };
  }

  /** Ends every program this launcher started and waits until their windows are gone: the desktop as it was at start. */
  async closeAll(timeoutMs: number): Promise<number> {
    const children = [...this.launched];
    for (const child of children) {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    }
    const pids = new Set(children.map((c) => c.pid));
    await waitFor('the closed programs\' windows to go', async () => !(await this.driver.windows()).some((w) => w.pid !== null && pids.has(w.pid)), { timeoutMs, intervalMs: 25 }).catch(() => undefined);
    return children.length;
  }

  /**
   * Moves the pointer out to the corner and back to the middle. A browser
   * that came up under a resting pointer has seen no pointer motion yet, and
   * then now and again drops its first click; after a motion it takes it.
   */
  private async introducePointer(): Promise<void> {
    await this.driver.moveTo(0, 0);
    await sleep(POINTER_STEP_MS);
    await this.driver.moveTo(Math.round(this.driver.width / 2), Math.round(this.driver.height / 2));
    await sleep(POINTER_STEP_MS);
  }

  /** Brings the first window whose title or class contains `name` to the front. */
  async focus(name: string, timeoutMs: number): Promise<WindowInfo> {
    const needle = name.toLowerCase();
    const matches = (w: WindowInfo) => w.title.toLowerCase().includes(needle) || w.className.toLowerCase().includes(needle);
    const windows = await this.driver.windows();
    const target = windows.find(matches);
    if (!target) {
      const open = windows.map((w) => `'${w.title || w.className}'`).join(', ') || 'none';
      throw new Error(`No window matches '${name}'. Open windows: ${open}.`);
    }
    await this.activate(target, timeoutMs, `'${name}'`);
    return target;
  }

  /**
   * Makes `window` the active one, so that typing reaches it: the window
   * manager focuses a new window a moment after it maps, and under load that
   * moment can come after the test's first keystroke.
   */
  private async activate(window: WindowInfo, timeoutMs: number, label = `'${window.title || window.className}'`): Promise<void> {
    if ((await this.driver.activeWindow()) === window.id) return;
    await this.driver.activate(window.id);
    await waitFor(`${label} to become the active window`, async () => (await this.driver.activeWindow()) === window.id, { timeoutMs, intervalMs: 20 });
  }
}
