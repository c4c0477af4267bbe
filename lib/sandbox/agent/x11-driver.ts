import fs from 'fs';
import x11 from 'x11';
import { Driver, Frame, MouseButton, ScrollDirection, StackedWindow, WindowInfo } from './driver';
import { keysymFor, keysymForChar, SHIFT_KEYSYM } from './x11-keysyms';
import { frameFilePath, removeStaleFrameFilesOnce } from '../frame-files';
import { ScreenChanges } from './screen-changes';
import { CaretBlinks, DrawnArea } from './caret-blinks';
import { settledWithin, sleep } from '../../util/wait';

/**
 * The desktop driver for X11: captures over MIT-SHM (falling back to core
 * GetImage) and sends input through XTEST, all on one in-process connection.
 */

type Callback<T> = (err: Error | null, value: T) => void;
type XClient = Record<string, any>;

const XTEST = { KeyPress: 2, KeyRelease: 3, ButtonPress: 4, ButtonRelease: 5, MotionNotify: 6 };
const BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3 };
const WHEEL: Record<ScrollDirection, number> = { up: 4, down: 5, left: 6, right: 7 };
const Z_PIXMAP = 2;
const VIEWABLE = 2;
const INPUT_OUTPUT = 1;
/** The window types of open menus (EWMH). */
const MENU_TYPES = ['_NET_WM_WINDOW_TYPE_MENU', '_NET_WM_WINDOW_TYPE_POPUP_MENU', '_NET_WM_WINDOW_TYPE_DROPDOWN_MENU', '_NET_WM_WINDOW_TYPE_COMBO'];
const SUBSTRUCTURE_NOTIFY_AND_REDIRECT = 0x80000 | 0x100000;
/** The property a window's instance number is kept in (WindowInfo.instance), a CARDINAL. */
const INSTANCE_PROPERTY = '_GLANCE_WINDOW_INSTANCE';
const CARDINAL = 6;
const PROP_MODE_REPLACE = 0;
/** Instance numbers, counted across the process's drivers: a window listed by two is told apart by either. */
let nextInstance = 1;

interface KeyPlace { keycode: number; shifted: boolean }
const MAX_SHARED_FRAMES = 8;
/** How long close() waits for the X server to take its last requests. */
const CLOSE_SYNC_BOUND_MS = 1000;

function promisify<T>(fn: (cb: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
}

export class X11Driver implements Driver {
  readonly width: number;
  readonly height: number;
  private readonly keyPlaces = new Map<number, KeyPlace>();
  private scratchKeycodes: number[] = [];
  private nextScratch = 0;
  private readonly atoms = new Map<string, number>();
  /** The windows' instance numbers are read or given one at a time (see instanceOf). */
  private numbering: Promise<unknown> = Promise.resolve();
  /** Frame files attached to the X server, by path (see captureToFile). */
  private readonly sharedFrames = new Map<string, number>();
  /** The screen's changes, counted from damage reports; null where the X server has no DAMAGE extension. */
  changes: ScreenChanges | null = null;
  /** The connection small areas are read on (see readArea), opened at the first read. */
  private areaReader: Promise<XClient> | null = null;
  private privateFrame: { path: string; fd: number } | null = null;

  private constructor(
    private readonly display: string,
    private readonly X: XClient,
    private readonly root: number,
    screen: { pixel_width: number; pixel_height: number },
    private readonly xtest: XClient,
    private readonly shm: XClient | null,
    private readonly keysymsPerKeycode: number,
  ) {
    this.width = screen.pixel_width;
    this.height = screen.pixel_height;
  }

  /** Connects to `display` (e.g. `:3`) and prepares capture and input. */
  static async connect(display: string): Promise<X11Driver> {
    const { X, info } = await connectX(display);
    const screen = info.screen[0];
    const xtest = await promisify<XClient>((cb) => X.require('xtest', cb));
    const shm = await X11Driver.openShm(X);
    // Frame files of agents and clients that crashed would hold their RAM until the machine restarts.
    if (shm) removeStaleFrameFilesOnce();
    const min = info.min_keycode;
    const rows = await promisify<number[][]>((cb) => X.GetKeyboardMapping(min, info.max_keycode - min + 1, cb));
    const driver = new X11Driver(display, X, screen.root, screen, xtest, shm, rows[0].length);
    driver.indexKeyboard(min, rows);
    await driver.watchDamage();
    return driver;
  }

  /**
   * Counts the screen's changes from the X server's damage reports. Reported
   * whenever the extent of the damage grows; the agent then takes it away at
   * once, so the next drawing is reported again. Without DAMAGE, `changes`
   * stays null and waiters look at the screen instead.
   */
  private async watchDamage(): Promise<void> {
    let damageExt: XClient;
    try {
      damageExt = await promisify<XClient>((cb) => this.X.require('damage', cb));
    } catch {
      return;
    }
    const damage = this.X.AllocID();
    // Reported with the extent of what was drawn since the last report, so that a caret's blink can be told apart.
    damageExt.Create(damage, this.root, damageExt.ReportLevel.BoundingBox);
    const changes = new ScreenChanges(() => this.sync());
    const blinks = new CaretBlinks((area) => this.readArea(area));
    this.X.on('event', (event: { name?: string; damage?: number; area?: { x: number; y: number; w: number; h: number } }) => {
      if (event.name !== 'DamageNotify' || event.damage !== damage) return;
      damageExt.Subtract(damage, 0, 0);
      const area = event.area;
      changes.bump(area ? blinks.onlyCaret({ x: area.x, y: area.y, width: area.w, height: area.h }) : false);
    });
    this.changes = changes;
  }

  /** The MIT-SHM extension when a segment can really be attached here, else null (core GetImage still works). */
  private static async openShm(X: XClient): Promise<XClient | null> {
    try {
      const ext = await promisify<XClient>((cb) => X.require('shm', cb));
      return (await promisify<boolean>((cb) => ext.usable(cb))) && ext.fdCapable ? ext : null;
    } catch {
      return null;
    }
  }

  private indexKeyboard(minKeycode: number, rows: number[][]): void {
    rows.forEach((syms, i) => {
      const keycode = minKeycode + i;
      if (syms.every((s) => s === 0)) this.scratchKeycodes.push(keycode);
      syms.slice(0, 2).forEach((sym, level) => {
        if (sym && !this.keyPlaces.has(sym)) this.keyPlaces.set(sym, { keycode, shifted: level === 1 });
      });
    });
  }

  /** A round trip: once it returns, the server has processed every earlier request. */
  private sync(): Promise<void> {
    return promisify((cb) => this.X.GetInputFocus(cb)).then(() => undefined);
  }

  get frameBytes(): number {
    return this.width * this.height * 4;
  }

  /**
   * Captures the screen into a frame file in /dev/shm. With MIT-SHM the X
   * server writes the pixels straight into the file's pages, so a reader on
   * the same machine gets the frame without any copy through a socket.
   */
  async captureToFile(path: string): Promise<void> {
    if (!this.shm) {
      const frame = await this.captureCore();
      fs.writeFileSync(path, frame.data);
      return;
    }
    const shm = this.shm;
    const segment = await this.attachFrameFile(path);
    await promisify((cb) => shm.GetImage(this.root, 0, 0, this.width, this.height, 0xffffffff, Z_PIXMAP, segment, 0, cb));
  }

  private async attachFrameFile(path: string): Promise<number> {
    const known = this.sharedFrames.get(path);
    if (known !== undefined) return known;
    const fd = fs.openSync(path, 'r+');
    try {
      if (fs.fstatSync(fd).size < this.frameBytes) fs.ftruncateSync(fd, this.frameBytes);
      const segment = this.X.AllocID();
      await promisify((cb) => this.shm!.AttachFd(segment, fd, false, cb));
      if (this.sharedFrames.size >= MAX_SHARED_FRAMES) {
        // The oldest client's frame goes; the agent's own frame stays (its file is gone, so it could not come back).
        const [oldest, oldSegment] = [...this.sharedFrames.entries()].find(([p]) => p !== this.privateFrame?.path) as [string, number];
        this.shm!.Detach(oldSegment);
        this.sharedFrames.delete(oldest);
      }
      this.sharedFrames.set(path, segment);
      return segment;
    } finally {
      fs.closeSync(fd); // the server holds its own mapping
    }
  }

  async capture(): Promise<Frame> {
    if (!this.shm) return this.captureCore();
    if (!this.privateFrame) {
      const path = frameFilePath('agent', String(Date.now()));
      const fd = fs.openSync(path, 'w+', 0o600);
      try {
        fs.ftruncateSync(fd, this.frameBytes);
        await this.attachFrameFile(path);
      } catch (error) {
        fs.closeSync(fd);
        throw error;
      } finally {
        fs.rmSync(path, { force: true }); // anonymous from here: gone when the agent and server let go
      }
      this.privateFrame = { path, fd };
    }
    const segment = this.sharedFrames.get(this.privateFrame.path)!;
    await promisify((cb) => this.shm!.GetImage(this.root, 0, 0, this.width, this.height, 0xffffffff, Z_PIXMAP, segment, 0, cb));
    const data = Buffer.allocUnsafe(this.frameBytes);
    fs.readSync(this.privateFrame.fd, data, 0, data.length, 0);
    return { width: this.width, height: this.height, data };
  }

  /**
   * A small area's pixels, over the core protocol (no shared memory to attach
   * for a few kilobytes), on a connection of their own: asked for on this
   * one, as its damage reports came in, some of the replies never reached
   * their requests and the connection stalled.
   */
  private async readArea(area: DrawnArea): Promise<Buffer> {
    this.areaReader ??= connectX(this.display).then(({ X }) => X);
    const X = await this.areaReader;
    const image = await promisify<{ data: Buffer }>((cb) => X.GetImage(Z_PIXMAP, this.root, area.x, area.y, area.width, area.height, 0xffffffff, cb));
    return image.data;
  }

  private async captureCore(): Promise<Frame> {
    const image = await promisify<{ data: Buffer }>((cb) => this.X.GetImage(Z_PIXMAP, this.root, 0, 0, this.width, this.height, 0xffffffff, cb));
    return { width: this.width, height: this.height, data: image.data };
  }

  async moveTo(x: number, y: number): Promise<void> {
    this.xtest.FakeInput(XTEST.MotionNotify, 0, 0, this.root, Math.round(x), Math.round(y));
    await this.sync();
  }

  /** An XID of this connection: it names the agent as an X client (input-recording.ts leaves its injections out). */
  inputClient(): number {
    return this.X.display.resource_base;
  }

  async pointer(): Promise<{ x: number; y: number }> {
    const at = await promisify<{ rootX: number; rootY: number }>((cb) => this.X.QueryPointer(this.root, cb));
    return { x: at.rootX, y: at.rootY };
  }

  async button(button: MouseButton, pressed: boolean): Promise<void> {
    this.xtest.FakeInput(pressed ? XTEST.ButtonPress : XTEST.ButtonRelease, BUTTONS[button], 0, this.root, 0, 0);
    await this.sync();
  }

  async wheel(direction: ScrollDirection, clicks: number): Promise<void> {
    for (let i = 0; i < clicks; i++) {
      this.xtest.FakeInput(XTEST.ButtonPress, WHEEL[direction], 0, this.root, 0, 0);
      this.xtest.FakeInput(XTEST.ButtonRelease, WHEEL[direction], 0, this.root, 0, 0);
    }
    await this.sync();
  }

  async chord(keys: readonly string[]): Promise<number> {
    const places: KeyPlace[] = [];
    for (const key of keys) places.push(await this.placeOf(keysymFor(key)));
    const needsShift = places.some((p) => p.shifted) && !keys.includes('shift');
    const codes = [...(needsShift ? [this.keyPlaces.get(SHIFT_KEYSYM)!.keycode] : []), ...places.map((p) => p.keycode)];
    for (const code of codes) this.xtest.FakeInput(XTEST.KeyPress, code, 0, this.root, 0, 0);
    for (const code of [...codes].reverse()) this.xtest.FakeInput(XTEST.KeyRelease, code, 0, this.root, 0, 0);
    await this.sync();
    return codes.length;
  }

  async typeText(text: string, delayMs: number): Promise<number> {
    let released = 0;
    for (const char of text) {
      const place = await this.placeOf(keysymForChar(char));
      const codes = place.shifted ? [this.keyPlaces.get(SHIFT_KEYSYM)!.keycode, place.keycode] : [place.keycode];
      for (const code of codes) this.xtest.FakeInput(XTEST.KeyPress, code, 0, this.root, 0, 0);
      for (const code of [...codes].reverse()) this.xtest.FakeInput(XTEST.KeyRelease, code, 0, this.root, 0, 0);
      released += codes.length;
      if (delayMs > 0) await sleep(delayMs);
    }
    await this.sync();
    return released;
  }

  /**
   * Where a keysym lives on the keyboard. A keysym the layout lacks (é, 漢) is
   * bound to a spare keycode first, the way xdotool does it.
   */
  private async placeOf(keysym: number): Promise<KeyPlace> {
    const known = this.keyPlaces.get(keysym);
    if (known) return known;
    if (this.scratchKeycodes.length === 0) throw new Error(`no spare keycode to type keysym 0x${keysym.toString(16)}`);
    const keycode = this.scratchKeycodes[this.nextScratch++ % this.scratchKeycodes.length];
    for (const [sym, place] of this.keyPlaces) if (place.keycode === keycode) this.keyPlaces.delete(sym);
    const row = new Array(this.keysymsPerKeycode).fill(0);
    row[0] = keysym;
    row[1] = keysym;
    this.X.ChangeKeyboardMapping(keycode, this.keysymsPerKeycode, row);
    await this.sync();
    // Clients re-read the keymap when they see MappingNotify; give them a moment.
    await sleep(20);
    const place = { keycode, shifted: false };
    this.keyPlaces.set(keysym, place);
    return place;
  }

  private async atom(name: string): Promise<number> {
    const cached = this.atoms.get(name);
    if (cached !== undefined) return cached;
    const value = await promisify<number>((cb) => this.X.InternAtom(false, name, cb));
    this.atoms.set(name, value);
    return value;
  }

  private async property(window: number, name: string): Promise<{ type: number; data: Buffer }> {
    const atom = await this.atom(name);
    return promisify((cb) => this.X.GetProperty(0, window, atom, 0, 0, 1 << 20, cb));
  }

  private async text(window: number, ...names: string[]): Promise<string> {
    for (const name of names) {
      const prop = await this.property(window, name);
      if (prop.data.length) return prop.data.toString('utf8').replace(/\0+$/, '');
    }
    return '';
  }

  async windows(): Promise<WindowInfo[]> {
    const list = await this.property(this.root, '_NET_CLIENT_LIST');
    const ids: number[] = [];
    for (let i = 0; i + 4 <= list.data.length; i += 4) ids.push(list.data.readUInt32LE(i));
    const result: WindowInfo[] = [];
    for (const id of ids) {
      try {
        const pid = await this.property(id, '_NET_WM_PID');
        result.push({
          id,
          title: await this.text(id, '_NET_WM_NAME', 'WM_NAME'),
          className: (await this.text(id, 'WM_CLASS')).split('\0').filter(Boolean).join(' '),
          pid: pid.data.length >= 4 ? pid.data.readUInt32LE(0) : null,
          instance: await this.instanceOf(id),
        });
      } catch {
        /* the window closed while we looked: skip it */
      }
    }
    return result;
  }

  /**
   * The window's instance number (WindowInfo.instance): read from a property
   * of the window, which X drops with it, or given now. One window at a time,
   * so that two lists taken together cannot give one window two numbers.
   */
  private instanceOf(window: number): Promise<number> {
    const numbered = this.numbering.then(async () => {
      const kept = await this.property(window, INSTANCE_PROPERTY);
      if (kept.data.length >= 4) return kept.data.readUInt32LE(0);
      const instance = nextInstance++;
      this.X.ChangeProperty(PROP_MODE_REPLACE, window, await this.atom(INSTANCE_PROPERTY), CARDINAL, 32, [instance]);
      return instance;
    });
    this.numbering = numbered.catch(() => undefined);
    return numbered;
  }

  private async pidOf(window: number): Promise<number | null> {
    const prop = await this.property(window, '_NET_WM_PID');
    return prop.data.length >= 4 ? prop.data.readUInt32LE(0) : null;
  }

  /**
   * The root's mapped children in X's stacking order, bottom to top. A
   * managed window sits inside its window manager's frame, which is the
   * root's child; the frame gets the pid and title of the client inside it.
   * Menus and tooltips are override-redirect windows straight under the root.
   */
  async stack(): Promise<StackedWindow[]> {
    const queryTree = (window: number) => promisify<{ parent: number; children: number[] }>((cb) => this.X.QueryTree(window, cb));
    const [{ children }, clients] = await Promise.all([queryTree(this.root), this.property(this.root, '_NET_CLIENT_LIST')]);
    const clientByFrame = new Map<number, { pid: number | null; title: string }>();
    await Promise.all(Array.from({ length: clients.data.length >> 2 }, (_, i) => clients.data.readUInt32LE(i * 4)).map(async (client) => {
      try {
        let topLevel = client;
        for (let depth = 0; depth < 8; depth++) {
          const { parent } = await queryTree(topLevel);
          if (parent === this.root || !parent) break;
          topLevel = parent;
        }
        const [pid, title] = await Promise.all([this.pidOf(client), this.text(client, '_NET_WM_NAME', 'WM_NAME')]);
        clientByFrame.set(topLevel, { pid, title });
      } catch {
        /* closed while we looked */
      }
    }));
    const windows = await Promise.all(children.map(async (id): Promise<StackedWindow | null> => {
      try {
        const [attributes, geometry] = await Promise.all([
          promisify<{ mapState: number; klass: number }>((cb) => this.X.GetWindowAttributes(id, cb)),
          promisify<{ xPos: number; yPos: number; width: number; height: number; borderWidth: number }>((cb) => this.X.GetGeometry(id, cb)),
        ]);
        if (attributes.mapState !== VIEWABLE || attributes.klass !== INPUT_OUTPUT) return null;
        const border = geometry.borderWidth * 2;
        const box = { x: geometry.xPos, y: geometry.yPos, width: geometry.width + border, height: geometry.height + border };
        const client = clientByFrame.get(id);
        if (client) return { id, box, ...client, managed: true };
        const [pid, menu] = await Promise.all([this.pidOf(id), this.isMenu(id)]);
        return { id, box, pid, title: '', managed: false, menu };
      } catch {
        return null;
      }
    }));
    return windows.filter((w): w is StackedWindow => w !== null);
  }

  async activate(windowId: number): Promise<void> {
    const activeAtom = await this.atom('_NET_ACTIVE_WINDOW');
    this.X.SendEvent(this.root, false, SUBSTRUCTURE_NOTIFY_AND_REDIRECT, {
      name: 'ClientMessage', format: 32, wid: windowId, message_type: activeAtom, data: [2, 0, 0, 0, 0],
    });
    await this.sync();
  }

  async closeWindow(windowId: number): Promise<void> {
    const closeAtom = await this.atom('_NET_CLOSE_WINDOW');
    // Source 2: a request from a pager or a tool acting for the user, which the window manager honours.
    this.X.SendEvent(this.root, false, SUBSTRUCTURE_NOTIFY_AND_REDIRECT, {
      name: 'ClientMessage', format: 32, wid: windowId, message_type: closeAtom, data: [0, 2, 0, 0, 0],
    });
    await this.sync();
  }

  async focusedWindow(): Promise<number | null> {
    const [{ focus }, check] = await Promise.all([
      promisify<{ focus: number }>((cb) => this.X.GetInputFocus(cb)),
      this.property(this.root, '_NET_SUPPORTING_WM_CHECK'),
    ]);
    // 0 is None and 1 PointerRoot; the window manager parks the focus on its own window when no program has it.
    const parked = check.data.length >= 4 ? check.data.readUInt32LE(0) : 0;
    return focus > 1 && focus !== this.root && focus !== parked ? focus : null;
  }

  async hasFocus(windowId: number): Promise<boolean> {
    let at = await this.focusedWindow();
    for (let depth = 0; at && at !== this.root && depth < 16; depth++) {
      if (at === windowId) return true;
      at = (await promisify<{ parent: number }>((cb) => this.X.QueryTree(at, cb))).parent;
    }
    return false;
  }

  /** Whether a window says (_NET_WM_WINDOW_TYPE) it is of one of these types. */
  private async hasWindowType(windowId: number, names: string[]): Promise<boolean> {
    const [type, ...atoms] = await Promise.all([this.property(windowId, '_NET_WM_WINDOW_TYPE'), ...names.map((name) => this.atom(name))]);
    for (let i = 0; i + 4 <= type.data.length; i += 4) if (atoms.includes(type.data.readUInt32LE(i))) return true;
    return false;
  }

  /** Whether a window says it is a menu: Chromium's list of a `<select>` says _MENU. */
  private isMenu(windowId: number): Promise<boolean> {
    return this.hasWindowType(windowId, MENU_TYPES);
  }

  async isDialog(windowId: number): Promise<boolean> {
    const [dialog, transient] = await Promise.all([this.hasWindowType(windowId, ['_NET_WM_WINDOW_TYPE_DIALOG']), this.property(windowId, 'WM_TRANSIENT_FOR')]);
    return dialog || (transient.data.length >= 4 && transient.data.readUInt32LE(0) !== 0);
  }

  async isActive(windowId: number): Promise<boolean> {
    return (await this.activeWindow()) === windowId;
  }

  async activeWindow(): Promise<number | null> {
    const prop = await this.property(this.root, '_NET_ACTIVE_WINDOW');
    const id = prop.data.length >= 4 ? prop.data.readUInt32LE(0) : 0;
    return id || null;
  }

  async hasWindowManager(): Promise<boolean> {
    return (await this.property(this.root, '_NET_SUPPORTING_WM_CHECK')).data.length >= 4;
  }

  async close(): Promise<void> {
    try {
      for (const segment of this.sharedFrames.values()) this.shm?.Detach(segment);
      if (this.privateFrame) fs.closeSync(this.privateFrame.fd);
      // A display that went first never answers: the agent would end there, its clean-up undone.
      await settledWithin(this.sync(), CLOSE_SYNC_BOUND_MS);
    } catch {
      /* the display may already be gone */
    }
    this.X.terminate();
    void this.areaReader?.then((X) => X.terminate(), () => undefined);
  }
}

/** A connection to the X server at `display`, its errors written to the agent's log. */
function connectX(display: string): Promise<{ X: XClient; info: any }> {
  return new Promise<{ X: XClient; info: any }>((resolve, reject) => {
    const client = x11.createClient({ display }, (err: Error | null, info: any) => {
      if (err) return reject(err);
      info.client.on('error', (error: Error) => process.stderr.write(`glance agent: X error: ${error.message}\n`));
      resolve({ X: info.client, info });
    });
    client.on('error', reject);
  });
}
