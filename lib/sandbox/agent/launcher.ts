import fs from 'fs';
import path from 'path';
import { ChildProcess, StdioOptions } from 'child_process';
import { Readable, Writable } from 'stream';
import { CdpPipe } from './cdp-pipe';
import type { PageLoads } from './page-loads';
import { Driver, WindowInfo } from './driver';
import { captureOnChange } from './screen-changes';
import { ProcessGroup } from './processes';
import { DEFAULT_REAP_BOUNDS, endMarkedPrograms, processTree } from './program-reaper';
import { ProgramSpace } from './program-space';
import { unreadableBy } from './sandbox-user';
import { fileURLToPath } from 'url';
import { lookAt } from './redraw';
import { changedShare, MOTION_FLOOR } from '../../image/motion';
import { holdStill } from '../../util/settle';
import { sleep, TimeoutError, waitFor } from '../../util/wait';

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
    '--disable-dev-shm-usage', '--disable-session-crashed-bubble',
    // The omnibox's pop-ups are web pages that each window preloads in a renderer of its own, for each context: about
    // 1.2 s of CPU a page opened, for an address bar that kiosk mode never shows. The spare renderer is a second
    // process started beside each context's first page, for a navigation to another site: Glance's contexts live one
    // scenario, so it is a renderer's start (about 80 ms of CPU) competing with the page's own, and then thrown away.
    '--disable-features=Translate,MediaRouter,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess',
    '--remote-debugging-pipe', '--disable-smooth-scrolling', '--force-renderer-accessibility',
    // Lets a page learn when its frame is on the screen (chrome.gpuBenchmarking), which the launch waits for.
    '--enable-gpu-benchmarking',
    // Alive with no window left: the next scenario's page opens in it, in a context of its own.
    '--keep-alive-for-test',
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
  /** The title of the dialog the program opened first, when its first window is one ("Restore the previous session?"). */
  dialog?: string;
  /**
   * What the accessibility tree showed of a program: its focused widget;
   * none, as its processes are not on the accessibility bus; or nothing
   * seen within the bound. Absent where no tree is read.
   */
  tree?: 'focused' | 'none' | 'not seen';
}

/**
 * What the launcher asks of the accessibility tree: the windows in it, the
 * name of the window whose widget has the keyboard focus, and the processes
 * that have an application on the accessibility bus.
 */
export type FocusedWidgetProbe = (deadlineMs: number) => Promise<{ windows: Set<string>; focusedIn: Set<string>; publishing: Set<number> }>;

/** Held still: no motion beyond a caret's for this long, after the first paint. */
const STILL_MS = 100;
/**
 * A program whose window shows nothing of it in the tree by then publishes
 * none (Tk, a game). Where the launch's processes are known and none of them
 * is on the accessibility bus once the window is painted, that is known at
 * once: toolkits join the bus as they start, before their first window.
 */
const NO_TREE_AFTER_MS = 1000;
/** The longest wait for the tree's focused widget once the window is up and still. */
const FOCUSED_WIDGET_BOUND_MS = 3000;
const LOOK_EVERY_MS = 20;
/** A window told apart from the one that had its id before (see WindowInfo.instance). */
const windowIdentity = (w: WindowInfo) => `${w.id}:${w.instance ?? w.pid}`;

/** The launched process and everything it started, while it runs; empty once it has exited (it handed over). */
function launchedProcesses(child: ChildProcess): Set<number> {
  if (child.exitCode !== null || !child.pid) return new Set();
  return processTree(child.pid);
}

export class Launcher {
  private launches = 0;
  /** Browser profiles made by this launcher: they go when the programs are reset. */
  private readonly profiles: string[] = [];
  /**
   * The browser kept across scenarios, with the contexts opened in it: a
   * reset closes its windows and contexts, and leaves the process running.
   */
  private browser: { child: ChildProcess; cdp: CdpPipe; contexts: string[]; profile: string } | null = null;

  constructor(
    private readonly driver: Driver,
    private readonly processes: ProcessGroup,
    private readonly space: ProgramSpace,
    /** Where the launch logs go: the agent's folder, out of the programs' reach. */
    private readonly logDir: string,
    /** Told of every browser launched, to follow its pages' loads. */
    private readonly pageLoads: PageLoads | null,
    private readonly focusedWidget: FocusedWidgetProbe | null = null,
  ) {}

  /**
   * Runs `command` through sh and resolves once the program is ready for
   * input: its first window (or the dialog it opened first) is mapped and
   * has the keyboard focus, has painted and held still, and, where the
   * program publishes an accessibility tree, its focused widget is in it.
   */
  async app(command: string, timeoutMs: number): Promise<LaunchResult> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    const { window, child } = await this.launch('sh', ['-c', command], command, timeoutMs, false);
    await this.activate(window, Math.max(1, deadline - Date.now()));
    await this.waitForStillScreen(deadline);
    const tree = await this.waitForFocusedWidget(window, child, deadline);
    const current = (await this.driver.windows()).find((w) => w.id === window.id) ?? window;
    const dialog = (await this.driver.isDialog(window.id).catch(() => false)) ? current.title || current.className : undefined;
    return { window: current, durationMs: Date.now() - started, ...(dialog !== undefined ? { dialog } : {}), ...(tree ? { tree } : {}) };
  }

  /**
   * Opens `url` in Chromium, in kiosk mode; resolves once the page has
   * loaded and painted, fills the screen and takes input. A browser kept
   * from an earlier scenario opens it in a fresh context of its own (no
   * cookies, storage or cache of any page before), in a new window: no new
   * process, and no new profile.
   */
  async chrome(url: string, timeoutMs: number): Promise<LaunchResult> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    this.requireReadable(url);
    const kept = this.browser && this.browser.child.exitCode === null && this.browser.cdp.open ? this.browser : null;
    const opened = kept ? await this.openInContext(kept, url).catch(() => null) : null;
    let window: WindowInfo;
    let cdp: CdpPipe;
    if (kept && opened) {
      cdp = kept.cdp;
      window = await this.newWindow(opened.before, `chromium ${url}`, timeoutMs, () => kept.child.exitCode);
      await cdp.waitForPaintedPage(url, deadline, opened.targetId);
    } else {
      // A kept browser that cannot open a page any more is left to the next reset, which ends it.
      this.browser = null;
      const profile = path.join(this.space.browsers, `chromium-${++this.launches}`);
      this.profiles.push(profile);
      const args = chromiumArgs(url, profile, this.driver.width, this.driver.height);
      const launched = await this.launch(findChromium(), args, `chromium ${url}`, timeoutMs, true);
      window = launched.window;
      cdp = new CdpPipe(launched.child.stdio[3] as Writable, launched.child.stdio[4] as Readable);
      this.browser = { child: launched.child, cdp, contexts: [], profile };
      await this.pageLoads?.watch(cdp, launched.child.pid ?? null);
      await cdp.waitForPaintedPage(url, deadline);
    }
    await this.activate(window, timeoutMs);
    await cdp.waitForInput(deadline, () => this.introducePointer());
    const current = (await this.driver.windows()).find((w) => w.id === window.id) ?? window;
    return { window: current, durationMs: Date.now() - started };
  }

  /** Opens `url` in a new context of the kept browser, in a window of its own, full screen. */
  private async openInContext(kept: NonNullable<Launcher['browser']>, url: string): Promise<{ before: Set<string>; targetId: string }> {
    const before = await this.windowsNow();
    const { browserContextId } = await kept.cdp.send<{ browserContextId: string }>('Target.createBrowserContext', { disposeOnDetach: false });
    kept.contexts.push(browserContextId);
    // A window opened this way is not in kiosk mode: it opens full screen, as the first one is.
    const { targetId } = await kept.cdp.send<{ targetId: string }>('Target.createTarget', { url, browserContextId, newWindow: true, windowState: 'fullscreen' });
    return { before, targetId };
  }

  /**
   * Ends every program started since the last reset, as a person closes
   * them, but the kept browser: its pages and contexts are closed, and its
   * process stays for the next scenario. Resolves to how many processes ended.
   */
  async endPrograms(): Promise<number> {
    const browser = await this.releaseBrowser();
    const ended = await endMarkedPrograms(this.space, this.driver, DEFAULT_REAP_BOUNDS, browser?.pids);
    this.space.sessions.keepOnly(browser?.session ?? null);
    this.removeProfiles();
    return ended;
  }

  /** Closes every page and context of the kept browser; returns its processes and the session they run in. */
  private async releaseBrowser(): Promise<{ session: number; pids: Set<number> } | null> {
    const kept = this.browser;
    this.browser = null;
    if (!kept || kept.child.exitCode !== null || !kept.cdp.open || !kept.child.pid) return null;
    try {
      for (const browserContextId of kept.contexts.splice(0)) await kept.cdp.send('Target.disposeBrowserContext', { browserContextId });
      const { targetInfos } = await kept.cdp.send<{ targetInfos: { type: string; targetId: string }[] }>('Target.getTargets');
      for (const target of targetInfos.filter((t) => t.type === 'page')) await kept.cdp.send('Target.closeTarget', { targetId: target.targetId });
    } catch {
      return null; // it did not answer: the reset ends it with the other programs
    }
    const pids = processTree(kept.child.pid);
    // closeTarget answers when the close has begun; the windows leave the screen a little later.
    const closed = await waitFor('the browser windows to close', async () => (await this.driver.windows()).every((w) => w.pid === null || !pids.has(w.pid)) || undefined, { timeoutMs: DEFAULT_REAP_BOUNDS.closeMs, intervalMs: 25 }).catch(() => false);
    if (!closed) return null; // a window that stays: the reset ends the browser with the other programs
    this.browser = kept;
    return { session: kept.child.pid, pids };
  }

  /** The windows on the screen now, known by id and process: window ids are reused when a program restarts. */
  private async windowsNow(): Promise<Set<string>> {
    return new Set((await this.driver.windows()).map(windowIdentity));
  }

  /** The first window not in `before`; fails early when the program has exited with an error. */
  private newWindow(before: Set<string>, label: string, timeoutMs: number, exitCode: () => number | null, tail = () => ''): Promise<WindowInfo> {
    // A launcher that exits 0 after forking (a wrapper script, a single-instance
    // program handing over) is followed through its children: any new window counts.
    return waitFor(`a window from '${label}'`, async () => {
      const code = exitCode();
      if (code !== null && code !== 0) throw new Error(`'${label}' exited with code ${code} before opening a window.${tail()}`);
      return (await this.driver.windows()).find((w) => !before.has(windowIdentity(w)));
    }, { timeoutMs, intervalMs: 40 }).catch((error) => {
      if (!(error instanceof TimeoutError)) throw error;
      const code = exitCode();
      const gone = code === null ? '' : ` It exited with code ${code}, and nothing it started opened one.`;
      throw new Error(`'${label}' opened no window within ${(timeoutMs / 1000).toFixed(1)} s.${gone}${tail()}`);
    });
  }

  private async launch(file: string, args: string[], label: string, timeoutMs: number, debugPipe: boolean): Promise<{ window: WindowInfo; child: ChildProcess }> {
    const before = await this.windowsNow();
    const logPath = path.join(this.logDir, `launch-${++this.launches}.log`);
    const log = fs.openSync(logPath, 'w');
    const stdio: StdioOptions = debugPipe ? ['ignore', log, log, 'pipe', 'pipe'] : ['ignore', log, log];
    const child = this.space.spawn(this.processes, file, args, stdio);
    fs.closeSync(log);
    let exitCode: number | null = null;
    child.once('exit', (code) => { exitCode = code ?? -1; });
    const tail = () => {
      const lines = fs.readFileSync(logPath, 'utf8').trim().split('\n').slice(-5).join('\n');
      return lines ? `\n${lines}` : '';
    };
    const window = await this.newWindow(before, label, timeoutMs, () => exitCode, tail);
    return { window, child };
  }

  /**
   * A page file that the sandbox's user may not read would show Chromium's
   * "file not found" page: say why, and what to do, instead.
   */
  private requireReadable(url: string): void {
    if (!this.space.user || !url.startsWith('file://')) return;
    let file: string;
    try {
      file = fileURLToPath(url);
    } catch {
      return;
    }
    const why = unreadableBy(this.space.user, file);
    if (why) {
      throw new Error(`The sandbox's programs run as the user '${this.space.user.name}', who cannot read ${file}: ${why}. Make the page readable by others (chmod o+x on each folder above it, o+r on the file), serve it over http, or set runAsRoot: true (GLANCE_RUN_AS_ROOT=1).`);
    }
  }

  /** Removes the profiles of the browsers that have ended (all but the kept one's). */
  private removeProfiles(): void {
    const kept = this.browser?.profile;
    for (const profile of this.profiles.splice(0)) {
      if (profile === kept) this.profiles.push(profile);
      else fs.rmSync(profile, { recursive: true, force: true });
    }
  }

  /**
   * Waits until the screen has held still for STILL_MS: the new window has
   * painted. A caret's blink is too small to count as motion.
   */
  private async waitForStillScreen(deadline: number): Promise<void> {
    await holdStill(() => lookAt(captureOnChange(this.driver)), (a, b) => changedShare(a, b) > MOTION_FLOOR, { quietMs: STILL_MS, everyMs: LOOK_EVERY_MS, deadline });
  }

  /**
   * Where the program publishes a tree, waits until its window's focused
   * widget is in it: before that, GTK and Qt programs can drop the first
   * keys. A window that shows nothing in the tree for a while publishes none.
   */
  private async waitForFocusedWidget(window: WindowInfo, launched: ChildProcess, deadline: number): Promise<LaunchResult['tree']> {
    if (!this.focusedWidget) return undefined;
    const started = Date.now();
    const bound = Math.min(deadline, started + FOCUSED_WIDGET_BOUND_MS);
    while (Date.now() < bound) {
      const title = (await this.driver.windows()).find((w) => w.id === window.id)?.title ?? window.title;
      const { windows, focusedIn, publishing } = await this.focusedWidget(Math.max(50, Math.min(500, bound - Date.now())));
      if (focusedIn.has(title)) return 'focused';
      const processes = launchedProcesses(launched);
      if (processes.size && ![...processes].some((pid) => publishing.has(pid))) return 'none';
      if (!windows.has(title) && Date.now() - started >= NO_TREE_AFTER_MS) return 'not seen';
      await sleep(LOOK_EVERY_MS * 2);
    }
    return 'not seen';
  }

  /**
   * Moves the pointer out to the corner and back to the middle. A browser
   * that came up under a resting pointer has seen no pointer motion yet, and
   * then now and again drops its first click; after a motion it takes it.
   * The page says when it saw the motion, so the moves need no pause.
   */
  private async introducePointer(): Promise<void> {
    await this.driver.moveTo(0, 0);
    await this.driver.moveTo(Math.round(this.driver.width / 2), Math.round(this.driver.height / 2));
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
   * Makes `window` the active one and waits until it has the keyboard focus,
   * so that typing reaches it: the window manager focuses a new window a
   * moment after it maps, and under load that moment can come after the
   * test's first keystroke.
   */
  private async activate(window: WindowInfo, timeoutMs: number, label = `'${window.title || window.className}'`): Promise<void> {
    if (!(await this.driver.isActive(window.id))) await this.driver.activate(window.id);
    await waitFor(`${label} to become the active window with the keyboard focus`, async () => (await this.driver.isActive(window.id)) && this.driver.hasFocus(window.id), { timeoutMs, intervalMs: 20 });
  }
}
