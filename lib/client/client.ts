import { EventEmitter } from 'events';
import fs from 'fs';
import path from 'path';
import dotenv from 'dotenv';
import {
  ClientOptions, ConnectOptions, FindAllOptions, FindOptions, resolveClientOptions, resolveConnectOptions, ResolvedClientOptions,
  resolveFindOptions, ResolvedFindOptions,
} from '../config/options';
import { Element, ElementDetails, ElementNotFoundError } from './element';
import { readCrop } from '../locate/ocr/engine';
import { runFind, FindOutcome } from '../locate/pipeline';
import { selectEngine } from '../locate/select';
import { parseQuery, wrapDescription } from '../locate/query';
import { LocateEngine, LocateRefusal, Screen } from '../locate/engine';
import { drawBoxes } from '../image/overlay';
import { releaseOcr, retainOcr } from '../locate/ocr/tesseract';
import { ElementCache, Partition } from '../cache/element-cache';
import { defaultCacheKey } from '../cache/cache-key';
import { encodePng } from '../image/pixels';
import { AuthError, ExecError, InvalidOptionError, SandboxError, StateError } from '../config/errors';
import { show } from '../config/validate';
import { parseChord } from '../sandbox/keys';
import { AgentClient } from '../sandbox/agent-client';
import { LocalService } from '../service/local-service';
import { SandboxInstance, Service } from '../service/service';
import { Redactor, MASK } from './redact';
import { ScreenshotFolder } from './screenshots';
import { callSite, CallSite } from './call-site';
import { sleep } from '../util/wait';

export type ClickAction = 'click' | 'double-click' | 'right-click' | 'middle-click' | 'hover' | 'mouse-down' | 'mouse-up';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface TypeOptions {
  /** Mask the text in logs, events, reports and file names. */
  secret?: boolean;
  /** Milliseconds between keystrokes (default 0). */
  delay?: number;
}

export interface ScrollOptions {
  /** Pixels to scroll (default 300). */
  amount?: number;
  /** Where to scroll; the pointer's current position when left out. */
  x?: number;
  y?: number;
}

export interface ExecOptions {
  /** Milliseconds before the command is killed (default 30000). */
  timeout?: number;
}

/** `find()`'s promise, which can be acted on directly: `await client.find('Submit').click()`. */
export type FindResult = Promise<Element> & {
  click(action?: ClickAction): Promise<void>;
  hover(): Promise<void>;
  doubleClick(): Promise<void>;
  rightClick(): Promise<void>;
  found(): Promise<boolean>;
};

export interface CommandEvent {
  command: string;
  args: unknown[];
  durationMs?: number;
  error?: Error;
}

const CLICK_ACTIONS: ClickAction[] = ['click', 'double-click', 'right-click', 'middle-click', 'hover', 'mouse-down', 'mouse-up'];
const SCROLL_DIRECTIONS: ScrollDirection[] = ['up', 'down', 'left', 'right'];
/**
 * Scrolling is sent as wheel clicks; Chromium on X11 moves 120 px per click
 * (measured), so amounts are rounded to whole clicks.
 */
export const PIXELS_PER_WHEEL_CLICK = 120;
/** How long a sandbox stays rejoinable after a failure with debugOnFailure. */
export const DEBUG_KEEP_ALIVE_MS = 30 * 60 * 1000;
const HEARTBEAT_MS = 10_000;
const DEFAULT_AGENT_PORT = 4780;

/**
 * The Glance client (interface spec 2.1): authenticates, opens or rejoins a
 * sandbox, and drives it. Every command emits `command:start`, then
 * `command:success` or `command:error`.
 */
export class Client {
  private readonly options: ResolvedClientOptions;
  private readonly apiKey: string;
  private readonly emitter = new EventEmitter();
  private readonly redactor = new Redactor();
  private readonly service: Service;
  private readonly screenshots: ScreenshotFolder;
  private logging: boolean;
  private token: string | null = null;
  private agent: AgentClient | null = null;
  private instance: SandboxInstance | null = null;
  private sessionId: string | null = null;
  private keepAlive: number;
  private heartbeat: NodeJS.Timeout | null = null;
  private failed = false;
  /** Rejoined sandboxes already run their apps, so provisioning is skipped until resetApps(). */
  private skipProvision = false;
  private engine: LocateEngine | null = null;
  private readonly elementCache: ElementCache;

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
    this.options = resolveClientOptions(rawOptions ?? {});
    this.options.stateDir = path.resolve(this.options.stateDir);
    this.logging = this.options.logging;
    this.keepAlive = this.options.keepAlive;

    if (apiKeyArg === undefined) dotenv.config({ quiet: true } as dotenv.DotenvConfigOptions);
    const key = apiKeyArg ?? process.env.GLANCE_API_KEY;
    if (!key) {
      throw new AuthError("No API key: pass one to new Client(apiKey) or set GLANCE_API_KEY (in the environment or .env). Run 'npx glance init' to create one.");
    }
    this.apiKey = key;
    this.redactor.add(key);
    this.service = new LocalService(this.options.stateDir);
    this.screenshots = new ScreenshotFolder(this.options.stateDir, this.redactor);
    this.elementCache = new ElementCache(this.options.stateDir, this.options.cache.maxEntries);
    if (this.options.usedHeadless) this.log("The 'headless' option is deprecated; use preview: 'none' instead.");

    this.provision = {
      chrome: ({ url, timeout = 30_000 }) => this.command('provision.chrome', [url], async () => {
        if (typeof url !== 'string' || !/^(https?|file|data|about):/.test(url)) {
          throw new InvalidOptionError('url', `provision.chrome needs a url such as 'http://localhost:3000', got ${show(url)}.`);
        }
        if (this.skipProvision) return this.log(`Skipped provision.chrome: the rejoined sandbox already runs its apps.`);
        await this.requireAgent().call('POST', '/launch/chrome', { url, timeout }, timeout + 5_000);
      }),
      app: ({ command, timeout = 30_000 }) => this.command('provision.app', [command], async () => {
        if (typeof command !== 'string' || !command.trim()) {
          throw new InvalidOptionError('command', `provision.app needs a command such as 'xeyes', got ${show(command)}.`);
        }
        if (this.skipProvision) return this.log(`Skipped provision.app: the rejoined sandbox already runs its apps.`);
        await this.requireAgent().call('POST', '/launch/app', { command, timeout }, timeout + 5_000);
      }),
    };
  }

  // ── session ─────────────────────────────────────────────────────────────

  /** Exchanges the API key for a session token. */
  auth(): Promise<string> {
    return this.command('auth', [], async () => {
      const { token } = await this.service.auth(this.apiKey);
      this.token = token;
      this.redactor.add(token);
      return token;
    });
  }

  /** Creates, rejoins or attaches to a sandbox (see the state table in the interface spec). */
  connect(options: ConnectOptions = {}): Promise<SandboxInstance> {
    return this.command('connect', [options], async () => {
      const o = resolveConnectOptions(options);
      if (!this.token) throw new StateError('connect() needs a session token: call await client.auth() before client.connect().');
      if (this.instance) throw new StateError(`Already connected to sandbox '${this.instance.instanceId}'; call disconnect() first.`);
      if (o.usedHeadless) this.log("The 'headless' option is deprecated; use preview: 'none' instead.");
      this.keepAlive = o.keepAlive ?? this.options.keepAlive;
      const session = await this.openSession(this.token, o);
      this.agent = new AgentClient(session.agent);
      this.redactor.add(session.agent.token);
      try {
        await this.agent.call('POST', '/session', { keepAlive: this.keepAlive });
      } catch (error) {
        this.agent.close();
        this.agent = null;
        throw error;
      }
      this.instance = session.instance;
      this.skipProvision = session.instance.rejoined;
      retainOcr();
      this.sessionId = `${session.instance.instanceId}-${Date.now().toString(36)}`;
      this.failed = false;
      this.heartbeat = setInterval(() => this.agent?.call('GET', '/health').catch(() => undefined), HEARTBEAT_MS);
      this.heartbeat.unref();
      const how = session.instance.rejoined ? 'Rejoined' : 'Started';
      this.log(`${how} sandbox ${session.instance.instanceId} (${session.instance.resolution}${session.instance.display ? `, display ${session.instance.display}` : ''}).`);
      this.emitter.emit('sandbox:connected', { ...session.instance });
      return { ...session.instance };
    });
  }

  private async openSession(token: string, o: ReturnType<typeof resolveConnectOptions>) {
    const ip = o.ip ?? this.options.ip;
    const sandboxId = o.sandboxId ?? this.options.sandboxId;
    if (ip) return this.service.attachSandbox(token, this.parseAgentAddress(ip));
    if (sandboxId) return this.service.rejoinSandbox(token, sandboxId);
    if (this.options.reconnect) {
      const last = await this.service.lastSandboxId(token);
      if (!last) throw new SandboxError(`reconnect: true, but no sandbox is recorded in ${path.join(this.options.stateDir, 'last-sandbox')}. Connect once without reconnect first.`);
      return this.service.rejoinSandbox(token, last);
    }
    const spec = {
      os: this.options.os, width: this.options.width, height: this.options.height, keepAlive: this.keepAlive,
      environment: this.options.environment, preview: o.preview ?? this.options.preview,
      sandboxAmi: o.sandboxAmi ?? this.options.sandboxAmi, sandboxInstance: o.sandboxInstance ?? this.options.sandboxInstance,
    };
    if (spec.sandboxAmi || spec.sandboxInstance) this.log('sandboxAmi and sandboxInstance apply to cloud sandboxes; the local sandbox ignores them.');
    // Either level can force a new sandbox; only when neither does (constructor
    // newSandbox: false, connect default) is the last sandbox reused while alive.
    if (!o.newSandbox && !this.options.newSandbox) {
      const last = await this.service.lastSandboxId(token);
      if (last) {
        try {
          return await this.service.rejoinSandbox(token, last);
        } catch {
          /* gone: start a new one below */
        }
      }
    }
    return this.service.createSandbox(token, spec);
  }

  private parseAgentAddress(ip: string): { host: string; port: number; agentToken: string } {
    const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(ip.trim());
    if (!match) throw new InvalidOptionError('ip', `Invalid option 'ip': got '${ip}'; expected 'HOST' or 'HOST:PORT', e.g. '10.0.0.5:${DEFAULT_AGENT_PORT}'.`);
    const agentToken = process.env.GLANCE_AGENT_TOKEN;
    if (!agentToken) throw new AuthError("Connecting with 'ip' needs the agent's token in GLANCE_AGENT_TOKEN (the --token given to 'glance agent').");
    this.redactor.add(agentToken);
    return { host: match[1], port: match[2] ? Number(match[2]) : DEFAULT_AGENT_PORT, agentToken };
  }

  /**
   * Ends the session. The sandbox stays rejoinable for `keepAlive` ms (0 stops
   * it at once); after a failure with debugOnFailure it is kept for 30 minutes.
   * Safe to call twice, and after a failed connect.
   */
  disconnect(): Promise<void> {
    return this.command('disconnect', [], async () => {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = null;
      // Cache entries are written only for a session that did not fail.
      if (this.failed) this.discardCache();
      else await this.commitCache();
      const agent = this.agent;
      const instance = this.instance;
      this.agent = null;
      this.instance = null;
      this.sessionId = null;
      if (!agent || !instance) return;
      releaseOcr();
      const keepAlive = this.failed && this.options.debugOnFailure ? Math.max(this.keepAlive, DEBUG_KEEP_ALIVE_MS) : this.keepAlive;
      try {
        await agent.call('POST', '/release', { keepAlive }, 5_000);
      } catch (error) {
        this.log(`Sandbox ${instance.instanceId} did not answer the release (${(error as Error).message}); it ends by itself when its lease runs out.`);
      } finally {
        agent.close();
      }
      this.emitter.emit('sandbox:disconnected', { instanceId: instance.instanceId, keepAlive });
    });
  }

  /**
   * Marks the session as failed: with debugOnFailure the sandbox is kept alive
   * and its id printed, so that it can be rejoined and inspected.
   */
  markFailed(reason?: string): void {
    this.failed = true;
    if (this.options.debugOnFailure && this.instance) {
      const id = this.instance.instanceId;
      const message = `Test failed${reason ? ` (${this.redactor.text(reason)})` : ''}. Sandbox ${id} is kept alive for ${DEBUG_KEEP_ALIVE_MS / 60000} minutes. Rejoin it with new Client({ sandboxId: '${id}' }) or GLANCE_SANDBOX_ID=${id}.`;
      console.log(`[glance] ${message}`);
      this.emitter.emit('log:info', message);
    }
  }

  /**
   * Writes the elements located in this session to the cache. disconnect()
   * does it for a session not marked failed; a test runner calls it when a
   * test passed (and discardCache() when it failed).
   */
  async commitCache(): Promise<number> {
    const written = await this.elementCache.commit();
    if (written) this.log(`Cached ${written} located element(s).`);
    return written;
  }

  /** Drops the elements located since the last commit: a failed test writes nothing. */
  discardCache(): number {
    return this.elementCache.discard();
  }

  /** True once markFailed() was called in this session. */
  hasFailed(): boolean {
    return this.failed;
  }

  getInstance(): SandboxInstance | null {
    return this.instance ? { ...this.instance } : null;
  }

  getSessionId(): string | null {
    return this.sessionId;
  }

  setLogging(enabled: boolean): void {
    if (typeof enabled !== 'boolean') throw new InvalidOptionError('enabled', `setLogging expects true or false, got ${show(enabled)}.`);
    this.logging = enabled;
  }

  /**
   * Names the test for the screenshot folder (`.glance/screenshots/<name>/`),
   * where the calling file says too little: a test runner calls it with the
   * test's name.
   */
  setTestName(name: string): void {
    this.screenshots.testName = name;
  }

  /** The line of the test step now running, for the `L<line>` of screenshot names; null goes back to the caller's line. */
  setTestLine(line: number | null): void {
    this.screenshots.testLine = line;
  }

  getEmitter(): EventEmitter {
    return this.emitter;
  }

  // ── actions ─────────────────────────────────────────────────────────────

  /** Clicks at x, y. `action` is one of click, double-click, right-click, middle-click, hover, mouse-down, mouse-up. */
  click(x: number, y: number, action?: ClickAction): Promise<void>;
  click(target: { x: number; y: number; action?: ClickAction }): Promise<void>;
  click(xOrTarget: number | { x: number; y: number; action?: ClickAction }, y?: number, action: ClickAction = 'click'): Promise<void> {
    const target = typeof xOrTarget === 'object' && xOrTarget !== null ? { action: 'click' as ClickAction, ...xOrTarget } : { x: xOrTarget, y: y as number, action };
    return this.command(target.action, [target.x, target.y], () => this.pointer(target.x, target.y, target.action), `${target.x}x${target.y}`);
  }

  hover(x: number, y: number): Promise<void> {
    return this.command('hover', [x, y], () => this.pointer(x, y, 'hover'), `${x}x${y}`);
  }

  private async pointer(x: number, y: number, action: ClickAction): Promise<void> {
    if (!CLICK_ACTIONS.includes(action)) {
      throw new InvalidOptionError('action', `Invalid click action ${show(action)}; use one of ${CLICK_ACTIONS.join(', ')}.`);
    }
    this.checkPoint(x, y);
    await this.requireAgent().call('POST', '/pointer', { action, x, y });
  }

  private checkPoint(x: unknown, y: unknown): void {
    const [width, height] = (this.instance?.resolution ?? this.options.resolution).split('x').map(Number);
    const inside = (v: unknown, max: number) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < max;
    if (!inside(x, width) || !inside(y, height)) {
      throw new InvalidOptionError('x, y', `The point (${show(x)}, ${show(y)}) is not on the ${width}x${height} screen; x must be 0-${width - 1} and y 0-${height - 1}.`);
    }
  }

  /** Types text into whatever has focus. With `secret`, the text is masked everywhere Glance reports. */
  type(text: string, options: TypeOptions = {}): Promise<void> {
    if (options.secret && typeof text === 'string') this.redactor.add(text);
    const shown = options.secret ? MASK : text;
    return this.command('type', [shown, options], async () => {
      if (typeof text !== 'string') throw new InvalidOptionError('text', `type() expects a string, got ${show(text)}.`);
      const delay = options.delay ?? 0;
      if (typeof delay !== 'number' || delay < 0 || delay > 5000) throw new InvalidOptionError('delay', `Invalid option 'delay': got ${show(delay)}; expected milliseconds from 0 to 5000.`);
      if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) {
        throw new InvalidOptionError('text', 'type() cannot type control characters; use pressKeys() for keys such as Enter or Tab.');
      }
      await this.requireAgent().call('POST', '/type', { text, delay }, 30_000 + text.length * (delay + 20));
    }, shown);
  }

  /** Presses keys together as one combination: ['ctrl', 'c'], or ['ctrl+shift+t']. */
  pressKeys(keys: string[]): Promise<void> {
    return this.command('pressKeys', [keys], async () => {
      parseChord(keys);
      await this.requireAgent().call('POST', '/keys', { keys });
    }, Array.isArray(keys) ? keys.join('+') : '');
  }

  /** Scrolls by `amount` pixels (default 300) in any of the four directions. */
  scroll(direction: ScrollDirection = 'down', options: ScrollOptions = {}): Promise<void> {
    return this.command('scroll', [direction, options], async () => {
      if (!SCROLL_DIRECTIONS.includes(direction)) {
        throw new InvalidOptionError('direction', `Invalid scroll direction ${show(direction)}; use one of ${SCROLL_DIRECTIONS.join(', ')}.`);
      }
      const amount = options.amount ?? 300;
      if (typeof amount !== 'number' || !(amount > 0)) throw new InvalidOptionError('amount', `Invalid option 'amount': got ${show(amount)}; expected a number of pixels above 0.`);
      const at = options.x !== undefined || options.y !== undefined ? { x: options.x, y: options.y } : {};
      if ('x' in at) this.checkPoint(at.x, at.y);
      const clicks = Math.max(1, Math.round(amount / PIXELS_PER_WHEEL_CLICK));
      await this.requireAgent().call('POST', '/scroll', { direction, clicks, ...at });
    }, direction);
  }

  /** Runs code in the sandbox's shell and returns stdout; rejects on a non-zero exit with stderr in the message. */
  exec(language: 'sh', code: string, options: ExecOptions = {}): Promise<string> {
    return this.command('exec', [language, code, options], async () => {
      if (language !== 'sh') throw new InvalidOptionError('language', `exec() runs 'sh' code, got ${show(language)}; pass 'sh' (use 'python3 -c ...' inside it for other languages).`);
      if (typeof code !== 'string' || !code.trim()) throw new InvalidOptionError('code', `exec() needs shell code to run, got ${show(code)}.`);
      const timeout = options.timeout ?? 30_000;
      if (typeof timeout !== 'number' || timeout <= 0) throw new InvalidOptionError('timeout', `Invalid option 'timeout': got ${show(timeout)}; expected milliseconds above 0.`);
      const result = await this.requireAgent().call<{ stdout: string; stderr: string; exitCode: number | null; timedOut: boolean }>(
        'POST', '/exec', { code, timeout }, timeout + 5_000);
      if (result.timedOut) throw new ExecError(`exec timed out after ${timeout} ms and was killed: ${code}`, null, result.stdout, result.stderr);
      if (result.exitCode !== 0) {
        const stderr = result.stderr.trim() || '(no stderr)';
        throw new ExecError(`exec exited with code ${result.exitCode}: ${code}\n${stderr}`, result.exitCode, result.stdout, result.stderr);
      }
      return result.stdout;
    }, code.slice(0, 30));
  }

  /** Brings the first window whose title or class contains `name` to the front. */
  focusApplication(name: string): Promise<void> {
    return this.command('focusApplication', [name], async () => {
      if (typeof name !== 'string' || !name.trim()) throw new InvalidOptionError('name', `focusApplication needs a window title or class, got ${show(name)}.`);
      await this.requireAgent().call('POST', '/focus', { name, timeout: 5_000 });
    }, name);
  }

  /** Saves a PNG of the screen under `.glance/screenshots/` (with `name` in the file name) and returns its path. */
  screenshot(name = ''): Promise<string> {
    const site = callSite();
    return this.command('screenshot', [name], async () => {
      const file = this.screenshots.pathFor('screenshot', 'now', name, site);
      fs.writeFileSync(file, await this.requireAgent().screenPng());
      return file;
    });
  }

  /**
   * Closes every program provisioned in the sandbox, and lets provisioning
   * run again: a reused sandbox starts the next test from a known state.
   */
  resetApps(): Promise<void> {
    return this.command('resetApps', [], async () => {
      await this.requireAgent().call('POST', '/apps/close', {}, 15_000);
      this.skipProvision = false;
    });
  }

  /** Waits until the screen holds still (two identical looks in a row), at most `timeoutMs`. */
  settle(timeoutMs = 2000): Promise<void> {
    return this.command('settle', [timeoutMs], async () => {
      const deadline = Date.now() + timeoutMs;
      let previous = await this.captureScreen();
      while (Date.now() < deadline) {
        await sleep(60);
        const next = await this.captureScreen();
        if (next.data.equals(previous.data)) return;
        previous = next;
      }
    });
  }

  /** The text shown inside an element's box (a field's value, a cell's content), read from the screen now. */
  readText(element: Element): Promise<string> {
    return this.command('readText', [element.description], async () => {
      const box = element.boundingBox;
      if (!box) throw new ElementNotFoundError(element.description, element.reason ?? `'${element.description}' was not found.`, null);
      return readCrop(await this.captureScreen(), box);
    });
  }

  /**
   * Checks a statement about the whole screen. The OCR engine checks the
   * quoted parts of the statement ("the cart shows 'Cart (2)'"); judging
   * anything else needs a vision model, and says so.
   */
  assert(statement: string): Promise<{ passed: boolean; reason: string }> {
    return this.command('assert', [statement], async () => {
      const quoted = [...statement.matchAll(/"([^"]+)"|'([^']+)'/g)].map((m) => m[1] ?? m[2]);
      if (!quoted.length) {
        return { passed: false, reason: `the OCR engine can only check the quoted text in a statement (e.g. "the cart shows 'Cart (2)'"); judging '${statement}' needs a vision model (GLANCE_LOCATOR=vision).` };
      }
      await this.settle();
      const missing: string[] = [];
      for (const text of quoted) if (!(await this.find(`The text "${text}"`, { timeout: 0 })).found()) missing.push(text);
      return missing.length
        ? { passed: false, reason: `the screen does not show ${missing.map((m) => `'${m}'`).join(', ')}` }
        : { passed: true, reason: `the screen shows ${quoted.map((m) => `'${m}'`).join(', ')}` };
    });
  }

  /** Sleeps for `ms` milliseconds. */
  wait(ms: number): Promise<void> {
    return this.command('wait', [ms], async () => {
      if (typeof ms !== 'number' || ms < 0 || !Number.isFinite(ms)) throw new InvalidOptionError('ms', `wait() expects milliseconds >= 0, got ${show(ms)}.`);
      await sleep(ms);
    });
  }

  // ── finding ─────────────────────────────────────────────────────────────

  /**
   * Locates one element from a plain-words description. Resolves to an
   * Element whose found() is false when nothing matched (it does not throw);
   * acting on that Element throws ElementNotFoundError.
   */
  find(description: string, options?: FindOptions | number): FindResult {
    const site = callSite();
    const element = this.command('find', [description, options ?? {}], async () => {
      const settings = this.findSettings(description, options, 'find');
      const partition = this.cachePartition(description, settings, site);
      const thresholds = { screen: settings.cacheThreshold, element: this.options.cache.thresholds.find.element };
      const lookup = partition ? (screen: Screen) => this.elementCache.lookup(partition, screen, thresholds) : undefined;
      const outcome = await runFind(this.locateEngine(), () => this.captureScreen(), description, settings, (line) => this.log(line), lookup);
      if (partition && outcome.candidate && outcome.screen && !outcome.cache?.candidate) this.elementCache.record(partition, outcome.screen, [outcome.candidate]);
      return this.toElement(outcome, settings, site, description, options);
    }, description);
    const act = (run: (e: Element) => Promise<void>) => element.then(run);
    return Object.assign(element, {
      click: (action?: ClickAction) => act((e) => e.click(action)),
      hover: () => act((e) => e.hover()),
      doubleClick: () => act((e) => e.doubleClick()),
      rightClick: () => act((e) => e.rightClick()),
      found: () => element.then((e) => e.found()),
    });
  }

  /**
   * Every element matching the description, top-to-bottom and left-to-right;
   * [] when none. No polling. The cache is off unless cacheThreshold is set.
   */
  findAll(description: string, options?: FindAllOptions | number): Promise<Element[]> {
    const site = callSite();
    return this.command('findAll', [description, options ?? {}], async () => {
      const settings = this.findSettings(description, options, 'findAll');
      const screen = await this.captureScreen();
      const partition = this.cachePartition(`findAll: ${description}`, settings, site);
      const cached = partition
        ? this.elementCache.lookupAll(partition, screen, { screen: settings.cacheThreshold, element: this.options.cache.thresholds.find.element })
        : null;
      let candidates = cached?.candidates ?? null;
      if (!candidates) {
        const query = parseQuery(wrapDescription(description, settings.type));
        candidates = await this.locateEngine().locate(screen, query, { all: true }).catch((error) => {
          if (error instanceof LocateRefusal) {
            this.log(error.message);
            return [];
          }
          throw error;
        });
        if (candidates.length) cached?.evictStale?.();
        if (partition) this.elementCache.record(partition, screen, candidates);
      }
      const base = this.elementBase(description, settings, options);
      return candidates.map((candidate) => new Element(this.elementHost(), {
        ...base, cache: cached?.info ?? base.cache, similarity: cached?.similarity ?? null, candidate, screen, notFound: null, debugScreenshot: null,
      }));
    }, description);
  }

  /** Where this find's cache entry lives, or null when the cache is off for it. */
  private cachePartition(description: string, settings: ResolvedFindOptions, site: CallSite | null): Partition | null {
    if (!this.options.cache.enabled || settings.cacheThreshold === -1) return null;
    return {
      key: settings.cacheKey ?? defaultCacheKey(site),
      description: wrapDescription(description, settings.type),
      os: this.options.os,
      resolution: this.instance?.resolution ?? this.options.resolution,
    };
  }

  private findSettings(description: string, options: unknown, kind: 'find' | 'findAll'): ResolvedFindOptions {
    if (typeof description !== 'string' || !description.trim()) {
      throw new InvalidOptionError('description', `${kind}() needs a description of the element, e.g. 'the Submit button', got ${show(description)}.`);
    }
    return resolveFindOptions(options, kind, this.options);
  }

  /** The name of the locate engine finds use (`ocr` unless a vision model is configured). */
  getLocator(): string {
    return this.locateEngine().name;
  }

  private locateEngine(): LocateEngine {
    if (!this.engine) this.engine = selectEngine(this.options.locator);
    return this.engine;
  }

  /** The screen as raw pixels, for custom checks. */
  async captureScreen(): Promise<Screen> {
    const raw = await this.requireAgent().screenRaw();
    return { ...raw, format: 'bgrx' };
  }

  private elementBase(description: string, settings: ResolvedFindOptions, options: unknown, outcome?: FindOutcome): Pick<ElementDetails, 'description' | 'threshold' | 'cache' | 'similarity' | 'findOptions'> {
    return {
      description,
      threshold: settings.cacheThreshold,
      cache: outcome?.cache?.info ?? { hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent: null, imageUrl: null },
      similarity: outcome?.cache?.similarity ?? null,
      findOptions: typeof options === 'number' ? { cacheThreshold: options } : { ...(options as object) },
    };
  }

  private async toElement(outcome: FindOutcome, settings: ResolvedFindOptions, site: CallSite | null, description: string, options: unknown): Promise<Element> {
    let notFound: string | null = null;
    let debugScreenshot: string | null = null;
    if (!outcome.candidate) {
      if (outcome.screen) {
        debugScreenshot = this.screenshots.pathFor('find', 'notfound', description, site);
        const marks = outcome.best ? [{ box: outcome.best.box, colour: [230, 30, 30] as [number, number, number] }] : [];
        fs.writeFileSync(debugScreenshot, await encodePng(drawBoxes(outcome.screen, marks)));
      }
      const engine = this.locateEngine();
      const seen = outcome.screen && engine.seenInstead
        ? await engine.seenInstead(outcome.screen, outcome.query).catch(() => [])
        : [];
      notFound = this.notFoundMessage(outcome, settings, debugScreenshot, seen);
      this.log(notFound.split('\n')[0]);
    }
    return new Element(this.elementHost(), {
      ...this.elementBase(description, settings, options, outcome), candidate: outcome.candidate, screen: outcome.screen, notFound, debugScreenshot,
    });
  }

  private notFoundMessage(outcome: FindOutcome, settings: ResolvedFindOptions, screenshot: string | null, seen: string[]): string {
    const best = outcome.best;
    return [
      `Element not found: ${/^['"]/.test(outcome.description) ? outcome.description : `'${outcome.description}'`}.`,
      `  why: ${outcome.rejection}`,
      `  tried: ${this.locateEngine().name} engine, ${outcome.attempts} attempt(s) over ${(outcome.elapsedMs / 1000).toFixed(1)} s (timeout ${settings.timeout} ms${settings.zoom ? ', zoom' : ''}${settings.verify ? ', verify' : ''}${settings.confidence !== undefined ? `, confidence >= ${settings.confidence}` : ''})`,
      `  best candidate: ${best ? `'${best.text ?? ''}' at ${best.box.x},${best.box.y} ${best.box.width}x${best.box.height}, confidence ${best.confidence}` : 'none'}`,
      ...(seen.length ? [`  seen instead: ${seen.map((t) => `'${t}'`).join(', ')}`] : []),
      `  cache: ${cacheState(outcome, settings)}`,
      `  screenshot: ${screenshot ?? 'none (no screen was captured)'}`,
    ].join('\n');
  }

  private elementHost() {
    return {
      pointerAt: (x: number, y: number, action: ClickAction, label: string) =>
        this.command(action, [x, y], () => this.pointer(x, y, action), label),
      find: (description: string, options: Record<string, unknown>) => this.find(description, options),
    };
  }

  // ── internals ───────────────────────────────────────────────────────────

  /** The connected agent; for Glance's own layers (locate, cache). */
  requireAgent(): AgentClient {
    if (!this.agent) throw new StateError('Not connected to a sandbox: call await client.auth() and await client.connect() first.');
    return this.agent;
  }

  /** Writes an informational line (masked) to the console when logging is on, and emits `log:info`. */
  log(message: string): void {
    const line = this.redactor.text(message);
    if (this.logging) console.log(`[glance] ${line}`);
    this.emitter.emit('log:info', line);
  }

  /** Runs one SDK command with its events, auto screenshots and secret masking. */
  private async command<T>(name: string, args: unknown[], run: () => Promise<T>, label = ''): Promise<T> {
    const shownArgs = this.redactor.value(args);
    const started = performance.now();
    this.emitter.emit('command:start', { command: name, args: shownArgs });
    const shoot = this.options.autoScreenshots && this.agent && !['auth', 'connect', 'disconnect', 'screenshot', 'wait'].includes(name);
    const site = shoot ? callSite() : null;
    try {
      if (shoot) await this.autoScreenshot(name, 'before', label, site);
      const result = await run();
      if (shoot) await this.autoScreenshot(name, 'after', label, site);
      this.emitter.emit('command:success', { command: name, args: shownArgs, durationMs: performance.now() - started });
      return result;
    } catch (error) {
      this.redactor.error(error);
      this.emitter.emit('command:error', { command: name, args: shownArgs, durationMs: performance.now() - started, error });
      throw error;
    }
  }

  private async autoScreenshot(action: string, phase: 'before' | 'after', label: string, site: CallSite | null): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    fs.writeFileSync(this.screenshots.pathFor(action, phase, label, site), await agent.screenPng());
  }
}

function cacheState(outcome: FindOutcome, settings: ResolvedFindOptions): string {
  if (settings.cacheThreshold === -1) return 'off for this call';
  const info = outcome.cache?.info;
  if (!info) return 'off';
  return info.diffPercent === null ? 'no entry for this description' : `entry not used (screen ${info.diffPercent}% different, threshold ${settings.cacheThreshold * 100}%)`;
}
