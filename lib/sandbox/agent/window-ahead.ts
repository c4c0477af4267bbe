import type { CdpPipe } from './cdp-pipe';
import type { Driver, WindowInfo } from './driver';
import type { PageLoads } from './page-loads';
import { sleep, waitFor } from '../../util/wait';

/** A window known by id and process: window ids are reused when a program restarts. */
export const windowIdentity = (w: WindowInfo): string => `${w.id}:${w.pid}`;

/** How long a window made ahead may take to be made and appear on the window list: window lists wait for it. */
const MAKE_BOUND_MS = 2000;

export interface WindowMadeAhead {
  contextId: string;
  targetId: string;
  /** The browser's own id of the window. */
  windowId: number;
  /** Its identity on the window list, where it is left out until taken. */
  window: string;
}

/**
 * The next page's window, made ahead in the kept browser: a new context with
 * a window at about:blank, minimized and in the background, so that it takes
 * neither the keyboard nor a pixel of the screen. The next page brings it up
 * and navigates it, and skips the new window (about 100 ms here) and most of
 * its new renderer's start. Until it is taken it is no one's: window lists
 * leave it out (and wait while it is made, so that it is never taken for a
 * program's window), and the pages' loads and frames leave its context out.
 */
export class WindowAhead {
  private made: Promise<WindowMadeAhead | null> | null = null;

  constructor(private readonly driver: Driver, private readonly pageLoads: PageLoads | null) {}

  /** Starts making one in the browser behind `cdp`, unless one is made or being made. */
  make(cdp: CdpPipe): void {
    if (this.made) return;
    const making = this.create(cdp);
    let late = false;
    this.made = Promise.race([making, sleep(MAKE_BOUND_MS).then(() => { late = true; return null; })]);
    // A browser too busy to make it in time: one made later is no one's, and goes.
    void making.then((made) => {
      if (late && made) void cdp.send('Target.disposeBrowserContext', { browserContextId: made.contextId }).catch(() => undefined);
    });
  }

  /** The one made, once made, for the page about to open: from now on it is that page's. Null when there is none. */
  async take(): Promise<WindowMadeAhead | null> {
    const made = await this.made;
    this.forget();
    return made;
  }

  /** The one made, once made, left where it is (a reset keeps it). */
  async current(): Promise<WindowMadeAhead | null> {
    return this.made;
  }

  /** Drops it: its browser is gone, or ends with the programs. */
  forget(): void {
    this.made = null;
    this.pageLoads?.setSpare(null);
  }

  /** The windows on the screen, less the one made ahead. */
  async windowsBesides(): Promise<WindowInfo[]> {
    const made = await this.made;
    return (await this.driver.windows()).filter((w) => windowIdentity(w) !== made?.window);
  }

  /** Brings a taken one up, full screen, and sends it to `url`. One that fails half way is closed. */
  async bringUp(cdp: CdpPipe, made: WindowMadeAhead, url: string): Promise<void> {
    try {
      // Out of minimized, at the screen's place and size, then full screen: straight to full screen, it stays minimized.
      await cdp.send('Browser.setWindowBounds', { windowId: made.windowId, bounds: { windowState: 'normal' } });
      await cdp.send('Browser.setWindowBounds', { windowId: made.windowId, bounds: { left: 0, top: 0, width: this.driver.width, height: this.driver.height } });
      await cdp.send('Browser.setWindowBounds', { windowId: made.windowId, bounds: { windowState: 'fullscreen' } });
      const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId: made.targetId, flatten: true });
      await cdp.send('Page.navigate', { url }, sessionId);
      await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
    } catch (error) {
      await cdp.send('Target.disposeBrowserContext', { browserContextId: made.contextId }).catch(() => undefined);
      throw error;
    }
  }

  /** A new context with a window in it, minimized and in the background, at about:blank; null when it could not be made. */
  private async create(cdp: CdpPipe): Promise<WindowMadeAhead | null> {
    try {
      const before = new Set((await this.driver.windows()).map(windowIdentity));
      const { browserContextId: contextId } = await cdp.send<{ browserContextId: string }>('Target.createBrowserContext', { disposeOnDetach: false });
      // Known before its page is made, so that none of the page's events count.
      this.pageLoads?.setSpare(contextId);
      try {
        const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank', browserContextId: contextId, newWindow: true, background: true, windowState: 'minimized' });
        const { windowId } = await cdp.send<{ windowId: number }>('Browser.getWindowForTarget', { targetId });
        const window = await waitFor('the window made ahead', async () => (await this.driver.windows()).find((w) => !before.has(windowIdentity(w))), { timeoutMs: MAKE_BOUND_MS, intervalMs: 20 });
        return { contextId, targetId, windowId, window: windowIdentity(window) };
      } catch (error) {
        this.pageLoads?.setSpare(null);
        await cdp.send('Target.disposeBrowserContext', { browserContextId: contextId }).catch(() => undefined);
        throw error;
      }
    } catch {
      return null;
    }
  }
}
