import { EventEmitter } from 'events';
import path from 'path';
import dotenv from 'dotenv';
import { AssertOptions, ClientOptions, ConnectOptions, FindAllOptions, FindOptions, resolveClientOptions, ResolvedClientOptions } from '../config/options';
import { AuthError, InvalidOptionError } from '../config/errors';
import { show } from '../config/validate';
import type { Box, Screen } from '../types/screen';
import type { AgentClient } from '../sandbox/agent-client';
import { LocalService } from '../service/local-service';
import { RemoteService } from '../service/remote-service';
import { SandboxInstance, Service } from '../service/service';
import { Element } from './element';
import { Actions, ClickAction, ExecOptions, PressOptions, ScrollDirection, ScrollOptions, TypeOptions } from './actions';
import { CommandRunner } from './command-runner';
import { FindResult, Finder } from './finder';
import { ClientSession } from './session';
import { Redraw } from './redraw';
import { SessionEvidence } from './evidence';
import { Analytics } from './analytics';
import type { Recording } from './dashcam';
import { callSite } from '../util/call-site';
import { Recorder } from './recorder/recorder';
import { PreviewPanel } from './recorder/panel';

export type { ClickAction, ExecOptions, PressOptions, ScrollDirection, ScrollOptions, TypeOptions } from './actions';
export type { CommandEvent } from './command-runner';
export type { Recording } from './dashcam';
export type { Recorder, RecordedStep, RecordedSuggestion, CheckKind } from './recorder/recorder';
export type { AiUsageEvent, FindResult } from './finder';
export { PIXELS_PER_WHEEL_CLICK } from './actions';
export { DEBUG_KEEP_ALIVE_MS } from './session';

/** Report pictures are scaled down to this width: plenty to read a UI, a tenth of the bytes. */
export const REPORT_PICTURE_WIDTH = 1024;

/**
 * The Glance client (interface spec 2.1): authenticates, opens or rejoins a
 * sandbox, and drives it. It validates options, keeps the session's state,
 * runs actions and emits events; finding goes to the Service. Every command
 * emits `command:start`, then `command:success` or `command:error`.
 */
export class Client {
  private readonly options: ResolvedClientOptions;
  private readonly runner: CommandRunner;
  private readonly session: ClientSession;
  private readonly actions: Actions;
  private readonly finder: Finder;
  private readonly evidence: SessionEvidence;
  private readonly analytics: Analytics;

  /** Provisioning: start an app in the sandbox. Skipped when the sandbox was rejoined, since the app already runs. */
  readonly provision: {
    chrome(options: { url: string; timeout?: number }): Promise<void>;
    app(options: { command: string; timeout?: number }): Promise<void>;
  };

  constructor(options?: ClientOptions);
  constructor(apiKey?: string, options?: ClientOptions);
  constructor(apiKeyOrOptions?: string | ClientOptions, maybeOptions?: ClientOptions) {
    const apiKeyArg = typeof apiKeyOrOptions === 'string' ? apiKeyOrOptions : undefined;
    const rawOptions = typeof apiKeyOrOptions === 'string' || apiKeyOrOptions === undefined ? maybeOptions : apiKeyOrOptions;
    if (apiKeyOrOptions !== undefined && typeof apiKeyOrOptions !== 'string' && typeof apiKeyOrOptions !== 'object') {
      throw new InvalidOptionError('apiKey', `new Client() takes an API key string and/or an options object, got ${typeof apiKeyOrOptions}.`);
    }
    if (apiKeyArg === undefined) dotenv.config({ quiet: true } as dotenv.DotenvConfigOptions);
    this.options = resolveClientOptions(rawOptions ?? {});
    this.options.stateDir = path.resolve(this.options.stateDir);
    const key = apiKeyArg ?? process.env.GLANCE_API_KEY;
    if (!key) {
      throw new AuthError("No API key: pass one to new Client(apiKey) or set GLANCE_API_KEY (in the environment or .env). Run 'npx glance init' to create one.");
    }
    const service: Service = this.options.apiRoot ? RemoteService.shared(this.options.apiRoot, this.options.stateDir) : LocalService.embedded(this.options.stateDir);
    this.runner = new CommandRunner(this.options.stateDir, this.options.logging, this.options.autoScreenshots, () => this.session.agent);
    this.runner.redactor.add(key);
    if (this.options.vision?.apiKey) this.runner.redactor.add(this.options.vision.apiKey);
    this.evidence = new SessionEvidence(this.options, this.runner);
    this.session = new ClientSession(this.options, service, key, this.runner, this.evidence);
    this.analytics = new Analytics(this.options.analytics, service, () => ({ token: this.session.token, sessionId: this.session.serviceSession }), (line) => this.runner.warn(line));
    this.runner.observers.push((command) => this.analytics.observe(command));
    this.actions = new Actions(this.session, this.runner, new Redraw(this.options.redraw, (line) => this.runner.warn(line)));
    this.finder = new Finder(this.options, service, this.session, this.runner, {
      pointerAt: (x, y, action, label) => this.actions.pointerAt(x, y, action, label),
      find: (description, options) => this.find(description, options),
    });
    if (this.options.usedHeadless) this.log("The 'headless' option is deprecated; use preview: 'none' instead.");
    this.provision = {
      chrome: (o) => this.actions.provisionChrome(o),
      app: (o) => this.actions.provisionApp(o),
    };
  }

  // ── session ─────────────────────────────────────────────────────────────

  /** Exchanges the API key for a session token. */
  auth(): Promise<string> {
    return this.runner.run('auth', [], () => this.session.auth());
  }

  /** Creates, rejoins or attaches to a sandbox (see the state table in the interface spec). */
  connect(options: ConnectOptions = {}): Promise<SandboxInstance> {
    const test = this.runner.screenshots.folder(callSite());
    return this.runner.run('connect', [options], async () => {
      const instance = await this.session.connect(options, test);
      this.runner.emitter.emit('sandbox:connected', { ...instance });
      return instance;
    });
  }

  /**
   * Ends the session. The sandbox stays rejoinable for `keepAlive` ms (0 stops
   * it at once); after a failure with debugOnFailure it is kept for 30 minutes.
   * Safe to call twice, and after a failed connect.
   */
  async disconnect(): Promise<void> {
    await this.runner.run('disconnect', [], async () => {
      const released = await this.session.disconnect();
      if (released) this.runner.emitter.emit('sandbox:disconnected', released);
    });
    await this.analytics.flush();
  }

  /**
   * The dashcam clip of the last session (`.glance/recordings/<test>.mp4`),
   * there once disconnect() has finished it; null with dashcam off or when
   * nothing was recorded.
   */
  getRecording(): Recording | null {
    return this.evidence.dashcam.last ? { ...this.evidence.dashcam.last } : null;
  }

  /** The live preview's URL while connected with preview 'browser' or 'ide'; null otherwise. */
  getPreviewUrl(): string | null {
    return this.evidence.preview.url;
  }

  /**
   * Marks the session as failed: with debugOnFailure the sandbox is kept alive
   * and its id printed, so that it can be rejoined and inspected.
   */
  markFailed(reason?: string): void {
    this.session.markFailed(reason);
  }

  /**
   * Writes the elements located in this session to the cache. disconnect()
   * does it for a session not marked failed; a test runner calls it when a
   * test passed (and discardCache() when it failed).
   */
  commitCache(): Promise<number> {
    return this.session.commitCache();
  }

  /** Drops the elements located since the last commit: a failed test writes nothing. */
  discardCache(): Promise<number> {
    return this.session.discardCache();
  }

  /** True once markFailed() was called in this session. */
  hasFailed(): boolean { return this.session.failed; }

  getInstance(): SandboxInstance | null { return this.session.instance ? { ...this.session.instance } : null; }

  getSessionId(): string | null { return this.session.sessionId; }

  setLogging(enabled: boolean): void {
    if (typeof enabled !== 'boolean') throw new InvalidOptionError('enabled', `setLogging expects true or false, got ${show(enabled)}.`);
    this.runner.logging = enabled;
  }

  /**
   * Names the test for the screenshot folder (`.glance/screenshots/<name>/`),
   * where the calling file says too little: a test runner calls it with the
   * test's name.
   */
  setTestName(name: string): void {
    this.runner.screenshots.testName = name;
  }

  /** The line of the test step now running, for the `L<line>` of screenshot names; null goes back to the caller's line. */
  setTestLine(line: number | null): void {
    this.runner.screenshots.testLine = line;
  }

  getEmitter(): EventEmitter { return this.runner.emitter; }

  /**
   * Starts recording what a person does in the sandbox (through the live
   * preview, VNC, xdotool or any other client; never Glance's own input) as
   * steps of the step library. Each step is emitted as `recorder:step` when
   * it is made, and text that appeared after it as `recorder:suggestion`
   * (a check to consider, never written on its own); `await recorder.stop()`
   * returns the steps as Gherkin lines.
   */
  record(): Promise<Recorder> {
    return this.runner.run('record', [], async () => {
      const { service, session } = this.session.requireService();
      const recorder = await Recorder.start({ agent: this.session.requireAgent(), service, session, emitter: this.runner.emitter, redactor: this.runner.redactor });
      // The preview page lists the steps as they are made, and takes edits, checks and Stop.
      const preview = this.evidence.preview;
      if (preview.showing) {
        const panel = new PreviewPanel(recorder, preview, this.runner.emitter, this.runner.redactor, (line) => this.log(line));
        recorder.onStop(() => panel.close());
      }
      return recorder;
    });
  }

  /** The engines finds go through (`auto (ocr)`, or one engine's name); the configured locator before connect. */
  getLocator(): string {
    return this.session.locator ?? this.options.locator;
  }

  // ── actions ─────────────────────────────────────────────────────────────

  /** Clicks at x, y. `action` is one of click, double-click, right-click, middle-click, hover, mouse-down, mouse-up. */
  click(x: number, y: number, action?: ClickAction): Promise<void>;
  click(target: { x: number; y: number; action?: ClickAction }): Promise<void>;
  click(xOrTarget: number | { x: number; y: number; action?: ClickAction }, y?: number, action: ClickAction = 'click'): Promise<void> {
    const target = typeof xOrTarget === 'object' && xOrTarget !== null ? { action: 'click' as ClickAction, ...xOrTarget } : { x: xOrTarget, y: y as number, action };
    return this.actions.pointerAt(target.x, target.y, target.action, `${target.x}x${target.y}`);
  }

  hover(x: number, y: number): Promise<void> { return this.actions.pointerAt(x, y, 'hover', `${x}x${y}`); }

  /** Types text into whatever has focus. With `secret`, the text is masked everywhere Glance reports. */
  type(text: string, options: TypeOptions = {}): Promise<void> {
    return this.actions.type(text, options);
  }

  /** Presses keys together as one combination: ['ctrl', 'c'], or ['ctrl+shift+t']. */
  pressKeys(keys: string[], options: PressOptions = {}): Promise<void> { return this.actions.pressKeys(keys, options); }

  /** Scrolls by `amount` pixels (default 300) in any of the four directions. */
  scroll(direction: ScrollDirection = 'down', options: ScrollOptions = {}): Promise<void> {
    return this.actions.scroll(direction, options);
  }

  /** Runs code in the sandbox's shell and returns stdout; rejects on a non-zero exit with stderr in the message. */
  exec(language: 'sh', code: string, options: ExecOptions = {}): Promise<string> {
    return this.actions.exec(language, code, options);
  }

  /** Brings the first window whose title or class contains `name` to the front. */
  focusApplication(name: string): Promise<void> { return this.actions.focusApplication(name); }

  /**
   * Saves a PNG of the screen under `.glance/screenshots/` (with `name` in
   * the file name) and returns its path. With `background`, the screen is
   * captured now and the PNG written off the hot path: the file is there once
   * disconnect() has finished (or flushScreenshots()).
   */
  screenshot(name = '', options: { background?: boolean } = {}): Promise<string> {
    return this.actions.screenshot(name, options.background === true);
  }

  /**
   * Closes every program provisioned in the sandbox, and lets provisioning
   * run again: a reused sandbox starts the next test from a known state.
   */
  resetApps(): Promise<void> {
    return this.actions.resetApps();
  }

  /** Waits until the screen holds still (two identical looks in a row), at most `timeoutMs`. */
  settle(timeoutMs = 2000): Promise<void> {
    return this.actions.settle(timeoutMs);
  }

  /** Sleeps for `ms` milliseconds. */
  wait(ms: number): Promise<void> { return this.actions.wait(ms); }

  /**
   * A picture of the screen as it is now, for a report: a JPEG at most
   * REPORT_PICTURE_WIDTH px wide, with `boxes` drawn on it (red unless a
   * colour is given), in the test's screenshot folder. The screen is captured
   * now and encoded off the hot path: the file is there once disconnect()
   * has finished (or flushScreenshots()). Returns its path.
   */
  async reportPicture(label: string, boxes: { box: Box; colour?: [number, number, number] }[] = []): Promise<string> {
    const site = callSite();
    const screen = await this.actions.captureScreen();
    const file = this.runner.screenshots.pathFor('screen', 'report', label, site, 'jpg');
    await this.runner.encoder.write(file, screen, {
      format: 'jpeg', maxWidth: REPORT_PICTURE_WIDTH, boxes: boxes.map(({ box, colour }) => ({ box, colour: colour ?? [230, 30, 30] })),
    });
    return file;
  }

  /** Waits until every screenshot and report picture handed over so far is on disk. */
  flushScreenshots(): Promise<void> {
    return this.runner.flushScreenshots();
  }

  /** The screen as raw pixels, for custom checks. */
  captureScreen(): Promise<Screen> { return this.actions.captureScreen(); }

  // ── finding ─────────────────────────────────────────────────────────────

  /**
   * Locates one element from a plain-words description. Resolves to an
   * Element whose found() is false when nothing matched (it does not throw);
   * acting on that Element throws ElementNotFoundError.
   */
  find(description: string, options?: FindOptions | number): FindResult {
    return this.finder.find(description, options);
  }

  /**
   * Every element matching the description, top-to-bottom and left-to-right;
   * [] when none. No polling. The cache is off unless cacheThreshold is set.
   */
  findAll(description: string, options?: FindAllOptions | number): Promise<Element[]> {
    return this.finder.findAll(description, options);
  }

  /** The text shown inside an element's box (a field's value, a cell's content), read from the screen now. */
  readText(element: Element): Promise<string> { return this.finder.readText(element); }

  /**
   * Judges a statement about the whole screen ('the cart shows 2 items'):
   * resolves to true, or throws an AssertionError carrying the reason. A
   * passed assertion is cached against its screen (`threshold`, default
   * `cache.thresholds.assert`), so a rerun on the same screen asks no model.
   * Without a vision model only statements that quoted text is shown
   * ('"Thank you" is shown') can be checked; others throw
   * VisionModelRequiredError.
   */
  assert(statement: string, options?: AssertOptions): Promise<true> {
    return this.finder.assert(statement, options);
  }

  // ── internals ───────────────────────────────────────────────────────────

  /** The connected agent; for Glance's own layers and tests. */
  requireAgent(): AgentClient { return this.session.requireAgent(); }

  /** Writes an informational line (masked) to the console when logging is on, and emits `log:info`. */
  log(message: string): void { this.runner.log(message); }
}
