import type { EventEmitter } from 'events';
import type { LivePreview } from '../preview';
import type { Redactor } from '../redact';
import type { PanelCommand, PanelState } from '../../sandbox/agent/preview/recording-panel';
import type { Recorder, RecordedStep } from './recorder';

/** How long one read of the page's commands waits for one. */
const COMMAND_WAIT_MS = 2000;
/** After a read that failed (the preview server is restarting or gone), the next one is tried this much later. */
const READ_FAILED_PAUSE_MS = 500;

/**
 * The recording panel of the live preview page, driven from the client: it
 * puts the recorder's steps (each with its picture) and suggestions on the
 * page as they change, and carries out what the person does there (delete,
 * undo, re-pick, a check or hover by pointing, take a suggestion, stop). A
 * command the recorder refuses is shown on the page with its reason.
 */
export class PreviewPanel {
  private active = true;
  private dirty = false;
  private syncing: Promise<void> | null = null;
  private notice: string | null = null;
  /** Steps whose picture was tried, and those whose picture the page has. */
  private readonly tried = new Set<number>();
  private readonly pictured = new Set<number>();
  private readonly reading: Promise<void>;
  private readonly onChange = () => this.schedule();

  constructor(
    private readonly recorder: Recorder,
    private readonly preview: LivePreview,
    private readonly emitter: EventEmitter,
    private readonly redactor: Redactor,
    private readonly log: (line: string) => void,
  ) {
    emitter.on('recorder:steps', this.onChange);
    emitter.on('recorder:suggestion', this.onChange);
    this.schedule();
    this.reading = this.readCommands();
  }

  /** The recording has stopped: the page's screen takes no more input, and its list stays as it ended. */
  async close(): Promise<void> {
    this.active = false;
    this.emitter.off('recorder:steps', this.onChange);
    this.emitter.off('recorder:suggestion', this.onChange);
    await this.reading;
    this.schedule();
    await this.syncing;
  }

  private schedule(): void {
    this.dirty = true;
    this.syncing ??= this.sync().finally(() => { this.syncing = null; });
  }

  /** Puts the state until it is the latest; pictures go up after the words, then the state again. */
  private async sync(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      await this.put();
      let added = false;
      for (const step of this.recorder.steps) {
        if (this.tried.has(step.index)) continue;
        this.tried.add(step.index);
        const png = await this.recorder.pictureOf(step.index);
        if (!png) continue;
        const put = await this.preview.call('PUT', `/recording/picture?index=${step.index}`, png, { contentType: 'image/png' }).catch(() => null);
        if (put?.status !== 204) continue;
        this.pictured.add(step.index);
        added = true;
      }
      if (added) await this.put();
    }
  }

  private async put(): Promise<void> {
    const state: PanelState = {
      active: this.active,
      steps: this.recorder.steps.map((step) => this.shown(step)),
      suggestions: this.recorder.suggestions.map((s) => ({ afterStep: s.afterStep, text: `${s.keyword} ${s.text}` })),
      notice: this.notice,
    };
    const body = Buffer.from(JSON.stringify(this.redactor.value(state)));
    await this.preview.call('PUT', '/recording', body).catch((error) => this.log(`The preview's step list was not updated: ${(error as Error).message}`));
  }

  private shown(step: RecordedStep): PanelState['steps'][number] {
    return { index: step.index, keyword: step.keyword, text: step.text, flags: step.flags, picks: this.recorder.picksOf(step), picture: this.pictured.has(step.index) };
  }

  private async readCommands(): Promise<void> {
    let after = 0;
    while (this.active) {
      const read = await this.preview.call('GET', `/recording/commands?after=${after}&timeoutMs=${COMMAND_WAIT_MS}`, null, { timeoutMs: COMMAND_WAIT_MS + 5000 }).catch(() => null);
      if (!this.active) return;
      if (read?.status !== 200) {
        await new Promise((resolve) => setTimeout(resolve, READ_FAILED_PAUSE_MS));
        continue;
      }
      const { commands } = JSON.parse(read.body.toString('utf8')) as { commands: (PanelCommand & { seq: number })[] };
      for (const command of commands) {
        after = command.seq;
        this.notice = null;
        try {
          await this.carryOut(command);
        } catch (error) {
          this.notice = (error as Error).message;
          this.log(`The preview's ${command.action} was not done: ${this.notice}`);
        }
        this.schedule();
      }
    }
  }

  private async carryOut(command: PanelCommand): Promise<void> {
    const recorder = this.recorder;
    switch (command.action) {
      case 'delete': return recorder.remove(command.index);
      case 'undo':
        if (!recorder.undo()) throw new Error('there is nothing to undo');
        return;
      case 'repick': await recorder.repick(command.index, command.points); return;
      case 'check': await recorder.check(command.kind, { at: command.at, text: command.text }); return;
      case 'hover': await recorder.hoverAt(command.at); return;
      case 'take': {
        const suggestion = recorder.suggestions[command.suggestion];
        if (!suggestion) throw new Error(`there is no suggestion ${command.suggestion}`);
        recorder.assertSeen(suggestion.description);
        return;
      }
      case 'stop': return recorder.requestStop();
    }
  }
}
