import type { Box } from '../../../types/screen';
import type { A11yTextBox } from '../../../types/a11y';
import { AccessibilityBus, Ref } from './bus';
import { COORDS_SCREEN, IFACE } from './atspi';

/**
 * Where a text stands inside a node's text, through AT-SPI's Text interface:
 * editors, text areas, documents and terminals publish their whole text as
 * one node, so "the second 'hotfix'" is a range of characters in it, and its
 * box is that range's extents. A heading or a table cell wider than its words
 * gives the words' own box the same way, for a click on the text itself.
 */

/** At most this many copies in one node: more is a search, not a find. */
export const MAX_COPIES_PER_NODE = 50;

/** The text as a pattern: case folded, any run of white space matching any other, whole words at its word ends. */
export function textPattern(wanted: string): RegExp {
  const words = wanted.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const start = /^[\p{L}\p{N}]/u.test(wanted.trim()) ? '(?<![\\p{L}\\p{N}])' : '';
  const end = /[\p{L}\p{N}]$/u.test(wanted.trim()) ? '(?![\\p{L}\\p{N}])' : '';
  return new RegExp(`${start}${words.join('\\s+')}${end}`, 'giu');
}

/** The copies of `wanted` in `text`, as AT-SPI's character offsets (code points, not UTF-16 units). */
export function copiesIn(text: string, wanted: string, max = MAX_COPIES_PER_NODE): { start: number; end: number }[] {
  const copies: { start: number; end: number }[] = [];
  for (const match of text.matchAll(textPattern(wanted))) {
    const start = [...text.slice(0, match.index)].length;
    copies.push({ start, end: start + [...match[0]].length });
    if (copies.length >= max) break;
  }
  return copies;
}

/** Each copy of `wanted` in the node's text with its box on the screen; none where the node has no Text interface. */
export async function textBoxesOf(bus: AccessibilityBus, path: string, ref: Ref, wanted: string, whole = false): Promise<A11yTextBox[]> {
  const [text] = await bus.call(ref[0], ref[1], IFACE.text, 'GetText', 'ii', [0, -1]);
  let copies = copiesIn(String(text), wanted);
  // A text that is the words asked for, split by an embedded element ('<b>1</b> item left'): its whole range.
  if (!copies.length && whole) copies = [{ start: 0, end: [...String(text)].length }];
  const boxes = await Promise.all(copies.map(async ({ start, end }) => {
    const [x, y, width, height] = await bus.call(ref[0], ref[1], IFACE.text, 'GetRangeExtents', 'iiu', [start, end, COORDS_SCREEN]);
    const box: Box = { x, y, width, height };
    return width > 0 && height > 0 ? { path, text: wanted, start, end, box } : null;
  }));
  return boxes.filter((b): b is A11yTextBox => b !== null);
}
