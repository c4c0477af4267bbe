import type { A11yNode } from '../types/a11y';
import type { Box, Screen } from '../types/screen';
import type { DescribeRequest, ElementDescription } from '../types/describe';
import { isControl, isField, isTextRole, looksLikeWidgetId, roleWord } from '../locate/a11y/roles';
import { centerX, centerY, contains, distanceTo, pad, right } from '../locate/geometry';
import { holdsRelation } from '../locate/relations';
import { inQuotes } from '../util/quotes';

/**
 * Describes the element at a point of a screen the way a person would, and
 * keeps only words that find it again: each candidate description goes
 * through the same find as a test run, on the same screen and tree, and is
 * kept only when it lands on the element touched. Candidates come fewest
 * words first: the role and shown name or label, then the words of a
 * container (the row, the label beside it), then an ordinal. Where there is
 * no tree, the text read under the point; where nothing can be read, the
 * point itself, flagged.
 */

/** What describing needs from the find machinery, on the view being described. */
export interface DescribeTools {
  screen: Screen;
  nodes: A11yNode[];
  /** The box a description finds on the view, or null. */
  refind(description: string): Promise<Box | null>;
  /** Every box a description finds on the view, in reading order. */
  refindAll(description: string): Promise<Box[]>;
  /** The phrases read on the pixels within `radius` px of the point, nearest first. */
  textsNear(x: number, y: number, radius: number): Promise<{ text: string; box: Box }[]>;
  /** What a vision model calls the element in a box that shows no words (`the gear icon`); null without a model. */
  nameAt(box: Box): Promise<string | null>;
}

/** How far from its label a field may stand, and how near a point must be to text to be on it, px. */
const LABEL_REACH = 320;
const UNDER_REACH = 12;
/** How far a label's words may stand from the box they name, px. */
const BESIDE = 40;
/** Where the tree gives no box for what was clicked, the model is shown this much around the point, px; a bigger box is a container, not an icon. */
const ICON_SIDE = 32;
const ICON_MAX = 200;

/** A label left of the point, on its line. */
const leftOnRow = (box: Box, point: { x: number; y: number }) => box.x + box.width <= point.x && Math.abs(box.y + box.height / 2 - point.y) <= Math.max(box.height, 16);
/** A label just above the point (a form with labels over its fields). */
const justAbove = (box: Box, point: { x: number; y: number }) => box.y + box.height <= point.y && point.y - (box.y + box.height) <= 40 && point.x >= box.x - 40 && point.x <= box.x + box.width + 200;

const ORDINAL_WORDS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
/** Names longer than this are sentences, not names: a description quotes their start only through OCR's phrase. */
const MAX_NAME = 60;

/** Whether a name is words a person reads and could write again tomorrow: not an id, a count, a time or a date. */
export function usableName(name: string | null | undefined): name is string {
  if (!name) return false;
  const text = name.trim();
  if (!text || text.length > MAX_NAME || !/\p{L}/u.test(text)) return false;
  if (looksLikeWidgetId(text)) return false;
  if (/\b\d{1,2}:\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b[0-9a-f]{8,}\b/i.test(text)) return false;
  return true;
}

const area = (box: Box) => box.width * box.height;

/** Whether a box found again is the element's: the same box, or inside it (the words of a heading), or around it closely. */
export function sameElement(found: Box, target: Box): boolean {
  return contains(pad(target, 2), centerX(found), centerY(found)) && contains(pad(found, 2), centerX(target), centerY(target));
}

/** The tree's element a gesture at the point means (see DescribeRequest.intent), or null. */
export function elementAt(nodes: readonly A11yNode[], x: number, y: number, intent: DescribeRequest['intent']): A11yNode | null {
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const hits = nodes.filter((n) => contains(n.box, x, y) && (isControl(n) || isTextRole(n) || roleWord(n) !== null)).sort((a, b) => area(a.box) - area(b.box));
  if (intent === 'field') {
    const under = hits.find(isField) ?? labelled(hits, nodes);
    if (under) return under;
    return nodes.find((n) => isField(n) && n.states.includes('focused')) ?? null;
  }
  const inner = hits[0];
  if (!inner) return null;
  if (isControl(inner)) return inner;
  // Text inside a control is the control; a label is the field or box it labels: by the tree's relation,
  // or by holding it (<label><input type=checkbox> Email me</label>), or as the control's own name beside it.
  for (let up = inner.parent ? byPath.get(inner.parent) : undefined; up; up = up.parent ? byPath.get(up.parent) : undefined) {
    if (isControl(up) && roleWord(up) !== null) return up;
  }
  const text = (inner.name || inner.value || '').trim();
  const holder = inner.role === 'label' ? inner : inner.parent ? byPath.get(inner.parent) : undefined;
  const held = holder?.role === 'label' ? nodes.find((n) => n.parent === holder.path && isControl(n)) : undefined;
  const named = nodes.find((n) => n !== inner && isControl(n) && n.parent === inner.parent && text !== '' && n.name.trim() === text);
  return labelled([inner], nodes) ?? held ?? named ?? nodes.find((n) => labelsBox(inner, n)) ?? inner;
}

/** Controls a person labels by the words right of them. */
const BOX_ROLES = new Set(['check box', 'radio button']);

/**
 * Whether a text is the label of a checkbox or radio button that has no
 * name of its own: the words right beside it on its row, in the same
 * container, as find takes them. Chromium can show a page's
 * `<label><input type=checkbox> Email me</label>` so, now and then, for the
 * life of the page: the box without a name, its words as text beside it.
 */
function labelsBox(text: A11yNode, box: A11yNode): boolean {
  return BOX_ROLES.has(box.role) && !usableName(box.name) && isTextRole(text) && text.parent === box.parent && usableName(text.name || text.value)
    && holdsRelation(text.box, box.box, 'row') && holdsRelation(text.box, box.box, 'right-of') && text.box.x - right(box.box) <= BESIDE;
}

/** The control one of `labels` labels, if any. */
function labelled(labels: readonly A11yNode[], nodes: readonly A11yNode[]): A11yNode | null {
  for (const label of labels) {
    const target = nodes.find((n) => n.labelledBy.includes(label.path) && isControl(n));
    if (target) return target;
  }
  return null;
}

/** The words a node is known by: a field by its label (never its value), anything else by its name or text. */
export function nameOf(node: A11yNode, nodes: readonly A11yNode[]): string | null {
  const labels = node.labelledBy.map((p) => nodes.find((n) => n.path === p)).filter((n): n is A11yNode => !!n);
  const fromLabel = labels.map((l) => (l.name || l.value || '').trim().replace(/[:*]\s*$/, '').trim()).find(usableName);
  if (fromLabel) return fromLabel;
  if (isField(node)) return usableName(node.name) ? node.name.trim() : null;
  const name = node.name || (isTextRole(node) ? node.value : null);
  if (usableName(name)) return name.trim();
  const beside = nodes.find((n) => labelsBox(n, node));
  return beside ? (beside.name || beside.value)!.trim() : null;
}

/** A text beside the element that can anchor it: the same row's first words (a table's row), or the words left of it. */
function anchors(node: A11yNode, nodes: readonly A11yNode[], own: string): { kind: 'in the row of' | 'next to'; text: string }[] {
  const textOf = (n: A11yNode) => (n.name || n.value || '').trim();
  // The same row as find reads "in the row of" (relations.ts), and left of the element.
  const sameRow = nodes.filter((n) => n !== node && (isTextRole(n) || n.role === 'table cell') && usableName(textOf(n)) && textOf(n) !== own
    && holdsRelation(n.box, node.box, 'row') && right(n.box) <= node.box.x + 4).sort((a, b) => a.box.x - b.box.x);
  const out: { kind: 'in the row of' | 'next to'; text: string }[] = [];
  if (sameRow[0]) out.push({ kind: 'in the row of', text: textOf(sameRow[0]) });
  const nearest = sameRow.at(-1);
  if (nearest && nearest !== sameRow[0]) out.push({ kind: 'next to', text: textOf(nearest) });
  return out;
}

/**
 * A control the tree names by the words under the point, standing beside
 * them: a checkbox's label that the tree folds into the box's name
 * (`<label><input type=checkbox> Email me</label>`), where clicking the
 * words clicks the box.
 */
async function controlNamedAt(tools: DescribeTools, point: { x: number; y: number }): Promise<A11yNode | null> {
  const controls = tools.nodes.filter((n) => isControl(n) && usableName(n.name));
  if (!controls.length) return null;
  const under = (await tools.textsNear(point.x, point.y, UNDER_REACH))[0];
  if (!under) return null;
  const words = under.text.trim().toLowerCase();
  return controls.find((n) => n.name.trim().toLowerCase() === words
    && Math.abs(centerY(n.box) - centerY(under.box)) <= Math.max(n.box.height, under.box.height)
    && Math.min(Math.abs(under.box.x - (n.box.x + n.box.width)), Math.abs(n.box.x - (under.box.x + under.box.width))) <= BESIDE) ?? null;
}

/** "in the 'Billing' dialog": the node's window, by its title, when it has one a person can read. */
function windowWords(node: A11yNode, nodes: readonly A11yNode[]): string[] {
  if (!usableName(node.window)) return [];
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  let top = node;
  for (let up = node.parent ? byPath.get(node.parent) : undefined; up; up = up.parent ? byPath.get(up.parent) : undefined) top = up;
  return [`in the ${inQuotes(node.window.trim())} ${top.role === 'dialog' || top.role === 'alert' ? 'dialog' : 'window'}`];
}

export async function describeAt(tools: DescribeTools, request: DescribeRequest): Promise<ElementDescription> {
  const started = Date.now();
  const tried: string[] = [];
  const finish = (d: Omit<ElementDescription, 'tried' | 'tookMs'>): ElementDescription => ({ ...d, tried, tookMs: Date.now() - started });
  /** The first description that finds the element again, trying ordinals last. */
  const firstRefound = async (bases: string[], target: Box): Promise<string | null> => {
    for (const description of bases) {
      const found = await tools.refind(description);
      if (found && sameElement(found, target)) return description;
      tried.push(`${description}: ${found ? `found at ${found.x},${found.y}` : 'not found'}`);
    }
    for (const description of bases.slice(0, 1)) {
      const all = await tools.refindAll(description);
      const index = all.findIndex((box) => sameElement(box, target));
      if (index < 0 || index >= ORDINAL_WORDS.length) continue;
      const ordinal = index === all.length - 1 && index > 0 ? 'last' : ORDINAL_WORDS[index];
      const withOrdinal = description.startsWith('the ') ? `the ${ordinal} ${description.slice(4)}` : `the ${ordinal} ${description}`;
      const found = await tools.refind(withOrdinal);
      if (found && sameElement(found, target)) return withOrdinal;
      tried.push(`${withOrdinal}: ${found ? `found at ${found.x},${found.y}` : 'not found'}`);
    }
    return null;
  };

  const node = elementAt(tools.nodes, request.x, request.y, request.intent) ?? await controlNamedAt(tools, request);
  if (node) {
    const name = nameOf(node, tools.nodes);
    const secret = node.role === 'password text';
    if (name) {
      const word = roleWord(node);
      const base = word ? `the ${inQuotes(name)} ${word}` : inQuotes(name);
      const bases = [base, ...anchors(node, tools.nodes, name).map((a) => `${base} ${a.kind} ${inQuotes(a.text)}`), ...windowWords(node, tools.nodes).map((w) => `${base} ${w}`)];
      const description = await firstRefound(bases, node.box);
      if (description) return finish({ description, box: node.box, role: node.role, name, source: 'a11y', refound: true, secret, flags: [] });
      return finish({ description: base, box: node.box, role: node.role, name, source: 'a11y', refound: false, secret, flags: [`'${base}' does not find this ${node.role} again on the same screen`] });
    }
    if (request.intent === 'field' && !contains(node.box, request.x, request.y)) {
      return finish({ description: null, box: node.box, role: node.role, name: null, source: 'point', refound: false, secret, flags: ['the focused field has no label or name to describe it by'] });
    }
  }

  // No tree to tell: the words read on the pixels. Text under the point is what was clicked (a button's label);
  // a point with none (inside an empty field) takes the words that label it, left of it or above it.
  const near = await tools.textsNear(request.x, request.y, LABEL_REACH);
  const under = near.find((p) => distanceTo(p.box, request.x, request.y) <= UNDER_REACH && usableName(p.text));
  const secret = node?.role === 'password text';
  if (under) {
    const base = inQuotes(under.text);
    const description = await firstRefound([base], under.box);
    if (description) return finish({ description, box: under.box, role: node?.role ?? null, name: under.text, source: 'ocr', refound: true, secret, flags: [] });
    tried.push(`${base}: read at ${under.box.x},${under.box.y}, not found there again`);
  } else {
    // A label on the field's line first (nearest first), then one just above it.
    const named = near.filter((p) => usableName(p.text));
    const labels = [...named.filter((p) => leftOnRow(p.box, request)), ...named.filter((p) => !leftOnRow(p.box, request) && justAbove(p.box, request))];
    for (const label of labels.slice(0, 2)) {
      const description = `the ${inQuotes(label.text)} field`;
      const found = await tools.refind(description);
      if (found && contains(pad(found, 2), request.x, request.y)) {
        return finish({ description, box: found, role: node?.role ?? null, name: label.text, source: 'ocr', refound: true, secret, flags: [] });
      }
      tried.push(`${description}: ${found ? `found at ${found.x},${found.y}` : 'not found'}`);
    }
  }
  // No words at all (an icon): what a vision model calls it, where one is configured, found again like any description.
  const icon = node && node.box.width <= ICON_MAX && node.box.height <= ICON_MAX ? node.box
    : { x: Math.round(request.x - ICON_SIDE / 2), y: Math.round(request.y - ICON_SIDE / 2), width: ICON_SIDE, height: ICON_SIDE };
  const named = await tools.nameAt(icon).catch(() => null);
  if (named) {
    // Quoted whole, as the step library writes an icon: `the 'gear icon'`.
    const description = await firstRefound([`the ${inQuotes(named)}`], icon);
    if (description) return finish({ description, box: icon, role: node?.role ?? null, name: null, source: 'vision', refound: true, secret, flags: [] });
    tried.push(`the ${inQuotes(named)}: the vision model's name for it, not found there again`);
  }
  return finish({
    description: null, box: node?.box ?? null, role: node?.role ?? null, name: null, source: 'point', refound: false, secret: node?.role === 'password text',
    flags: ['nothing there has words to describe it by: the step clicks at coordinates'],
  });
}
