import fs from 'fs';
import { ExecError, InvalidOptionError } from '../config/errors';
import { show } from '../config/validate';
import { MAX_PRESSES, parseChord } from '../sandbox/keys';
import type { Screen } from '../types/screen';
import { callSite } from '../util/call-site';
import { sleep } from '../util/wait';
import { waitForStillScreen } from '../util/settle';
import { CommandContext, CommandRunner } from './command-runner';
import { ClientSession } from './session';
import { Redraw } from './redraw';
import { MASK } from './redact';

export type ClickAction = 'click' | 'double-click' | 'right-click' | 'middle-click' | 'hover' | 'mouse-down' | 'mouse-up';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface TypeOptions {
  /** Mask the text in logs, events, reports and file names. */
  secret?: boolean;
  /** Milliseconds between keystrokes (default 0). */
  delay?: number;
  /**
   * Click this point first (an element's centre, to type into it). The click
   * and the typing share one redraw wait, after the typing: the keys need not
   * wait for the field's focus to be drawn, only to be given.
   */
  into?: { x: number; y: number };
}

export interface PressOptions {
  /** Presses the keys this many times (default 1, at most MAX_PRESSES), each once the last is handled, with one redraw wait after the last. */
  times?: number;
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

export const CLICK_ACTIONS: ClickAction[] = ['click', 'double-click', 'right-click', 'middle-click', 'hover', 'mouse-down', 'mouse-up'];
const SCROLL_DIRECTIONS: ScrollDirection[] = ['up', 'down', 'left', 'right'];
/**
 * Scrolling is sent as wheel clicks; Chromium on X11 moves 120 px per click
 * (measured), so amounts are rounded to whole clicks.
 */
export const PIXELS_PER_WHEEL_CLICK = 120;

/**
 * The Client's actions on the sandbox: pointer, keyboard, scroll, exec, apps
 * and screenshots. Each is one command; those that act on the screen wait
 * for its redraw afterwards (the `redraw` option).
 */
export class Actions {
  constructor(private readonly session: ClientSession, private readonly runner: CommandRunner, private readonly redraw: Redraw) {}

  pointerAt(x: number, y: number, action: ClickAction, label: string): Promise<void> {
    return this.runner.run(action, [x, y], (context) => this.pointer(x, y, action, context), label);
  }

  private async pointer(x: number, y: number, action: ClickAction, context: CommandContext): Promise<void> {
    if (!CLICK_ACTIONS.includes(action)) {
      throw new InvalidOptionError('action', `Invalid click action ${show(action)}; use one of ${CLICK_ACTIONS.join(', ')}.`);
    }
    this.checkPoint(x, y);
    await this.act(context, '/pointer', { action, x, y });
  }

  /** Sends an input to the agent, then waits for the screen to redraw and settle. */
  private act(context: CommandContext, route: string, body: Record<string, unknown>, timeoutMs?: number): Promise<unknown> {
    const agent = this.session.requireAgent();
    return this.redraw.around(agent, context, () => agent.call('POST', route, body, timeoutMs));
  }

  private checkPoint(x: unknown, y: unknown): void {
    const { width, height } = this.session.screenSize();
    const inside = (v: unknown, max: number) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < max;
    if (!inside(x, width) || !inside(y, height)) {
      throw new InvalidOptionError('x, y', `The point (${show(x)}, ${show(y)}) is not on the ${width}x${height} screen; x must be 0-${width - 1} and y 0-${height - 1}.`);
    }
  }

  type(text: string, options: TypeOptions = {}): Promise<void> {
    if (options.secret && typeof text === 'string') this.runner.redactor.add(text);
    const shown = options.secret ? MASK : text;
    return this.runner.run('type', [shown, options], async (context) => {
      if (typeof text !== 'string') throw new InvalidOptionError('text', `type() expects a string, got ${show(text)}.`);
      const delay = options.delay ?? 0;
      if (typeof delay !== 'number' || delay < 0 || delay > 5000) throw new InvalidOptionError('delay', `Invalid option 'delay': got ${show(delay)}; expected milliseconds from 0 to 5000.`);
      if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) {
        throw new InvalidOptionError('text', 'type() cannot type control characters; use pressKeys() for keys such as Enter or Tab.');
      }
      const into = options.into;
      if (into !== undefined) this.checkPoint(into?.x, into?.y);
      const agent = this.session.requireAgent();
      await this.redraw.around(agent, context, async () => {
        if (into) await agent.call('POST', '/pointer', { action: 'click', x: into.x, y: into.y });
        return agent.call('POST', '/type', { text, delay }, 30_000 + text.length * (delay + 20));
      });
    }, shown);
  }

  pressKeys(keys: string[], options: PressOptions = {}): Promise<void> {
    return this.runner.run('pressKeys', [keys, options], async (context) => {
      parseChord(keys);
      const times = options.times ?? 1;
      if (!Number.isInteger(times) || times < 1 || times > MAX_PRESSES) {
        throw new InvalidOptionError('times', `Invalid option 'times': got ${show(times)}; expected a whole number from 1 to ${MAX_PRESSES}.`);
      }
      await this.act(context, '/keys', { keys, times });
    }, Array.isArray(keys) ? keys.join('+') : '');
  }

  scroll(direction: ScrollDirection, options: ScrollOptions): Promise<void> {
    return this.runner.run('scroll', [direction, options], async (context) => {
      if (!SCROLL_DIRECTIONS.includes(direction)) {
        throw new InvalidOptionError('direction', `Invalid scroll direction ${show(direction)}; use one of ${SCROLL_DIRECTIONS.join(', ')}.`);
      }
      const amount = options.amount ?? 300;
      if (typeof amount !== 'number' || !(amount > 0)) throw new InvalidOptionError('amount', `Invalid option 'amount': got ${show(amount)}; expected a number of pixels above 0.`);
      const at = options.x !== undefined || options.y !== undefined ? { x: options.x, y: options.y } : {};
      if ('x' in at) this.checkPoint(at.x, at.y);
      const clicks = Math.max(1, Math.round(amount / PIXELS_PER_WHEEL_CLICK));
      await this.act(context, '/scroll', { direction, clicks, ...at });
    }, direction);
  }

  exec(language: 'sh', code: string, options: ExecOptions): Promise<string> {
    return this.runner.run('exec', [language, code, options], async () => {
      if (language !== 'sh') throw new InvalidOptionError('language', `exec() runs 'sh' code, got ${show(language)}; pass 'sh' (use 'python3 -c ...' inside it for other languages).`);
      if (typeof code !== 'string' || !code.trim()) throw new InvalidOptionError('code', `exec() needs shell code to run, got ${show(code)}.`);
      const timeout = options.timeout ?? 30_000;
      if (typeof timeout !== 'number' || timeout <= 0) throw new InvalidOptionError('timeout', `Invalid option 'timeout': got ${show(timeout)}; expected milliseconds above 0.`);
      const result = await this.session.requireAgent().call<{ stdout: string; stderr: string; exitCode: number | null; timedOut: boolean }>(
        'POST', '/exec', { code, timeout }, timeout + 5_000);
      if (result.timedOut) throw new ExecError(`exec timed out after ${timeout} ms and was killed: ${code}`, null, result.stdout, result.stderr);
      if (result.exitCode !== 0) {
        const stderr = result.stderr.trim() || '(no stderr)';
        throw new ExecError(`exec exited with code ${result.exitCode}: ${code}\n${stderr}`, result.exitCode, result.stdout, result.stderr);
      }
      return result.stdout;
    }, typeof code === 'string' ? code.slice(0, 30) : '');
  }

  focusApplication(name: string): Promise<void> {
    return this.runner.run('focusApplication', [name], async (context) => {
      if (typeof name !== 'string' || !name.trim()) throw new InvalidOptionError('name', `focusApplication needs a window title or class, got ${show(name)}.`);
      await this.act(context, '/focus', { name, timeout: 5_000 });
    }, name);
  }

  screenshot(name: string, background: boolean): Promise<string> {
    const site = callSite();
    return this.runner.run('screenshot', [name], async () => {
      const file = this.runner.screenshots.pathFor('screenshot', 'now', name, site);
      if (background) await this.runner.encoder.write(file, await this.captureScreen(), { format: 'png' });
      else fs.writeFileSync(file, await this.session.requireAgent().screenPng());
      return file;
    });
  }

  resetApps(): Promise<void> {
    return this.runner.run('resetApps', [], async () => {
      await this.session.requireAgent().call('POST', '/apps/close', {}, 15_000);
      this.session.skipProvision = false;
    });
  }

  settle(timeoutMs: number): Promise<void> {
    return this.runner.run('settle', [timeoutMs], async () => {
      await waitForStillScreen(() => this.captureScreen(), timeoutMs);
    });
  }

  wait(ms: number): Promise<void> {
    return this.runner.run('wait', [ms], async () => {
      if (typeof ms !== 'number' || ms < 0 || !Number.isFinite(ms)) throw new InvalidOptionError('ms', `wait() expects milliseconds >= 0, got ${show(ms)}.`);
      await sleep(ms);
    });
  }

  async captureScreen(): Promise<Screen> {
    const raw = await this.session.requireAgent().screenRaw();
    return { ...raw, format: 'bgrx' };
  }

  provisionChrome({ url, timeout = 30_000 }: { url: string; timeout?: number }): Promise<void> {
    return this.runner.run('provision.chrome', [url], async () => {
      if (typeof url !== 'string' || !/^(https?|file|data|about):/.test(url)) {
        throw new InvalidOptionError('url', `provision.chrome needs a url such as 'http://localhost:3000', got ${show(url)}.`);
      }
      if (this.session.skipProvision) return this.runner.log('Skipped provision.chrome: the rejoined sandbox already runs its apps.');
      await this.session.requireAgent().call('POST', '/launch/chrome', { url, timeout }, timeout + 5_000);
    });
  }

  provisionApp({ command, timeout = 30_000 }: { command: string; timeout?: number }): Promise<void> {
    return this.runner.run('provision.app', [command], async () => {
      if (typeof command !== 'string' || !command.trim()) {
        throw new InvalidOptionError('command', `provision.app needs a command such as 'xeyes', got ${show(command)}.`);
      }
      if (this.session.skipProvision) return this.runner.log('Skipped provision.app: the rejoined sandbox already runs its apps.');
      const { dialog, tree } = await this.session.requireAgent().call<{ dialog?: string; tree?: string }>('POST', '/launch/app', { command, timeout }, timeout + 5_000);
      if (tree === 'none') this.runner.log(`'${command}' publishes no accessibility tree: its elements are found on the pixels.`);
      // A program that opens a dialog first ("Restore the previous session?") takes the next keys there: say so.
      if (dialog !== undefined) this.runner.log(`'${command}' opened a dialog first: '${dialog}'. Keys typed next go to it.`);
    });
  }
}
