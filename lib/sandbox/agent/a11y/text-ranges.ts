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
  if (!found.length || !breakBefore(String(text), found[found.length - 1].start)) return found;
  const shift = await paragraphShift(String(text), charBox, () => nodeBox(bus, ref));
  // Where the paragraphs' places cannot be worked out, the boxes are no evidence: the pixels are asked instead.
  return shift === null ? [] : found.map((copy) => ({ ...copy, box: { ...copy.box, y: copy.box.y + shift(copy.start) } }));
}

/** True when a paragraph break comes before `offset` (in code points). */
function breakBefore(text: string, offset: number): boolean {
  return PARAGRAPH_BREAK.test([...text].slice(0, offset).join(''));
}

const PARAGRAPH_BREAK = /[\n\u2028\u2029]/;

async function nodeBox(bus: AccessibilityBus, ref: Ref): Promise<Box> {
  const [[x, y, width, height]] = await bus.call(ref[0], ref[1], IFACE.component, 'GetExtents', 'u', [COORDS_SCREEN]);
  return { x, y, width, height };
}

/**
 * How far down a character's box must move to stand where it is drawn: 0
 * where the toolkit's boxes are right, as GTK's and Chromium's are. Qt's
 * plain-text editors (QPlainTextEdit) give each character's top relative to
 * its own paragraph: every paragraph's first line is reported on the text's
 * first line. There, each paragraph's true place is worked out from
 * the heights of the paragraphs above it (their last characters' boxes). That
 * holds only while the whole text fits in the node, so that nothing can be
 * scrolled away; otherwise the answer is null.
 */
export async function paragraphShift(text: string, charBox: (offset: number) => Promise<Box>, node: () => Promise<Box>): Promise<((offset: number) => number) | null> {
  const asGiven = (): number => 0;
  const paragraphs = paragraphsOf(text);
  if (paragraphs.length < 2) return asGiven;
  const [first, second] = await Promise.all([charBox(0), charBox(paragraphs[1].start)]);
  if (second.y !== first.y || first.height <= 0) return asGiven;
  const box = await node();
  // Each paragraph is at least a line high: more paragraphs than the node holds lines, and some may be scrolled away.
  if (paragraphs.length * first.height > box.height) return null;
  const heights = await Promise.all(paragraphs.map(async ({ start, end }) => {
    if (end === start) return first.height;
    const last = await charBox(end - 1);
    return last.y + last.height - first.y;
  }));
  const tops: number[] = [];
  let top = 0;
  for (const height of heights) {
    tops.push(top);
    top += height;
  }
  if (first.y + top > box.y + box.height) return null;
  return (offset) => {
    let index = paragraphs.length - 1;
    while (index > 0 && paragraphs[index].start > offset) index--;
    return tops[index];
  };
}

/** The paragraphs of a text as code-point ranges, their breaks left out. */
export function paragraphsOf(text: string): { start: number; end: number }[] {
  const chars = [...text];
  const paragraphs: { start: number; end: number }[] = [];
  let start = 0;
  chars.forEach((char, i) => {
    if (!PARAGRAPH_BREAK.test(char)) return;
    paragraphs.push({ start, end: i });
    start = i + 1;
  });
  paragraphs.push({ start, end: chars.length });
  return paragraphs;
}
