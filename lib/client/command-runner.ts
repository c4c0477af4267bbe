import { EventEmitter } from 'events';
import fs from 'fs';
import { callSite, CallSite } from '../util/call-site';
import { Redactor } from './redact';
import { ScreenshotFolder } from './screenshots';
import type { AgentClient } from '../sandbox/agent-client';

export interface CommandEvent {
  command: string;
  args: unknown[];
  durationMs?: number;
  error?: Error;
}

/** Commands that take no screenshots around them: they have no screen yet, or are one. */
const UNSHOT = ['auth', 'connect', 'disconnect', 'screenshot', 'wait'];

/**
 * Runs every SDK command the same way: `command:start`, then
 * `command:success` or `command:error` with its duration, secrets masked in
 * arguments and errors, and screenshots around it when autoScreenshots is on.
 */
export class CommandRunner {
  readonly emitter = new EventEmitter();
  readonly redactor = new Redactor();
  readonly screenshots: ScreenshotFolder;
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

  async run<T>(name: string, args: unknown[], run: () => Promise<T>, label = ''): Promise<T> {
    const shownArgs = this.redactor.value(args);
    const started = performance.now();
    this.emitter.emit('command:start', { command: name, args: shownArgs });
    const shoot = this.autoScreenshots && this.agent() !== null && !UNSHOT.includes(name);
    const site = shoot ? callSite() : null;
    try {
      if (shoot) await this.screenshot(name, 'before', label, site);
      const result = await run();
      if (shoot) await this.screenshot(name, 'after', label, site);
      this.emitter.emit('command:success', { command: name, args: shownArgs, durationMs: performance.now() - started });
      return result;
    } catch (error) {
      this.redactor.error(error);
      this.emitter.emit('command:error', { command: name, args: shownArgs, durationMs: performance.now() - started, error });
      throw error;
    }
  }

  private async screenshot(action: string, phase: 'before' | 'after', label: string, site: CallSite | null): Promise<void> {
    const agent = this.agent();
    if (!agent) return;
    fs.writeFileSync(this.screenshots.pathFor(action, phase, label, site), await agent.screenPng());
  }
}
