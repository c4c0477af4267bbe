/**
 * What the agent needs from a desktop. The X11 driver implements it today; a
 * Windows driver can implement the same surface later.
 */

/** One captured screen: 4 bytes a pixel, blue-green-red-unused (X11 ZPixmap order). */
export interface Frame {
  width: number;
  height: number;
  data: Buffer;
}

import type { Box } from '../../types/screen';
import type { ScreenChanges } from './screen-changes';

export type MouseButton = 'left' | 'middle' | 'right';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface WindowInfo {
  id: number;
  title: string;
  className: string;
  pid: number | null;
  /**
   * A number this window keeps for its life, where the driver can give one:
   * X gives a closed window's id to the next window of a program that starts
   * again, and Tk sets no _NET_WM_PID to tell the two apart.
   */
  instance?: number;
}

/** A window as the screen stacks it. */
export interface StackedWindow {
  id: number;
  /** On the screen, with its border and window-manager frame. */
  box: Box;
  /** The process that owns it, when the window says (_NET_WM_PID). */
  pid: number | null;
  /** Its title; '' for menus and tooltips. */
  title: string;
  /** True for a window the window manager frames (an application's window); false for menus, tooltips and other popups. */
  managed: boolean;
  /** An open menu (a menu bar's, a context menu, a `<select>`'s list), which holds the pointer while it is open; unknown counts as not. */
  menu?: boolean;
}

export interface Driver {
  readonly width: number;
  readonly height: number;
  /** The screen's changes as the desktop reports them; null where it does not (waiters then look at the screen). */
  readonly changes: ScreenChanges | null;
  capture(): Promise<Frame>;
  /** Captures into a frame file on this machine (the shared-memory hot path for local clients). */
  captureToFile(path: string): Promise<void>;
  moveTo(x: number, y: number): Promise<void>;
  /** Where the pointer is on the screen now. */
  pointer(): Promise<{ x: number; y: number }>;
  button(button: MouseButton, pressed: boolean): Promise<void>;
  wheel(direction: ScrollDirection, clicks: number): Promise<void>;
  /** Presses the canonical key names in order, then releases them in reverse; resolves to how many keys it released. */
  chord(keys: readonly string[]): Promise<number>;
  /** Types text character by character, `delayMs` apart; resolves to how many keys it released. */
  typeText(text: string, delayMs: number): Promise<number>;
  windows(): Promise<WindowInfo[]>;
  activate(windowId: number): Promise<void>;
  activeWindow(): Promise<number | null>;
  /** Whether this window is the active one (a driver that sees window-manager frames counts the frame around it too). */
  isActive(windowId: number): Promise<boolean>;
  /** Asks the window manager to close the window, as its close button does (the program may ask to save first). */
  closeWindow(windowId: number): Promise<void>;
  /** The window that has the keyboard focus; null when none has (no window, the root, or the window manager's own). */
  focusedWindow(): Promise<number | null>;
  /** Whether `windowId` or a window inside it has the keyboard focus. */
  hasFocus(windowId: number): Promise<boolean>;
  /** Whether the window is a dialog (its type says so, or it is transient for another window). */
  isDialog(windowId: number): Promise<boolean>;
  /** The windows on the screen now, bottom to top: what covers what. */
  stack(): Promise<StackedWindow[]>;
  /** True once a window manager runs (window queries and focus need one). */
  hasWindowManager(): Promise<boolean>;
  close(): Promise<void>;
}
