import { Readable, Writable } from 'stream';
import { settledWithin } from '../../util/wait';

/** How long the page may take to report the pointer's motion before Glance goes on without it. */
const POINTER_PROOF_MS = 3000;
/** How long a page's frame may take to reach the screen before Glance goes on without its proof (a blank page's first paint has none). */
const PRESENTED_BOUND_MS = 1000;
/** How long a motion may take to reach the page before the pointer moves again (a move costs nothing). */
const POINTER_ECHO_MS = 50;
/** How often the page looks whether it fills the screen and has the keyboard, and how long one ask waits for that. */
const READY_LOOK_MS = 5;
const READY_ASK_MS = 1000;
/** How much longer than a question's own bound in the page its answer may take to come back. */
const ANSWER_SLACK_MS = 500;
/** Where the page notes the pointer's first motion (a promise of true). */
const POINTER_SEEN = "globalThis[Symbol.for('glance.pointerSeen')]";
/** Where the page notes that its next frame has reached the screen (a promise of true; false without the proof). */
const FRAME_SHOWN = "globalThis[Symbol.for('glance.frameShown')]";
/** Chromium started with --enable-gpu-benchmarking tells the page when its next frame has been swapped onto the screen. */
const NEXT_FRAME_SHOWN = `new Promise((shown) => {
  const benchmarking = globalThis.chrome && globalThis.chrome.gpuBenchmarking;
  if (benchmarking) benchmarking.addSwapCompletionEventListener(() => shown(true)); else shown(false);
})`;

/**
 * A minimal DevTools-protocol client over Chromium's `--remote-debugging-pipe`
 * (fd 3 carries commands in, fd 4 replies out, NUL-terminated JSON). Glance
 * uses it to know that a page has loaded and painted, rather than guessing
 * from pixels.
 */
export class CdpPipe {
  private nextId = 1;
  private buffered = '';
  private closed = false;
  /** The page session waitForPaintedPage() attached, kept for waitForInput(). */
  private pageSession: string | undefined;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private readonly listeners: ((method: string, params: any, sessionId?: string) => void)[] = [];
  private readonly closeListeners: (() => void)[] = [];

  constructor(private readonly input: Writable, output: Readable) {
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => this.receive(chunk));
    // A browser that ended (killed from outside, too) closes or breaks either end: every call
    // waiting for an answer fails then, and the error must not end the agent.
    const gone = () => this.failAll(new Error('Chromium closed its debugging pipe'));
    output.on('close', gone);
    input.on('close', gone);
    output.on('error', (e) => this.failAll(e));
    input.on('error', (e) => this.failAll(e));
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let end: number;
    while ((end = this.buffered.indexOf('\0')) >= 0) {
      const message = JSON.parse(this.buffered.slice(0, end));
      this.buffered = this.buffered.slice(end + 1);
      if (message.id === undefined && message.method) {
        for (const listener of this.listeners) listener(message.method, message.params ?? {}, message.sessionId);
        continue;
      }
      const waiter = this.pending.get(message.id);
      if (!waiter) continue;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${message.error.message} (${message.error.code})`));
      else waiter.resolve(message.result);
    }
  }

  /** Calls `listener` with every event Chromium sends (of the sessions that enabled them). */
  onEvent(listener: (method: string, params: any, sessionId?: string) => void): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` once Chromium closed its end. */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** False once Chromium closed its end. */
  get open(): boolean {
    return !this.closed;
  }

  private failAll(error: Error): void {
    if (!this.closed) for (const listener of this.closeListeners) listener();
    this.closed = true;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  send<T = any>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = this.nextId++;
    // A call to a browser that is gone would wait for ever: nothing answers, and a closed stream drops the write.
    if (this.closed) return Promise.reject(new Error(`Chromium closed its debugging pipe (${method} not sent)`));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`, (error) => {
        if (!error || !this.pending.delete(id)) return;
        reject(new Error(`Chromium's debugging pipe took no more calls (${method}): ${error.message}`));
      });
    });
  }

  /**
   * Resolves once the page target (by default the first) has loaded, painted
   * two frames, and its first paint is on the screen. A frame the page has
   * drawn reaches the X server later, through the browser's compositor; the
   * page's paint timing is reported only once it has been presented, so its
   * entry is the proof. A page that paints nothing to show (a blank one) has
   * none, and is taken as it is after a bound. A page that loaded and painted
   * nothing (about:blank asked for) is loaded.
   */
  async waitForPaintedPage(url: string, deadline: number, target?: string): Promise<void> {
    const started = Date.now();
    let targetId = target;
    while (!targetId) {
      const { targetInfos } = await this.send<{ targetInfos: { type: string; targetId: string }[] }>('Target.getTargets');
      targetId = targetInfos.find((t) => t.type === 'page')?.targetId;
      if (!targetId) {
        if (Date.now() > deadline) throw new Error('Chromium opened no page');
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    const { sessionId } = await this.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    // Until the URL from the command line commits, the page is about:blank; a
    // commit destroys the context an evaluation ran in. Both mean: ask again.
    const blankIsTheUrl = url.trim().toLowerCase() === 'about:blank';
    const painted = `location.href === 'about:blank' && ${!blankIsTheUrl} ? 'blank' : new Promise((resolve) => {
      const shown = () => {
        const timer = setTimeout(() => resolve('painted'), ${PRESENTED_BOUND_MS});
        new PerformanceObserver((_, observer) => { observer.disconnect(); clearTimeout(timer); resolve('painted'); }).observe({ type: 'paint', buffered: true });
      };
      const paint = () => requestAnimationFrame(() => requestAnimationFrame(shown));
      if (document.readyState === 'complete') paint(); else addEventListener('load', paint, { once: true });
    })`;
    for (;;) {
      const outcome = await this.send<{ result?: { value?: string } }>('Runtime.evaluate', { expression: painted, awaitPromise: true, returnByValue: true }, sessionId)
        .then((r) => r.result?.value, () => 'retry');
      if (outcome === 'painted') break;
      if (this.closed) throw new Error(`Chromium closed before the page ${url} loaded`);
      if (Date.now() > deadline) throw new Error(`the page ${url} did not finish loading within ${((Date.now() - started) / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, 25));
    }
    this.pageSession = sessionId;
  }

  /**
   * Resolves once the page is ready for input: it fills the screen, holds the
   * keyboard focus, and has seen the pointer move. Right after start-up
   * Chromium is still going full screen, so a click lands where the layout
   * was and keys are dropped; and a loaded machine's browser can drop a
   * resting pointer's first click or wheel turn. `movePointer` moves the
   * desktop's pointer, each call to another place.
   */
  async waitForInput(deadline: number, movePointer: () => Promise<void>): Promise<void> {
    if (!this.pageSession) throw new Error('waitForInput() needs waitForPaintedPage() first');
    // A blank page leaves the keyboard with the browser's own (hidden) address bar: the page takes it.
    await this.send('Page.bringToFront', {}, this.pageSession).catch(() => undefined);
    // The page answers the moment it is ready (it looks every few ms itself), and notes from then on the pointer's
    // first motion and, from that motion on (its hover drawn), when the page's next frame is on the screen.
    const ready = `new Promise((resolve) => {
      const ready = () => document.hasFocus() && innerWidth === screen.width && innerHeight === screen.height;
      let asked = true;
      const look = () => {
        if (!asked) return; // this ask is over: the page keeps no timer of Glance's
        if (!ready()) return void setTimeout(look, ${READY_LOOK_MS});
        ${POINTER_SEEN} = new Promise((seen) => addEventListener('pointermove', () => {
          ${FRAME_SHOWN} = ${NEXT_FRAME_SHOWN};
          seen(true);
        }, { capture: true, once: true }));
        resolve(true);
      };
      look();
      setTimeout(() => { asked = false; resolve(false); }, ${READY_ASK_MS});
    })`;
    while (!(await this.awaitInPage(ready, READY_ASK_MS + ANSWER_SLACK_MS))) {
      if (Date.now() > deadline) throw new Error('the page did not fill the screen and take the keyboard focus');
      await new Promise((r) => setTimeout(r, 20)); // a page that cannot answer yet (between documents) answers at once
    }
    await this.waitForPointerMotion(Math.min(deadline, Date.now() + POINTER_PROOF_MS), movePointer);
    await this.waitForShown(deadline);
    await this.send('Target.detachFromTarget', { sessionId: this.pageSession });
    this.pageSession = undefined;
  }

  /**
   * Moves the pointer until the page reports the motion (it answers the
   * moment it sees one): then the desktop's input reaches it. A page that
   * never reports one (it may stop the event) is taken as it is once the
   * bound passes.
   */
  private async waitForPointerMotion(deadline: number, movePointer: () => Promise<void>): Promise<void> {
    const echo = `Promise.race([${POINTER_SEEN}, new Promise((resolve) => setTimeout(() => resolve(false), ${POINTER_ECHO_MS}))])`;
    while (Date.now() < deadline) {
      await movePointer();
      if (await this.awaitInPage(echo, POINTER_ECHO_MS + ANSWER_SLACK_MS)) return;
    }
  }

  /**
   * Resolves once what the page shows now is on the screen. The page's frame
   * reaches the X server later than the page draws it, through the browser's
   * compositor: on a loaded machine, 150 ms after a page had loaded and filled
   * the screen, the screen still showed a frame drawn before, half the
   * document at the window's size before full screen. Chromium started with
   * --enable-gpu-benchmarking tells the page when its next frame has been
   * swapped onto the screen; a browser without it is taken as it is.
   */
  private async waitForShown(deadline: number): Promise<void> {
    // A page that never reported the pointer: its next frame from now.
    await this.awaitInPage(`${FRAME_SHOWN} || (${FRAME_SHOWN} = ${NEXT_FRAME_SHOWN})`, Math.max(0, Math.min(PRESENTED_BOUND_MS, deadline - Date.now())));
  }

  /** An expression's value in the page, or false when the page cannot answer yet. */
  private evaluate(expression: string): Promise<unknown> {
    return this.valueOf(this.send<{ result?: { value?: unknown } }>('Runtime.evaluate', { expression, returnByValue: true }, this.pageSession));
  }

  /**
   * The value a promise in the page settles to, or false when the page cannot
   * answer, or has not within `boundMs` (the promise bounds itself; a page too
   * busy to run it does not hold the caller longer).
   */
  private async awaitInPage(expression: string, boundMs: number): Promise<unknown> {
    let value: unknown = false;
    const answer = this.valueOf(this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, this.pageSession)).then((v) => { value = v; });
    await settledWithin(answer, boundMs);
    return value;
  }

  private valueOf(answer: Promise<{ result?: { value?: unknown } }>): Promise<unknown> {
    return answer.then((r) => r.result?.value ?? false, () => false);
  }
}
