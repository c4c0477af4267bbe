import type { CdpPipe } from './cdp-pipe';
import { InputEchoes } from './input-echoes';
import { procStat } from '../process-identity';
import { settledWithin, Wakeup } from '../../util/wait';

/** What an action's redraw wait asks of the browser's pages (nothing, where no browser runs). */
export interface PageActivity {
  /** True while a page load that was asked for at or after `since` (ms since the epoch) has not finished. */
  loadingSince(since: number): boolean;
  /**
   * True once a page load asked for at or after `since` has finished. Its
   * page may not be on the screen yet, and a busy agent can hear of the
   * whole load at once, between two looks at the screen.
   */
  loadedSince(since: number): boolean;
  /**
   * Resolves once the pages have reported the input awaited (see
   * awaitReleases), or after `timeoutMs`. Input sent at or after `since`
   * that a page has not reported counts as reported once a page navigates
   * after `since` (a link's click leaves the page before its report
   * arrives). What the handler drew shows in the frames drawn after the
   * report (framesDrawn, asked then).
   */
  inputReported(timeoutMs: number, since?: number): Promise<void>;
  /**
   * Resolves once every visible page has drawn two frames after now, or
   * after `timeoutMs`: motion a page had under way when asked has reached the
   * screen. A starved machine can draw no frame for longer than a still
   * screen's quiet window, in the middle of an animation.
   */
  framesDrawn(timeoutMs: number): Promise<void>;
  /** How many input releases (pointer or key) the pages have reported handled so far. */
  inputsHandled(): number;
  /** Whether a browser runs whose pages report their input. */
  hasBrowser(): boolean;
  /** Whether a window of this process is the browser's: input sent to it reaches a page, which reports it. */
  ownsWindow(pid: number | null): boolean;
  /** The next inputReported() also waits until the pages have reported `count` releases in all (input sent to a page). */
  awaitReleases(count: number): void;
}

export const NO_PAGES: PageActivity = {
  loadingSince: () => false, loadedSince: () => false, inputReported: async () => undefined, framesDrawn: async () => undefined, inputsHandled: () => 0, hasBrowser: () => false, ownsWindow: () => false, awaitReleases: () => undefined,
};

/** A navigation asked for that has not started loading by then was cancelled (a download, a handler that said no). */
const REQUEST_TO_LOAD_MS = 1000;

/**
 * Which pages of the sandbox's browser are loading, from the browser's own
 * DevTools events rather than from pixels. A click that navigates changes
 * nothing on the screen until the next page paints, which on a local page is
 * 50–150 ms later: an action's redraw wait asks whether a navigation it
 * caused is still under way, so that the next step looks at the new page,
 * not the old one. Where a busy page handles the click late, the wait first
 * lets each visible page draw a frame: a page busy in the click's handler
 * draws none until the handler is done, and by then the navigation it asked
 * for is known. The frame proves nothing about input still on its way to
 * the page (the desktop's input and the DevTools pipe are separate paths):
 * a click on the browser's window also waits until the page reports it.
 */
export class PageLoads implements PageActivity {
  /** Pages whose load was asked for or is under way, by DevTools session, with when it was asked for. */
  private readonly loading = new Map<string, { since: number; started: boolean }>();
  /** When the last load that finished was asked for. */
  private finishedAskedAt = 0;
  /** The page each session is attached to: its main frame has the page's target id. */
  private readonly pages = new Map<string, string>();
  private cdp: CdpPipe | null = null;
  private readonly echoes = new InputEchoes();
  /** The browser's process (its windows say so), while it runs. */
  private browserPid: number | null = null;
  /** Releases the pages must have reported before input counts as handled (input sent to a page). */
  private awaited = 0;
  /** When a page last asked to navigate or started loading, and who waits for the next time. */
  private navigatedAt = 0;
  private readonly navigated = new Wakeup();

  /**
   * Follows a browser's pages through its debugging pipe, for as long as the
   * browser lives: every page, now and later, reports its loads.
   */
  async watch(cdp: CdpPipe, browserPid: number | null = null): Promise<void> {
    this.cdp = cdp;
    this.browserPid = browserPid;
    this.echoes.watch(cdp);
    cdp.onEvent((method, params, sessionId) => this.event(cdp, method, params, sessionId));
    cdp.onClose(() => {
      this.loading.clear();
      this.pages.clear();
      if (this.cdp === cdp) {
        this.cdp = null;
        this.browserPid = null;
      }
    });
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  }

  private event(cdp: CdpPipe, method: string, params: any, sessionId: string | undefined): void {
    if (method === 'Target.attachedToTarget') {
      const type = params.targetInfo?.type;
      if (type !== 'page' && type !== 'iframe') return;
      // A frame of another site runs in a process of its own, as a target of its own: it reports its input too.
      void cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, params.sessionId).catch(() => undefined);
      void this.echoes.attach(cdp, params.sessionId).catch(() => undefined);
      if (type !== 'page') return;
      this.pages.set(params.sessionId, params.targetInfo.targetId);
      void cdp.send('Page.enable', {}, params.sessionId).catch(() => undefined);
      return;
    }
    if (method === 'Target.detachedFromTarget') {
      this.pages.delete(params.sessionId);
      this.loading.delete(params.sessionId);
      return;
    }
    // A page's own loads only: a frame inside it that keeps loading (an ad, a widget) is not the page changing.
    if (!sessionId || this.pages.get(sessionId) !== params.frameId) return;
    if (method === 'Page.frameRequestedNavigation' || method === 'Page.frameStartedLoading') {
      this.navigatedAt = Date.now();
      this.navigated.wake();
    }
    switch (method) {
      case 'Page.frameRequestedNavigation':
        this.loading.set(sessionId, { since: Date.now(), started: false });
        break;
      case 'Page.frameStartedLoading':
        this.loading.set(sessionId, { since: this.loading.get(sessionId)?.since ?? Date.now(), started: true });
        break;
      case 'Page.frameStoppedLoading': {
        const load = this.loading.get(sessionId);
        if (load?.started) this.finishedAskedAt = Math.max(this.finishedAskedAt, load.since);
        this.loading.delete(sessionId);
        break;
      }
      case 'Page.frameClearedScheduledNavigation':
        if (!this.loading.get(sessionId)?.started) this.loading.delete(sessionId);
        break;
      default:
        break;
    }
  }

  loadingSince(since: number): boolean {
    const now = Date.now();
    for (const load of this.loading.values()) {
      if (load.since >= since && (load.started || now - load.since < REQUEST_TO_LOAD_MS)) return true;
    }
    return false;
  }

  loadedSince(since: number): boolean {
    return this.finishedAskedAt >= since;
  }

  inputsHandled(): number {
    return this.echoes.count();
  }

  hasBrowser(): boolean {
    return this.browserPid !== null;
  }

  ownsWindow(pid: number | null): boolean {
    // The browser runs under a wrapper on some systems: its windows belong to the wrapper's child.
    for (let at = pid, hops = 0; at !== null && at > 1 && hops < 3; at = procStat(at)?.ppid ?? null, hops++) {
      if (at === this.browserPid) return true;
    }
    return false;
  }

  /** Resolves once a page has navigated at or after `since`, or after `timeoutMs`. */
  private navigationSince(since: number, timeoutMs: number): Promise<void> {
    if (this.navigatedAt >= since) return Promise.resolve();
    return this.navigated.next(timeoutMs);
  }

  awaitReleases(count: number): void {
    this.awaited = Math.max(this.awaited, count);
  }

  async inputReported(timeoutMs: number, since = Date.now()): Promise<void> {
    if (!this.cdp?.open || !this.pages.size) return;
    // Input sent to a page: until the page reports it, it may still be on its way, and a frame drawn
    // meanwhile would prove nothing. A page busy in the input's handler reports it once the handler is done;
    // one that navigated has handled it (its report may never come: the document is gone).
    await Promise.race([this.echoes.reached(this.awaited, timeoutMs), this.navigationSince(since, timeoutMs)]);
  }

  /** Resolves once every visible page has drawn two frames after now, or after `timeoutMs`. */
  async framesDrawn(timeoutMs: number): Promise<void> {
    const cdp = this.cdp;
    if (!cdp?.open || !this.pages.size) return;
    // A hidden page draws no frames: it answers at once. Each next frame starts once the one before was handed on for the screen.
    const frames = 'document.hidden || new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))';
    const drawn = [...this.pages.keys()].map((session) => cdp.send('Runtime.evaluate', { expression: frames, awaitPromise: true }, session).catch(() => undefined));
    await settledWithin(Promise.all(drawn), timeoutMs);
  }
}
