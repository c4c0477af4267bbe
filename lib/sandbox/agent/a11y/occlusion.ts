import type { Box } from '../../../types/screen';
import type { StackedWindow } from '../driver';
import { area, centre, contains, intersect, overlapRatio } from './geometry';
import type { RawNode } from './tree';

/**
 * What other windows cover. AT-SPI's SHOWING state ignores overlap between
 * windows, so the X stacking order decides: an element is hidden when its
 * centre lies under a window stacked above the one it belongs to.
 */

/** Below this share of common area a window from the tree and one from X are not the same window. */
const SAME_WINDOW = 0.5;
/** Roles whose content a toolkit may show in a popup window of its own (a combo box's list, a menu). */
const POPUP_CONTENT_ROLES = new Set(['list', 'list box', 'menu', 'popup menu', 'tool tip', 'tree', 'tree table']);

/**
 * The X window (index into `stack`, bottom to top) that shows an
 * accessible window with box `box`, owned by process `pid`; -1 when none
 * does. The X window is the frame around the client, so the boxes differ by
 * the decorations; among equal fits, the owner's own window wins, then the
 * topmost.
 */
export function stackIndexOf(box: Box, pid: number | null, stack: readonly StackedWindow[]): number {
  let best = -1;
  let bestScore = 0;
  stack.forEach((window, index) => {
    const ratio = overlapRatio(box, window.box);
    if (ratio < SAME_WINDOW) return;
    const score = ratio + (pid !== null && window.pid === pid ? 1 : 0);
    if (score >= bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

const topLevel = (node: RawNode): RawNode => {
  let window = node;
  while (window.parent) window = window.parent;
  return window;
};

/** One application's windows placed in the X stack. */
export class Occlusion {
  private readonly indexByWindow = new Map<RawNode, number>();
  /** Stack positions of the application's windows that a top-level window of its tree, with content, stands for. */
  private readonly claimed = new Set<number>();

  constructor(private readonly stack: readonly StackedWindow[], private readonly pid: number | null) {}

  /** Where the node's top-level window sits in the stack; -1 when X shows no such window. */
  private indexOf(node: RawNode): number {
    const window = topLevel(node);
    let index = this.indexByWindow.get(window);
    if (index === undefined) {
      index = window.extents ? stackIndexOf(window.extents, this.pid, this.stack) : -1;
      this.indexByWindow.set(window, index);
    }
    return index;
  }

  /**
   * Notes which X windows the application's tree has windows with content
   * for, so that hostOf() knows which popups they stand for. A window with
   * nothing in it stands for nothing: Chromium has one for a drop-down's
   * popup and keeps the options under the drop-down.
   */
  placeWindows(nodes: readonly RawNode[]): void {
    for (const node of nodes) {
      if (!node.parent) continue;
      const index = this.indexOf(node);
      if (index >= 0) this.claimed.add(index);
    }
  }

  /** A popup of the application's own (a menu, a combo box's list): what lies under it may be its content. */
  private ownPopup(window: StackedWindow): boolean {
    return !window.managed && this.pid !== null && window.pid === this.pid;
  }

  /** The title X has for the node's window, for toolkits that leave the window's accessible name empty. */
  windowTitle(node: RawNode): string {
    const index = this.indexOf(node);
    return index < 0 ? '' : this.stack[index].title;
  }

  /**
   * True when nothing of the node can be seen, nor as a rule of its
   * children: a window above its own covers all of its box, or it is a
   * window X does not show at all (a browser keeps hidden popups of its own
   * that say they are showing). The application's own popups do not count:
   * a toolkit may keep a popup's content under the widget that opened it.
   */
  hidesAll(node: RawNode): boolean {
    if (!node.parent && this.stack.length && this.indexOf(node) < 0) return true;
    const box = node.extents;
    const index = this.indexOf(node);
    if (!box || index < 0) return false;
    return this.stack.slice(index + 1).some((window) => {
      if (this.ownPopup(window)) return false;
      const shared = intersect(box, window.box);
      return shared !== null && area(shared) === area(box);
    });
  }

  /**
   * The stack position of the popup the node is shown in, when its toolkit
   * keeps it in the tree of the widget that opened the popup (Qt does, for
   * a combo box's list, and Chromium for a drop-down's options): an own
   * popup above the node's window that no window of the tree stands for,
   * where a node that is popup content starts. -1 otherwise. Call
   * placeWindows() first.
   */
  hostOf(node: RawNode): number {
    const box = node.extents;
    const index = this.indexOf(node);
    if (!box || index < 0 || !this.isPopupContent(node)) return -1;
    for (let above = this.stack.length - 1; above > index; above--) {
      const window = this.stack[above];
      if (!this.ownPopup(window) || this.claimed.has(above)) continue;
      // Content starts in the popup; its reported box may run past the popup's edge (Qt's list items do).
      if (contains(window.box, box.x, box.y)) return above;
    }
    return -1;
  }

  private isPopupContent(node: RawNode): boolean {
    for (let up: RawNode | null = node; up; up = up.parent) if (POPUP_CONTENT_ROLES.has(up.role)) return true;
    return false;
  }

  /** The box of the window at stack position `index`. */
  boxAt(index: number): Box {
    return this.stack[index].box;
  }

  /** True when a window above stack position `from` (by default the node's own window) covers the centre of `box`. */
  coversCentre(node: RawNode, box: Box, from = this.indexOf(node)): boolean {
    if (from < 0) return false;
    const { x, y } = centre(box);
    return this.stack.slice(from + 1).some((window) => contains(window.box, x, y));
  }
}
