import type { Box } from '../../../types/screen';
import type { A11yTextBox } from '../../../types/a11y';
import { AccessibilityBus, Ref } from './bus';
import { COORDS_SCREEN, IFACE } from './atspi';
import { union } from './geometry';

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
  const copies = copiesIn(String(text), wanted);
  // A text that is the words asked for, split by an embedded element ('<b>1</b> item left'): its whole range.
  if (!copies.length && whole) {
    const end = [...String(text)].length;
    const [x, y, width, height] = await bus.call(ref[0], ref[1], IFACE.text, 'GetRangeExtents', 'iiu', [0, end, COORDS_SCREEN]);
    return width > 0 && height > 0 ? [{ path, text: wanted, start: 0, end, box: { x, y, width, height } }] : [];
  }
  // The first and the last character's boxes, joined: Qt's range extents stay on a text's first line, its characters' do not.
  const charBox = async (offset: number): Promise<Box> => {
    const [x, y, width, height] = await bus.call(ref[0], ref[1], IFACE.text, 'GetCharacterExtents', 'iu', [offset, COORDS_SCREEN]);
    return { x, y, width, height };
  };
  const boxes = await Promise.all(copies.map(async ({ start, end }) => {
    const [first, last] = await Promise.all([charBox(start), charBox(end - 1)]);
    const box = union(first, last);
    return box.width > 0 && box.height > 0 ? { path, text: wanted, start, end, box } : null;
  }));
  const found = boxes.filter((b): b is A11yTextBox => b !== null);
  // Qt's plain-text editors give every line the first line's height on the screen: boxes that
  // put copies on different lines at one height are no evidence, and the pixels are asked instead.
  return consistentWithLines(String(text), found) ? found : [];
}

/** False when two copies with a line break between them are given the same top. */
export function consistentWithLines(text: string, copies: A11yTextBox[]): boolean {
  const chars = [...text];
  for (let i = 1; i < copies.length; i++) {
    const between = chars.slice(copies[i - 1].end, copies[i].start).join('');
    if (/[\n\u2029\u2028]/.test(between) && copies[i].box.y === copies[i - 1].box.y) return false;
  }
  return true;
}
