import fs from 'fs';
import type * as Nut from '@nut-tree-fork/nut-js';
import type { Driver, Frame, MouseButton, ScrollDirection, StackedWindow, WindowInfo } from './driver';

/** Glance's canonical key names (lib/sandbox/keys.ts) as nut-js keys. */
const NAMED: Record<string, keyof typeof Nut.Key> = {
  ctrl: 'LeftControl', shift: 'LeftShift', alt: 'LeftAlt', meta: 'LeftSuper',
  enter: 'Enter', tab: 'Tab', escape: 'Escape', backspace: 'Backspace', delete: 'Delete', insert: 'Insert',
  space: 'Space', up: 'Up', down: 'Down', left: 'Left', right: 'Right',
  home: 'Home', end: 'End', pageup: 'PageUp', pagedown: 'PageDown',
  capslock: 'CapsLock', printscreen: 'Print', menu: 'Menu',
};
for (let n = 1; n <= 12; n++) NAMED[`f${n}`] = `F${n}` as keyof typeof Nut.Key;
/** Windows this small are a toolkit's helpers (Chromium's 10x10 group leader), never an application's. */
const MIN_WINDOW_PX = 16;
/** Characters that have a key of their own on a US layout. */
const CHARACTER_KEYS: Record<string, keyof typeof Nut.Key> = {
  '-': 'Minus', '=': 'Equal', '[': 'LeftBracket', ']': 'RightBracket', '\\': 'Backslash', ';': 'Semicolon',
  "'": 'Quote', ',': 'Comma', '.': 'Period', '/': 'Slash', '`': 'Grave',
};

/**
 * The desktop through nut-js, whose native parts ship inside its npm
 * packages for Windows, macOS and X11: the driver of an agent on a machine
 * that is not an X11 sandbox. It sees less than the X11 driver: windows
 * carry no process, class or type, the stacking order is not known (the
 * active window counts as the top one), and the screen's changes are not
 * reported (waiters look at the screen instead).
 */
export class NutDriver implements Driver {
  readonly changes = null;

  private constructor(private readonly nut: typeof Nut, readonly width: number, readonly height: number) {}

  static async connect(): Promise<NutDriver> {
    // Loaded here: only an agent that asks for this driver needs its native parts.
    const nut = require('@nut-tree-fork/nut-js') as typeof Nut;
    // Input goes as fast as the agent sends it: the agent paces it (input-pacer.ts).
    nut.mouse.config.autoDelayMs = 0;
    nut.keyboard.config.autoDelayMs = 0;
    return new NutDriver(nut, await nut.screen.width(), await nut.screen.height());
  }

  async capture(): Promise<Frame> {
    const image = await this.nut.screen.grab();
    // Frames are blue-green-red-unused; nut-js grabs in that order on every platform (BGR), but says so.
    const data = image.colorMode === this.nut.ColorMode.BGR ? image.data : (await image.toBGR()).data;
    if (image.width !== this.width || image.height !== this.height) {
      throw new Error(`the screen grabbed is ${image.width}x${image.height}, not the ${this.width}x${this.height} the agent serves (a display scale other than 100%?)`);
    }
    return { width: image.width, height: image.height, data };
  }

  async captureToFile(path: string): Promise<void> {
    fs.writeFileSync(path, (await this.capture()).data);
  }

  async moveTo(x: number, y: number): Promise<void> {
    await this.nut.mouse.setPosition(new this.nut.Point(Math.round(x), Math.round(y)));
  }

  async pointer(): Promise<{ x: number; y: number }> {
    const at = await this.nut.mouse.getPosition();
    return { x: at.x, y: at.y };
  }

  async button(button: MouseButton, pressed: boolean): Promise<void> {
    const which = { left: this.nut.Button.LEFT, middle: this.nut.Button.MIDDLE, right: this.nut.Button.RIGHT }[button];
    if (pressed) await this.nut.mouse.pressButton(which);
    else await this.nut.mouse.releaseButton(which);
  }

  async wheel(direction: ScrollDirection, clicks: number): Promise<void> {
    const { mouse } = this.nut;
    const scroll = { up: mouse.scrollUp, down: mouse.scrollDown, left: mouse.scrollLeft, right: mouse.scrollRight }[direction];
    await scroll.call(mouse, clicks);
  }

  async chord(keys: readonly string[]): Promise<number> {
    const { keyboard } = this.nut;
    // A single character with no modifier is typed as itself: any character, on any layout.
    if (keys.length === 1 && !NAMED[keys[0]]) {
      await keyboard.type(keys[0]);
      return 1;
    }
    // One key a call: given several, nut-js takes all but the last as modifiers and releases them its own way.
    const codes = keys.map((key) => this.keyFor(key));
    for (const code of codes) await keyboard.pressKey(code);
    for (const code of [...codes].reverse()) await keyboard.releaseKey(code);
    return codes.length;
  }

  async typeText(text: string, delayMs: number): Promise<number> {
    const { keyboard } = this.nut;
    keyboard.config.autoDelayMs = delayMs;
    try {
      await keyboard.type(text);
    } finally {
      keyboard.config.autoDelayMs = 0;
    }
    return [...text].length;
  }

  async windows(): Promise<WindowInfo[]> {
    return (await this.shown()).windows.map(({ info }) => info);
  }

  /**
   * The top-level windows on the screen, the active one last (the nearest
   * this driver knows to the top of the stack). Windows off the screen or a
   * few pixels big (a toolkit's helpers) are left out: on X11, focusing one
   * that is not viewable is an X error, which ends the process that asked.
   */
  private async shown(): Promise<{ windows: { info: WindowInfo; region: Nut.Region }[]; active: number | null }> {
    const windows = this.windowProvider();
    const listed = await Promise.all((await windows.getWindows()).map(async (id) => ({ id, region: await windows.getWindowRegion(id).catch(() => null) })));
    const onScreen = listed.filter((w): w is { id: number; region: Nut.Region } => w.region !== null && this.onScreen(w.region));
    const shown = await Promise.all(onScreen.map(async ({ id, region }) => ({
      region, info: { id, title: await windows.getWindowTitle(id).catch(() => ''), className: '', pid: null },
    })));
    const active = await this.activeAmong(shown);
    return { windows: shown.sort((a, b) => Number(a.info.id === active) - Number(b.info.id === active)), active };
  }

  /**
   * The active window, as one of the listed ones. Under an X11 window
   * manager that frames windows, the list holds the frames and the active
   * window is the application's inside one: the smallest frame around it.
   */
  private async activeAmong(shown: { info: WindowInfo; region: Nut.Region }[]): Promise<number | null> {
    const windows = this.windowProvider();
    const id = await windows.getActiveWindow().catch(() => 0);
    if (!id) return null;
    if (shown.some((w) => w.info.id === id)) return id;
    const region = await windows.getWindowRegion(id).catch(() => null);
    return (region && this.frameAround(region, shown)) ?? id;
  }

  /** The smallest listed window around a region's centre. */
  private frameAround(region: Nut.Region, shown: { info: WindowInfo; region: Nut.Region }[]): number | null {
    const x = region.left + region.width / 2;
    const y = region.top + region.height / 2;
    const around = shown.filter((w) => x >= w.region.left && y >= w.region.top && x < w.region.left + w.region.width && y < w.region.top + w.region.height);
    around.sort((a, b) => a.region.width * a.region.height - b.region.width * b.region.height);
    return around[0]?.info.id ?? null;
  }

  /** Focuses a window on the screen: a listed one, or one a window manager framed since it was listed. */
  async activate(windowId: number): Promise<void> {
    const region = await this.windowProvider().getWindowRegion(windowId).catch(() => null);
    if (!region || !this.onScreen(region)) throw new Error(`no window ${windowId} on the screen`);
    await this.windowProvider().focusWindow(windowId);
  }

  /** Whether a window shows on the screen, bigger than a toolkit's helper. */
  private onScreen(region: Nut.Region): boolean {
    return region.width > MIN_WINDOW_PX && region.height > MIN_WINDOW_PX
      && region.left < this.width && region.top < this.height && region.left + region.width > 0 && region.top + region.height > 0;
  }

  async activeWindow(): Promise<number | null> {
    return (await this.shown()).active;
  }

  /** Asks the window to close as a person does: Alt+F4 on it (the program may ask to save first). */
  async closeWindow(windowId: number): Promise<void> {
    await this.activate(windowId);
    await this.chord(['alt', 'f4']);
  }

  /** The active window: the keyboard goes there (nut-js knows no finer focus). */
  focusedWindow(): Promise<number | null> {
    return this.activeWindow();
  }

  /** The active window is this one, or (a window manager framed it since it was listed) the frame around it. */
  async isActive(windowId: number): Promise<boolean> {
    const { windows, active } = await this.shown();
    if (active === windowId) return true;
    const region = await this.windowProvider().getWindowRegion(windowId).catch(() => null);
    return active !== null && region !== null && this.frameAround(region, windows) === active;
  }

  hasFocus(windowId: number): Promise<boolean> {
    return this.isActive(windowId);
  }

  /** Not known through nut-js: every window counts as an application's. */
  async isDialog(): Promise<boolean> {
    return false;
  }

  async stack(): Promise<StackedWindow[]> {
    return (await this.shown()).windows.map(({ info, region }) => ({
      id: info.id, box: { x: region.left, y: region.top, width: region.width, height: region.height }, pid: null, title: info.title, managed: true,
    }));
  }

  /** A desktop that nut-js reaches always has its windows managed (Windows, macOS); on X11 the agent's display is assumed to run one. */
  async hasWindowManager(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  /** nut-js's window calls by handle: its Window objects cannot name a window that a window manager framed later. */
  private windowProvider() {
    return this.nut.providerRegistry.getWindow();
  }

  private keyFor(key: string): Nut.Key {
    const { Key } = this.nut;
    const named = NAMED[key] ?? CHARACTER_KEYS[key];
    if (named) return Key[named];
    if (/^[a-z]$/i.test(key)) return Key[key.toUpperCase() as keyof typeof Nut.Key];
    if (/^[0-9]$/.test(key)) return Key[`Num${key}` as keyof typeof Nut.Key];
    throw new Error(`the key '${key}' has no key of its own to hold in a chord on this desktop; type it instead`);
  }
}

