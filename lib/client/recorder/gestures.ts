import type { RecordedInput } from '../../sandbox/agent/input-recording';

/**
 * Turns the input a person gave the sandbox, as the agent recorded it at the
 * X server (presses, releases and motion, in the server's order), into the
 * gestures the step library can run: clicks (single, double, right), drags,
 * typed text, key presses and chords, and scrolls.
 *
 * A click is given at once; a second one soon after at the same place comes
 * as a double-click that stands for both. Typed text stays open until
 * something else happens (the field is left), so that one field's keystrokes
 * become one step. A pointer held still (a rest) is given when the next input
 * ends it: the recorder makes it a hover where the rest made text appear.
 */

/** One recorded input, as the agent's `/record/events` gives it. */
export type RawInput = RecordedInput;

export interface Point { x: number; y: number }

export type Gesture =
  /** With `count: 2`, the click just given was the first of a double-click: this one stands for both. */
  | { kind: 'click'; at: Point; button: 'left' | 'right' | 'middle'; count: 1 | 2; modifiers: string[]; seq: number; time: number }
  | { kind: 'drag'; from: Point; to: Point; seq: number; time: number }
  | { kind: 'type'; text: string; seq: number; time: number }
  | { kind: 'press'; keys: string; seq: number; time: number }
  | { kind: 'scroll'; direction: 'up' | 'down' | 'left' | 'right'; notches: number; at: Point; seq: number; time: number }
  /** The pointer held still at `at` from `seq` until the input `endSeq`, with no button held and nothing typed: perhaps a hover. */
  | { kind: 'rest'; at: Point; seq: number; time: number; endSeq: number };

/** A second press within this time, and this near, makes a double-click (GTK's and Chromium's defaults are 400 ms). */
export const DOUBLE_CLICK_MS = 400;
const DOUBLE_CLICK_SLOP = 4;
/** Farther than this between press and release is a drag, not a click. */
const DRAG_DISTANCE = 8;
/** A pointer still this long is resting (a tooltip or a hover menu shows after about half a second). */
export const REST_MS = 700;

const SHIFT = 1;
const CONTROL = 4;
const ALT = 8;
const SUPER = 64;

/** Keysyms of the modifier keys themselves: held, never typed. */
const MODIFIER_KEYSYMS = new Set([0xffe1, 0xffe2, 0xffe3, 0xffe4, 0xffe5, 0xffe7, 0xffe8, 0xffe9, 0xffea, 0xffeb, 0xffec, 0xfe03]);

/** Names of the keys the step library presses by name (lib/sandbox/keys.ts). */
const KEY_NAMES: Record<number, string> = {
  0xff0d: 'Enter', 0xff8d: 'Enter', 0xff09: 'Tab', 0xfe20: 'Tab', 0xff1b: 'Escape', 0xff08: 'Backspace', 0xffff: 'Delete', 0xff63: 'Insert',
  0xff52: 'Up', 0xff54: 'Down', 0xff51: 'Left', 0xff53: 'Right', 0xff50: 'Home', 0xff57: 'End', 0xff55: 'PageUp', 0xff56: 'PageDown',
  0xff67: 'Menu', 0x20: 'Space',
};
for (let n = 1; n <= 12; n++) KEY_NAMES[0xffbe + n - 1] = `F${n}`;

const WHEEL: Record<number, 'up' | 'down' | 'left' | 'right'> = { 4: 'up', 5: 'down', 6: 'left', 7: 'right' };
const BUTTONS: Record<number, 'left' | 'middle' | 'right'> = { 1: 'left', 2: 'middle', 3: 'right' };

/** The character a keysym types, or null for a key that types none. */
export function typedChar(keysym: number): string | null {
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) return String.fromCharCode(keysym);
  if (keysym >= 0x01000100 && keysym <= 0x0110ffff) return String.fromCodePoint(keysym - 0x01000000);
  return null;
}

function keyName(keysym: number): string | null {
  if (KEY_NAMES[keysym]) return KEY_NAMES[keysym];
  const char = typedChar(keysym);
  return char === null ? null : char.toLowerCase();
}

function heldModifiers(state: number): string[] {
  return [[CONTROL, 'ctrl'], [ALT, 'alt'], [SUPER, 'meta'], [SHIFT, 'shift']].filter(([bit]) => state & (bit as number)).map(([, name]) => name as string);
}

export class GestureReader {
  private readonly ready: Gesture[] = [];
  /** The last left click, while a second one could still make it a double-click. */
  private lastClick: Extract<Gesture, { kind: 'click' }> | null = null;
  /** The button held down, with where and when it went down. */
  private down: { button: number; at: Point; seq: number; time: number; state: number } | null = null;
  /** Text typed since the last other gesture. */
  private typing: { text: string; seq: number; time: number } | null = null;
  /** A scroll under way: further notches the same way add up. */
  private scrolling: Extract<Gesture, { kind: 'scroll' }> | null = null;
  /** Where the pointer last moved to, with no button held: a rest begins there. */
  private moved: { at: Point; seq: number; time: number } | null = null;

  /** Reads the next inputs, in the server's order. */
  push(inputs: readonly RawInput[]): void {
    for (const input of inputs) {
      this.restEndedBy(input);
      if (input.kind === 'button') this.button(input);
      else if (input.kind === 'key' && input.pressed) this.key(input);
    }
  }

  /** The gestures complete so far. Typing and scrolling stay open until something else happens (see flush). */
  take(): Gesture[] {
    return this.ready.splice(0);
  }

  /** Whether something is open: a held button, text being typed, a scroll. */
  get open(): boolean {
    return !!(this.down || this.typing || this.scrolling);
  }

  /** Input has paused: a scroll is complete (typing stays open until the field is left). */
  pause(): Gesture[] {
    this.endScroll();
    return this.ready.splice(0);
  }

  /** Ends everything open (the recording stops): typed text and scrolls are complete. */
  flush(): Gesture[] {
    this.endTyping();
    this.endScroll();
    return this.ready.splice(0);
  }

  private button(input: RawInput): void {
    const wheel = WHEEL[input.detail];
    if (wheel) {
      if (!input.pressed) return;
      if (this.scrolling && this.scrolling.direction === wheel) {
        this.scrolling.notches++;
        return;
      }
      this.lastClick = null;
      this.endOthers('scroll');
      this.endScroll(); // the other way: a scroll of its own
      this.scrolling = { kind: 'scroll', direction: wheel, notches: 1, at: { x: input.x, y: input.y }, seq: input.seq, time: input.time };
      return;
    }
    const button = BUTTONS[input.detail];
    if (!button) return;
    if (input.pressed) {
      this.down = { button: input.detail, at: { x: input.x, y: input.y }, seq: input.seq, time: input.time, state: input.state };
      return;
    }
    const down = this.down;
    this.down = null;
    if (!down || down.button !== input.detail) return;
    const moved = Math.hypot(input.x - down.at.x, input.y - down.at.y);
    if (moved > DRAG_DISTANCE && button === 'left') {
      this.lastClick = null;
      this.endOthers('drag');
      this.ready.push({ kind: 'drag', from: down.at, to: { x: input.x, y: input.y }, seq: down.seq, time: down.time });
      return;
    }
    const first = this.lastClick;
    this.lastClick = null;
    this.endOthers('click');
    const modifiers = heldModifiers(down.state).filter((m) => m !== 'shift');
    if (first && button === 'left' && down.time - first.time < DOUBLE_CLICK_MS && Math.hypot(down.at.x - first.at.x, down.at.y - first.at.y) <= DOUBLE_CLICK_SLOP) {
      this.ready.push({ ...first, count: 2, seq: down.seq, time: down.time });
      return;
    }
    const click: Extract<Gesture, { kind: 'click' }> = { kind: 'click', at: down.at, button, count: 1, modifiers, seq: down.seq, time: down.time };
    this.ready.push(click);
    // Only a left click can become a double-click.
    if (button === 'left') this.lastClick = click;
  }

  private key(input: RawInput): void {
    if (MODIFIER_KEYSYMS.has(input.keysym)) return;
    this.lastClick = null;
    const modifiers = heldModifiers(input.state);
    const chord = modifiers.some((m) => m !== 'shift');
    const char = typedChar(input.keysym);
    if (!chord && char !== null) {
      this.endOthers('type');
      this.typing ??= { text: '', seq: input.seq, time: input.time };
      this.typing.text += char;
      return;
    }
    if (!chord && input.keysym === 0xff08 && this.typing?.text) {
      // Backspace inside the text being typed mends it, as the field shows it.
      this.typing.text = [...this.typing.text].slice(0, -1).join('');
      return;
    }
    const name = keyName(input.keysym);
    if (name === null) return;
    this.endOthers('press');
    // Shift is part of the character for printable keys; it counts with named keys (shift+Tab).
    const held = char !== null ? modifiers.filter((m) => m !== 'shift') : modifiers;
    const keys = [...held, name].join('+');
    this.ready.push({ kind: 'press', keys, seq: input.seq, time: input.time });
  }

  /**
   * The pointer moved, then held still for REST_MS before this input: a
   * rest, unless it only led to a click where it rested (the click says it)
   * or text was being typed or a button held.
   */
  private restEndedBy(input: RawInput): void {
    const moved = this.moved;
    this.moved = input.kind === 'motion' && !this.down ? { at: { x: input.x, y: input.y }, seq: input.seq, time: input.time } : null;
    if (!moved || this.down || this.typing || this.scrolling || input.time - moved.time < REST_MS) return;
    const clickedThere = input.kind === 'button' && input.pressed && Math.hypot(input.x - moved.at.x, input.y - moved.at.y) <= DRAG_DISTANCE;
    if (!clickedThere) this.ready.push({ kind: 'rest', at: moved.at, seq: moved.seq, time: moved.time, endSeq: input.seq });
  }

  /** Something else happens: what was open is complete, but for the gesture of the same kind still going. */
  private endOthers(kind: Gesture['kind']): void {
    if (kind !== 'type') this.endTyping();
    if (kind !== 'scroll') this.endScroll();
  }

  private endTyping(): void {
    if (this.typing?.text) this.ready.push({ kind: 'type', ...this.typing });
    this.typing = null;
  }

  private endScroll(): void {
    if (this.scrolling) this.ready.push(this.scrolling);
    this.scrolling = null;
  }
}
