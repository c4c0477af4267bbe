import x11 from 'x11';
import { settledWithin, Wakeup } from '../../util/wait';

/**
 * What a person does on the sandbox's display, as the X server sees it:
 * every key, button and pointer motion, from whichever client sent it (the
 * live preview's VNC server, xdotool, a real keyboard), through the RECORD
 * extension. Input that the agent itself injects for a client's commands is
 * left out exactly, not by timing: the agent's own XTEST requests are
 * recorded too, in the server's order, and each device event they cause is
 * matched and dropped.
 *
 * A recording ends exactly: the server is told to stop, and its end of data
 * comes after every input it handled before that, so nothing a person did
 * before the stop is lost, however late the agent reads its connection.
 */

type XClient = Record<string, any>;
type Callback<T> = (err: Error | null, value: T) => void;
const promisify = <T>(fn: (cb: Callback<T>) => void) => new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

/** Core device events: KeyPress 2, KeyRelease 3, ButtonPress 4, ButtonRelease 5, MotionNotify 6. */
const FIRST_DEVICE_EVENT = 2;
const LAST_DEVICE_EVENT = 6;
const XTEST_FAKE_INPUT = 2;
const CATEGORY = { FromServer: 0, FromClient: 1 };
/** Events kept for readers that ask late; older ones are dropped first. */
const MAX_KEPT = 10_000;
/** The longest a stop waits for the server's end of data. */
const END_BOUND_MS = 2_000;

export interface RecordedInput {
  /** Counts up from 1 in the order the server handled the input. */
  seq: number;
  kind: 'key' | 'button' | 'motion';
  /** Pressed (true) or released (false); motion is neither, and says false. */
  pressed: boolean;
  /** The keycode, or the button (1 left, 2 middle, 3 right, 4–7 the wheel). */
  detail: number;
  /** For keys: the keysym the key gives with the modifiers then held (0 when the keyboard has none). */
  keysym: number;
  /** The pointer on the screen. */
  x: number;
  y: number;
  /** The modifier and button mask held (X's state field). */
  state: number;
  /** The server's clock, ms. */
  time: number;
}

export class InputRecording {
  private readonly events: RecordedInput[] = [];
  private seq = 0;
  /** Device events the agent's own injections will cause, by event type, not yet seen. */
  private readonly injected = new Map<number, number>();
  private readonly arrived = new Wakeup();
  private stopped = false;
  private stopping: Promise<void> | null = null;
  /** Resolves when the server has sent the recording's end of data. */
  private readonly ended: Promise<void>;
  private endOfData: () => void = () => undefined;

  private constructor(
    private readonly control: XClient,
    private readonly data: XClient,
    private readonly record: XClient,
    private readonly context: number,
    private keymap: { min: number; rows: number[][] },
  ) {
    this.ended = new Promise((resolve) => { this.endOfData = resolve; });
  }

  /**
   * Starts recording `display`. `agentClient` is an XID of the agent's own
   * connection (its resource base), whose XTEST requests mark its injections.
   */
  static async start(display: string, agentClient: number): Promise<InputRecording> {
    const connect = () => new Promise<{ X: XClient; info: any }>((resolve, reject) => {
      const client = x11.createClient({ display }, (err: Error | null, info: any) => (err ? reject(err) : resolve({ X: info.client, info })));
      client.on('error', reject);
    });
    const control = await connect();
    const data = await connect();
    const record = await promisify<XClient>((cb) => control.X.require('record', cb)).catch(() => {
      throw new Error(`the X server of display ${display} has no RECORD extension, so input cannot be recorded`);
    });
    const xtest = await promisify<XClient>((cb) => control.X.require('xtest', cb));
    const min = control.info.min_keycode;
    const rows = await promisify<number[][]>((cb) => control.X.GetKeyboardMapping(min, control.info.max_keycode - min + 1, cb));
    const context = control.X.AllocID();
    record.CreateContext(context, 0, [record.CS.AllClients], [{ deviceEvents: { first: FIRST_DEVICE_EVENT, last: LAST_DEVICE_EVENT } }]);
    record.RegisterClients(context, 0, [agentClient], [{ extRequests: { major: { first: xtest.majorOpcode, last: xtest.majorOpcode }, minor: { first: XTEST_FAKE_INPUT, last: XTEST_FAKE_INPUT } } }]);
    const dataRecord = await promisify<XClient>((cb) => data.X.require('record', cb));
    const recording = new InputRecording(control.X, data.X, record, context, { min, rows });
    // The series of replies ends (its callback) at the server's end of data, or when the context could not be enabled;
    // a display that went away sends none.
    dataRecord.EnableContext(context, (reply: { category: number; data: Buffer }) => {
      recording.take(reply.category, reply.data);
      // The connection keeps each reply of a series for its end: emptied here, so that a long recording's memory stays flat.
      series[3]?.splice(0);
    }, () => recording.endOfData());
    const series: unknown[][] = data.X.replies[data.X.seq_num];
    data.X.on('end', () => recording.endOfData());
    // A round trip on the control connection: the context exists and is enabled once it answers.
    await promisify((cb) => control.X.GetInputFocus(cb));
    return recording;
  }

  /** The events after `after` (a seq), waiting up to `timeoutMs` for one when there is none yet. */
  async after(after: number, timeoutMs: number): Promise<RecordedInput[]> {
    const ready = () => this.events.filter((e) => e.seq > after);
    if (ready().length || timeoutMs <= 0 || this.stopped) return ready();
    await this.arrived.next(timeoutMs);
    return ready();
  }

  /**
   * Stops recording. Resolves once every input the server handled before the
   * stop is among the events (its end of data has come; at most END_BOUND_MS).
   */
  stop(): Promise<void> {
    this.stopping ??= this.end();
    return this.stopping;
  }

  private async end(): Promise<void> {
    // Disabled from the other connection: the recording one only receives.
    this.record.DisableContext(this.context);
    await settledWithin(this.ended, END_BOUND_MS);
    this.stopped = true;
    this.arrived.wake();
    // Closing the connection that made the context frees it.
    this.data.terminate?.();
    this.control.terminate?.();
  }

  private take(category: number, bytes: Buffer): void {
    if (category === CATEGORY.FromClient) this.countInjections(bytes);
    else if (category === CATEGORY.FromServer) this.takeEvents(bytes);
  }

  /** XTEST FakeInput requests of the agent: each causes one device event of its type. */
  private countInjections(bytes: Buffer): void {
    for (let at = 0; at + 4 <= bytes.length;) {
      const length = bytes.readUInt16LE(at + 2) * 4;
      if (length < 8) break;
      if (bytes[at + 1] === XTEST_FAKE_INPUT) {
        const type = bytes[at + 4];
        this.injected.set(type, (this.injected.get(type) ?? 0) + 1);
      }
      at += length;
    }
  }

  private takeEvents(bytes: Buffer): void {
    for (let at = 0; at + 32 <= bytes.length; at += 32) {
      const type = bytes[at] & 0x7f;
      if (type < FIRST_DEVICE_EVENT || type > LAST_DEVICE_EVENT) continue;
      const pending = this.injected.get(type) ?? 0;
      if (pending > 0) {
        this.injected.set(type, pending - 1);
        continue;
      }
      const detail = bytes[at + 1];
      const state = bytes.readUInt16LE(at + 28);
      const kind = type <= 3 ? 'key' : type <= 5 ? 'button' : 'motion';
      this.events.push({
        seq: ++this.seq, kind, pressed: type === 2 || type === 4, detail,
        keysym: kind === 'key' ? this.keysymOf(detail, state) : 0,
        x: bytes.readInt16LE(at + 20), y: bytes.readInt16LE(at + 22), state, time: bytes.readUInt32LE(at + 4),
      });
    }
    if (this.events.length > MAX_KEPT) this.events.splice(0, this.events.length - MAX_KEPT);
    this.arrived.wake();
  }

  /** The keysym of a keycode with Shift (bit 0 of the state) or not; the first column when the second is empty. */
  private keysymOf(keycode: number, state: number): number {
    const row = this.keymap.rows[keycode - this.keymap.min];
    if (!row) return 0;
    const shifted = (state & 1) !== 0;
    return (shifted && row[1]) || row[0] || 0;
  }
}
