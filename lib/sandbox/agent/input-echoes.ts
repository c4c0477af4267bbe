import type { CdpPipe } from './cdp-pipe';

const BINDING = '__glanceInputHandled';
/** A world of its own in every document: the page's scripts neither see the listeners nor can stop them. */
const WORLD = 'glance-input';
/** What one notch of a wheel is worth in a wheel event's wheelDelta, in every browser. */
const WHEEL_NOTCH = 120;

/**
 * Reports every pointer or key release a document receives, once the page
 * has handled it: the report waits for the task that dispatched the release
 * (pointerup, then mouseup and click; or keyup) to end, so a field that a
 * click focuses has the focus by then. A release that ends a drag of the
 * page's own drag and drop fires no pointerup: its dragend stands for it.
 * A wheel notch counts as a release. A busy page gets several notches
 * coalesced into one wheel event, whose wheelDelta adds them up, so the
 * report says how many notches the event carried.
 */
const REPORTER = `(() => {
  const report = globalThis.${BINDING};
  if (typeof report !== 'function' || globalThis.__glanceReporting) return;
  globalThis.__glanceReporting = true;
  for (const type of ['pointerup', 'keyup', 'dragend']) {
    addEventListener(type, (event) => { if (event.isTrusted) setTimeout(() => report(type), 0); }, { capture: true });
  }
  addEventListener('wheel', (event) => {
    if (!event.isTrusted) return;
    const notches = Math.max(1, Math.round(Math.max(Math.abs(event.wheelDeltaX), Math.abs(event.wheelDeltaY)) / ${WHEEL_NOTCH}));
    setTimeout(() => report('wheel:' + notches), 0);
  }, { capture: true, passive: true });
})()`;

/**
 * Counts the input releases that the browser's pages have handled, from the
 * pages themselves. The desktop's input and the DevTools pipe are separate
 * paths, so a frame drawn after an input proves nothing about it; a page
 * that reports the release it received does. Keys that follow a click then
 * need not wait for the screen to hold still to be sure the click landed.
 */
export class InputEchoes {
  private handled = 0;
  private waiters: { count: number; resolve: () => void }[] = [];

  /** Counts the releases of every page this pipe attaches to; call before pages attach. */
  watch(cdp: CdpPipe): void {
    cdp.onEvent((method, params) => {
      if (method !== 'Runtime.bindingCalled' || params.name !== BINDING) return;
      const notches = /^wheel:(\d+)$/.exec(String(params.payload));
      this.handled += notches ? Number(notches[1]) : 1;
      for (const waiter of this.waiters.filter((w) => this.handled >= w.count)) waiter.resolve();
    });
  }

  /** Resolves once pages have reported `count` releases in all, or after `timeoutMs`. */
  reached(count: number, timeoutMs: number): Promise<void> {
    if (this.handled >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { count, resolve: () => done() };
      const timer = setTimeout(() => done(), timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      };
      this.waiters.push(waiter);
    });
  }

  /** Installs the reporter in a page's documents, this one and every later one. */
  async attach(cdp: CdpPipe, sessionId: string): Promise<void> {
    // A binding's calls are reported only to a session that enabled the runtime domain.
    await cdp.send('Runtime.enable', {}, sessionId);
    await cdp.send('Runtime.addBinding', { name: BINDING, executionContextName: WORLD }, sessionId);
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: REPORTER, worldName: WORLD, runImmediately: true }, sessionId);
  }

  /** How many input releases (and wheel notches) pages have handled so far. */
  count(): number {
    return this.handled;
  }
}
