import { EventEmitter } from 'events';
import { callSite, CallSite } from '../util/call-site';
import { BackgroundEncoder } from '../image/background-encoder';
import { Redactor } from './redact';
import { ScreenshotFolder } from './screenshots';
import type { AgentClient } from '../sandbox/agent-client';

/** What a command learnt about itself beyond its result: for events, analytics and the report. */
export interface CommandNotes {
  /** not-found: a find that resolved to an Element whose found() is false. */
  outcome?: 'not-found';
  /** The description (find, findAll, assert), masked. */
  description?: string;
  cacheHit?: boolean;
  /** The engine that answered. */
  engine?: string;
  /** How the redraw wait after an action went. */
  redraw?: { changed: boolean; settled: boolean; waitedMs: number; networkQuiet: boolean | null };
  /** Where a find's time went, in ms. */
  phases?: { capture: number; cache: number; engine: number; change: number };
  /** Vision-model calls the command made, and the tokens they took. */
  modelCalls?: number;
  modelTokens?: number;
}

export interface CommandEvent extends CommandNotes {
  command: string;
  args: unknown[];
  durationMs?: number;
  error?: Error;
}

/** A finished command, as observers (analytics, the live preview's log) get it. */
export interface FinishedCommand extends Omit<CommandNotes, 'outcome'> {
  command: string;
  label: string;
  startedAt: number;
  durationMs: number;
  outcome: 'success' | 'error' | 'not-found';
  /** The error's class name (never its message, which can quote the screen). */
  errorName: string | null;
  errorMessage: string | null;
}

/** What a command's body can tell the runner while it runs. */
export interface CommandContext {
  note(notes: CommandNotes): void;
}

/** Commands that take no screenshots around them: they have no screen yet, or are one. */
const UNSHOT = ['auth', 'connect', 'disconnect', 'screenshot', 'wait'];

/**
 * Runs every SDK command the same way: `command:start`, then
 * `command:success` or `command:error` with its duration, secrets masked in
 * arguments and errors, and screenshots around it (and on error) when
 * autoScreenshots is on. The screenshots are raw captures handed to a
 * worker thread for encoding, so they cost a command only the capture.
 */
export class CommandRunner {
  readonly emitter = new EventEmitter();
  readonly redactor = new Redactor();
  readonly screenshots: ScreenshotFolder;
  readonly encoder = new BackgroundEncoder();
  /** Told about every finished command (analytics, the live preview's log). */
  readonly observers: ((command: FinishedCommand) => void)[] = [];
  logging: boolean;

  constructor(stateDir: string, logging: boolean, private readonly autoScreenshots: boolean, private readonly agent: () => AgentClient | null) {
    this.logging = logging;
    this.screenshots = new ScreenshotFolder(stateDir, this.redactor);
  }

  /** Writes an informational line (masked) to the console when logging is on, and emits `log:info`. */
  log(message: string): void {
    const line = this.redactor.text(message);
    if (this.logging) console.log(`[glance] ${line}`);
    this.emitter.emit('log:info', line);
  }

  /** A problem that does not fail the test (the dashcam stopped, a screenshot was not written): `log:warn`. */
  warn(message: string): void {
    const line = this.redactor.text(message);
    if (this.logging) console.warn(`[glance] warning: ${line}`);
    this.emitter.emit('log:warn', line);
  }

  async run<T>(name: string, args: unknown[], run: (context: CommandContext) => Promise<T>, label = ''): Promise<T> {
    const shownArgs = this.redactor.value(args);
    const startedAt = Date.now();
    const started = performance.now();
    const notes: CommandNotes = {};
    this.emitter.emit('command:start', { command: name, args: shownArgs });
    const shoot = this.autoScreenshots && this.agent() !== null && !UNSHOT.includes(name);
    const site = shoot ? callSite() : null;
    const finished = (outcome: FinishedCommand['outcome'], error: unknown) => {
      const durationMs = performance.now() - started;
      const record: FinishedCommand = {
        ...notes, command: name, label: this.redactor.text(label), startedAt, durationMs, outcome: notes.outcome ?? outcome,
        errorName: error instanceof Error ? error.name : null, errorMessage: error instanceof Error ? error.message : null,
      };
      for (const observer of this.observers) observer(record);
      return durationMs;
    };
    try {
      if (shoot) await this.screenshot(name, 'before', label, site);
      const result = await run({ note: (more) => Object.assign(notes, this.redactor.value(more)) });
      if (shoot) await this.screenshot(name, 'after', label, site);
      const durationMs = finished('success', null);
      this.emitter.emit('command:success', { ...notes, command: name, args: shownArgs, durationMs });
      return result;
    } catch (error) {
      this.redactor.error(error);
      if (shoot) await this.screenshot(name, 'error', label, site).catch(() => undefined);
      const durationMs = finished('error', error);
      this.emitter.emit('command:error', { ...notes, command: name, args: shownArgs, durationMs, error });
      throw error;
    }
  }

  /** Captures the screen raw (a few ms) and leaves the encoding to the worker. */
  private async screenshot(action: string, phase: 'before' | 'after' | 'error', label: string, site: CallSite | null): Promise<void> {
    const agent = this.agent();
    if (!agent) return;
    const screen = await agent.screenRaw();
    await this.encoder.write(this.screenshots.pathFor(action, phase, label, site), screen, { format: 'png' });
  }

  /** Waits until every screenshot handed to the worker is on disk; warns about any that could not be written. */
  async flushScreenshots(): Promise<void> {
    for (const failure of await this.encoder.flush()) this.warn(`a screenshot was not written: ${failure}`);
  }
}
