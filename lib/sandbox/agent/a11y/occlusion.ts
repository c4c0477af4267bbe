import type { Box } from '../../../types/screen';
import type { StackedWindow } from '../driver';
import { centre, contains, intersect, area, overlapRatio } from './geometry';
import type { RawNode } from './tree';

/**
 * What other windows cover. AT-SPI's SHOWING state ignores overlap between
 * windows, so the X stacking order decides: an element is hidden when its
 * centre lies under a window stacked above the one it belongs to.
 */

/** Below this share of common area a window from the tree and one from X are not the same window. */
const SAME_WINDOW = 0.5;

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

/** One application's windows placed in the X stack. */
export class Occlusion {
  private readonly indexByWindow = new Map<RawNode, number>();

  constructor(private readonly stack: readonly StackedWindow[], private readonly pid: number | null) {}

  /** Where the node's top-level window sits in the stack; -1 when X shows no such window. */
  private indexOf(node: RawNode): number {
    let window = node;
    while (window.parent) window = window.parent;
    let index = this.indexByWindow.get(window);
    if (index === undefined) {
      index = window.extents ? stackIndexOf(window.extents, this.pid, this.stack) : -1;
      this.indexByWindow.set(window, index);
    }
    return index;
  }

  /** The title X has for the node's window, for toolkits that leave the window's accessible name empty. */
  windowTitle(node: RawNode): string {
    const index = this.indexOf(node);
    return index < 0 ? '' : this.stack[index].title;
  }

  private above(node: RawNode): readonly StackedWindow[] {
    const index = this.indexOf(node);
    return index < 0 ? [] : this.stack.slice(index + 1);
  }

  /**
   * True when nothing of the node can be seen, nor as a rule of its
   * children: a window above its own covers all of its box, or it is a
   * window X does not show at all (a browser keeps hidden popups of its own
   * that say they are showing).
   */
  hidesAll(node: RawNode): boolean {
    if (!node.parent && this.stack.length && this.indexOf(node) < 0) return true;
    const box = node.extents;
    if (!box) return false;
    return this.above(node).some((window) => {
      const shared = intersect(box, window.box);
      return shared !== null && area(shared) === area(box);
    });
  }

  /** True when a window above the node's own covers the centre of `box`. */
  coversCentre(node: RawNode, box: Box): boolean {
    const { x, y } = centre(box);
    return this.above(node).some((window) => contains(window.box, x, y));
  }
}
