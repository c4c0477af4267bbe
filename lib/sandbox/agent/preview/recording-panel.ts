import { Wakeup } from '../../../util/wait';

/**
 * The preview page's recording panel, as the agent's preview server keeps
 * it: the recording's steps and suggestions as the client last put them,
 * each step's picture, and the commands the page gives (delete, undo,
 * re-pick, a check or hover by pointing, stop) queued for the client, which
 * reads them with its token. The page reads and commands with the preview
 * key; only the client changes the list.
 */

/** One step of the list, as the page shows it (text already masked by the client). */
export interface PanelStep {
  index: number;
  keyword: string;
  text: string;
  flags: string[];
  /** How many points re-picking it takes (0: it names no element). */
  picks: number;
  /** Whether its picture has been put. */
  picture: boolean;
}

export interface PanelState {
  /** While true, the screen takes the page's input. */
  active: boolean;
  steps: PanelStep[];
  suggestions: { afterStep: number; text: string }[];
  /** The last thing the page should know: a command refused, and why. */
  notice: string | null;
}

export type PanelCommand =
  | { action: 'delete'; index: number }
  | { action: 'undo' }
  | { action: 'repick'; index: number; points: { x: number; y: number }[] }
  | { action: 'check'; kind: 'see' | 'contain' | 'not-see'; at?: { x: number; y: number }; text?: string }
  | { action: 'hover'; at: { x: number; y: number } }
  | { action: 'take'; suggestion: number }
  | { action: 'stop' };

const COMMANDS_KEPT = 100;
const PICTURES_KEPT = 300;
const MAX_STATE = 1024 * 1024;
const MAX_PICTURE = 2 * 1024 * 1024;
const MAX_COMMAND = 16 * 1024;
/** The longest a read of commands waits for one. */
const MAX_WAIT_MS = 10_000;

const point = (p: unknown): p is { x: number; y: number } => !!p && typeof p === 'object' && Number.isFinite((p as { x: number }).x) && Number.isFinite((p as { y: number }).y);

/** A command as the page sent it, checked; or the reason it is refused. */
export function parseCommand(body: unknown): PanelCommand | string {
  const c = (body ?? {}) as Record<string, unknown>;
  const index = Number.isInteger(c.index) ? (c.index as number) : null;
  switch (c.action) {
    case 'delete': return index !== null ? { action: 'delete', index } : "'delete' takes the step's index";
    case 'undo': return { action: 'undo' };
    case 'stop': return { action: 'stop' };
    case 'repick': return index !== null && Array.isArray(c.points) && c.points.length >= 1 && c.points.length <= 2 && c.points.every(point)
      ? { action: 'repick', index, points: c.points } : "'repick' takes the step's index and one or two points {x, y}";
    case 'check': {
      if (c.kind !== 'see' && c.kind !== 'contain' && c.kind !== 'not-see') return "'check' takes kind 'see', 'contain' or 'not-see'";
      if (c.at !== undefined && !point(c.at)) return "'check' takes its point as {x, y}";
      if (c.text !== undefined && (typeof c.text !== 'string' || c.text.length > 500)) return "'check' takes its text as a string of at most 500 characters";
      return { action: 'check', kind: c.kind, ...(c.at ? { at: c.at as { x: number; y: number } } : {}), ...(typeof c.text === 'string' ? { text: c.text } : {}) };
    }
    case 'hover': return point(c.at) ? { action: 'hover', at: c.at } : "'hover' takes its point as {x, y}";
    case 'take': return Number.isInteger(c.suggestion) ? { action: 'take', suggestion: c.suggestion as number } : "'take' takes the suggestion's number";
    default: return `unknown action '${String(c.action).slice(0, 40)}': the panel's actions are delete, undo, repick, check, hover, take and stop`;
  }
}

export class RecordingPanel {
  private state: PanelState = { active: false, steps: [], suggestions: [], notice: null };
  private readonly commands: (PanelCommand & { seq: number })[] = [];
  private seq = 0;
  private readonly arrived = new Wakeup();
  private readonly pictures = new Map<number, Buffer>();

  /**
   * @param publish sends an event to every page watching
   * @param allowInput lets the screen take the page's input (true) or not
   */
  constructor(private readonly publish: (event: string, data: unknown) => void, private readonly allowInput: (allowed: boolean) => void) {}

  /** The state, for a page that has just connected. */
  get current(): PanelState {
    return this.state;
  }

  /** The client puts the whole state. */
  put(body: unknown): string | null {
    const next = body as PanelState;
    if (!next || typeof next.active !== 'boolean' || !Array.isArray(next.steps) || !Array.isArray(next.suggestions)) return 'the recording panel takes {active, steps, suggestions, notice}';
    const was = this.state.active;
    this.state = { active: next.active, steps: next.steps, suggestions: next.suggestions, notice: typeof next.notice === 'string' ? next.notice : null };
    if (next.active !== was) this.allowInput(next.active);
    if (!next.active) this.commands.splice(0);
    this.publish('recording', this.state);
    return null;
  }

  putPicture(index: number, png: Buffer): void {
    this.pictures.set(index, png);
    for (const old of this.pictures.keys()) if (this.pictures.size > PICTURES_KEPT) this.pictures.delete(old);
  }

  picture(index: number): Buffer | null {
    return this.pictures.get(index) ?? null;
  }

  /** The page gives a command: queued for the client, refused while nothing records. */
  command(body: unknown): string | null {
    if (!this.state.active) return 'nothing is being recorded';
    const command = parseCommand(body);
    if (typeof command === 'string') return command;
    this.commands.push({ ...command, seq: ++this.seq });
    if (this.commands.length > COMMANDS_KEPT) this.commands.shift();
    this.arrived.wake();
    return null;
  }

  /** The commands after `after`, waiting up to `waitMs` for one. */
  async read(after: number, waitMs: number): Promise<(PanelCommand & { seq: number })[]> {
    const newer = () => this.commands.filter((c) => c.seq > after);
    if (!newer().length && waitMs > 0) await this.arrived.next(Math.min(waitMs, MAX_WAIT_MS));
    return newer();
  }

  close(): void {
    this.arrived.wake();
    if (this.state.active) this.allowInput(false);
  }
}

export const PANEL_LIMITS = { state: MAX_STATE, picture: MAX_PICTURE, command: MAX_COMMAND };

