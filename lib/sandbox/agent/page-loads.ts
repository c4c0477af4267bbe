import type { CdpPipe } from './cdp-pipe';
import { InputEchoes } from './input-echoes';

/** What an action's redraw wait asks of the browser's pages (nothing, where no browser runs). */
export interface PageActivity {
  /** True while a page load that was asked for at or after `since` (ms since the epoch) has not finished. */
  loadingSince(since: number): boolean;
  /** Resolves once every visible page has drawn a frame after now: input that reached it by now has been handled. */
  inputHandled(timeoutMs: number): Promise<void>;
  /** How many input releases (pointer or key) the pages have reported handled so far. */
  inputsHandled(): number;
}

export const NO_PAGES: PageActivity = { loadingSince: () => false, inputHandled: async () => undefined, inputsHandled: () => 0 };

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
 * for is known. (The frame proves nothing about input still on its way to
 * the page: the desktop's input and the DevTools pipe are separate paths.)
 */
export class PageLoads implements PageActivity {
  /** Pages whose load was asked for or is under way, by DevTools session, with when it was asked for. */
  private readonly loading = new Map<string, { since: number; started: boolean }>();
  /** The page each session is attached to: its main frame has the page's target id. */
  private readonly pages = new Map<string, string>();
  private cdp: CdpPipe | null = null;
  private readonly echoes = new InputEchoes();

  /**
   * Follows a browser's pages through its debugging pipe, for as long as the
   * browser lives: every page, now and later, reports its loads.
   */
  async watch(cdp: CdpPipe): Promise<void> {
    this.cdp = cdp;
    this.echoes.watch(cdp);
    cdp.onEvent((method, params, sessionId) => this.event(cdp, method, params, sessionId));
    cdp.onClose(() => {
      this.loading.clear();
      this.pages.clear();
      if (this.cdp === cdp) this.cdp = null;
    });
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  }

  private event(cdp: CdpPipe, method: string, params: any, sessionId: string | undefined): void {
    if (method === 'Target.attachedToTarget') {
      if (params.targetInfo?.type !== 'page') return;
      this.pages.set(params.sessionId, params.targetInfo.targetId);
      void cdp.send('Page.enable', {}, params.sessionId).catch(() => undefined);
      void this.echoes.attach(cdp, params.sessionId).catch(() => undefined);
      return;
    }
    if (method === 'Target.detachedFromTarget') {
      this.pages.delete(params.sessionId);
      this.loading.delete(params.sessionId);
      return;
    }
    // A page's own loads only: a frame inside it that keeps loading (an ad, a widget) is not the page changing.
    if (!sessionId || this.pages.get(sessionId) !== params.frameId) return;
    switch (method) {
      case 'Page.frameRequestedNavigation':
        this.loading.set(sessionId, { since: Date.now(), started: false });
        break;
      case 'Page.frameStartedLoading':
        this.loading.set(sessionId, { since: this.loading.get(sessionId)?.since ?? Date.now(), started: true });
        break;
      case 'Page.frameStoppedLoading':
      case 'Page.frameClearedScheduledNavigation':
        if (method === 'Page.frameStoppedLoading' || !this.loading.get(sessionId)?.started) this.loading.delete(sessionId);
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

  inputsHandled(): number {
    return this.echoes.count();
  }

  async inputHandled(timeoutMs: number): Promise<void> {
    const cdp = this.cdp;
    if (!cdp?.open || !this.pages.size) return;
    // A hidden page draws no frames: it answers at once.
    const frame = "document.hidden || new Promise((resolve) => requestAnimationFrame(() => resolve(true)))";
    const frames = [...this.pages.keys()].map((session) => cdp.send('Runtime.evaluate', { expression: frame, awaitPromise: true }, session).catch(() => undefined));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(frames), new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs); })]);
    clearTimeout(timer);
  }
}
