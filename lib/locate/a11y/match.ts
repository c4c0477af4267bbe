import type { A11yNode } from '../../types/a11y';
import type { Candidate } from '../../types/locate';
import { distance, horizontalOverlap, readingOrder } from '../geometry';
import { NotThere } from '../engine';
import { Query, withWholeText } from '../query';
import { holdsRelation, inPlace, sameBox } from '../relations';
import { normalise, similarity, threshold } from '../text-match';
import { fitsRole, isControl, isField, isTextRole, looksLikeWidgetId, selectorRole } from './roles';

/**
 * Matching a description against the accessibility tree. The tree says
 * exactly what is there, so only whole names count: "Save" is the button
 * named Save, not a sentence that mentions saving (that is for OCR, which
 * sees where the word stands).
 */
export interface NodeMatch {
  node: A11yNode;
  /** 0-1: how well the node's text answers the description. */
  score: number;
  /** What matched: the name, the value, a label's name, the description (a placeholder). */
  via: string;
}

/** How far below the best a match may score and still count for findAll and ordinals. */
const PEER_MARGIN = 0.1;
/** How far a field may stand from a label that has no relation to it. */
const LABEL_REACH = 400;

/** The texts a node answers to, each with how it answers. */
function textsOf(node: A11yNode, byPath: Map<string, A11yNode>): { text: string; via: string; weight: number }[] {
  const texts: { text: string; via: string; weight: number }[] = [];
  if (node.name && !looksLikeWidgetId(node.name)) texts.push({ text: node.name, via: 'name', weight: 1 });
  for (const path of node.labelledBy) {
    const label = byPath.get(path);
    // Chromium gives a <label> its text as the value, with no name.
    const text = label?.name || label?.value;
    if (text) texts.push({ text, via: `label '${text}'`, weight: 1 });
  }
  if (node.value && (isTextRole(node) || isField(node) || node.role === 'table cell')) texts.push({ text: node.value, via: 'value', weight: isField(node) ? 0.95 : 1 });
  if (node.description && isField(node)) texts.push({ text: node.description, via: 'placeholder', weight: 0.95 });
  return texts;
}

/** How well a text answers the wanted one: the whole of it, allowing for case, punctuation and a slip in a long name. */
function wholeMatch(text: string, wanted: string): number {
  // A lone symbol ('+'): normalising leaves nothing of it, so only the same symbol matches.
  if (!normalise(wanted)) return text.trim() === wanted.trim() ? 1 : 0;
  if (normalise(text) === normalise(wanted)) return 1;
  // The tree's names are exact: only a slip in a long name passes, never a different word.
  const score = similarity(text, wanted);
  return score >= Math.max(0.95, threshold(wanted)) ? score * 0.95 : 0;
}

export function matchText(nodes: A11yNode[], wanted: string, byPath: Map<string, A11yNode>, accept: (node: A11yNode) => boolean): NodeMatch[] {
  const matches: NodeMatch[] = [];
  for (const node of nodes) {
    if (!accept(node)) continue;
    let best: NodeMatch | null = null;
    for (const { text, via, weight } of textsOf(node, byPath)) {
      const score = wholeMatch(text, wanted) * weight;
      if (score > 0 && (!best || score > best.score)) best = { node, score, via };
    }
    if (best) matches.push(best);
  }
  return matches;
}

export class TreeMatcher {
  private readonly byPath: Map<string, A11yNode>;

  /** `screen`: the size of the screen the boxes are on, for descriptions that name a place ("in the sidebar"). */
  constructor(private readonly nodes: A11yNode[], private readonly screen?: { width: number; height: number }) {
    this.byPath = new Map(nodes.map((n) => [n.path, n]));
  }

  /** Candidates for a query, best first (or, with `all`, every peer of the best in reading order). */
  locate(asked: Query, all = false): Candidate[] {
    // "First name field", "ORANGE 5 button": a name holding the whole text means its ordinal or colour word belongs to it.
    const query = asked.wholeText && this.byText(withWholeText(asked)).length ? withWholeText(asked) : asked;
    const anchor = query.relation ? this.anchor(query.relation.anchor) : null;
    if (query.relation && !anchor) return [];
    if (query.text === null && !query.relation && !query.column) return [];
    const header = query.column ? this.anchor(query.column) : null;
    if (query.column && !header) return [];
    let matches = query.text !== null ? this.oneEach(this.byText(query)) : this.byRelationOnly(query, anchor ?? header!);
    if (header) matches = matches.filter((m) => m.node !== header && this.sameColumn(m.node, header));
    if (anchor && query.relation) {
      matches = matches
        .filter((m) => !sameBox(m.node.box, anchor.box) && this.related(m.node, anchor, query.relation!.kind))
        .sort((a, b) => distance(a.node.box, anchor.box) - distance(b.node.box, anchor.box));
    }
    if (this.screen) matches = inPlace(matches.map((m) => ({ ...m, box: m.node.box })), query.place, this.screen);
    const best = Math.max(0, ...matches.map((m) => m.score));
    const peers = readingOrder(matches.filter((m) => m.score >= best - PEER_MARGIN).map((m) => ({ ...m, box: m.node.box })));
    if (all) return peers.map((m) => this.candidate(m));
    if (query.ordinal !== null) {
      const pick = query.ordinal === -1 ? peers[peers.length - 1] : peers[query.ordinal - 1];
      // The tree holds every copy of a text it has: past the last one there is nothing to find.
      if (!pick && peers.length) throw new NotThere(`the accessibility tree shows '${query.text ?? ''}' ${peers.length === 1 ? 'once' : `${peers.length} times`}, so there is no ${ordinalWord(query.ordinal)}`);
      return pick ? [this.candidate(pick)] : [];
    }
    const ranked = anchor ? matches : [...matches].sort((a, b) => b.score - a.score || a.node.box.y - b.node.box.y || a.node.box.x - b.node.box.x);
    return ranked.map((m) => this.candidate(m));
  }

  /** The node a relation is measured from: the best whole-name match of any role. */
  private anchor(text: string): A11yNode | null {
    const found = matchText(this.nodes, text, this.byPath, (n) => fitsRole(n, null));
    found.sort((a, b) => b.score - a.score || Number(isControl(b.node)) - Number(isControl(a.node)));
    return found[0]?.node ?? null;
  }

  private byText(query: Query): NodeMatch[] {
    const wanted = query.text!;
    // "the text 'Email'" is the words shown, not the field they label.
    const accept = query.role === 'text' ? (n: A11yNode) => fitsRole(n, 'text') && !isField(n) : (n: A11yNode) => fitsRole(n, query.role);
    const direct = matchText(this.nodes, wanted, this.byPath, accept);
    if (query.role === 'field' || query.role === 'dropdown' || query.role === 'checkbox' || query.role === 'radio') {
      // A label with no relation to its control: the nearest control of that role right of it or below it.
      const labels = matchText(this.nodes, wanted, this.byPath, (n) => isTextRole(n) && !fitsRole(n, query.role));
      for (const label of labels) {
        const control = this.nearestControl(label.node, query.role);
        if (control && !direct.some((d) => d.node === control)) direct.push({ node: control, score: label.score * 0.95, via: `the label '${label.node.name || label.node.value}' beside it` });
      }
    }
    if (query.role === null) {
      // 'Save' names the button, not the tooltip or the label that says the same: controls first.
      const controls = direct.filter((m) => isControl(m.node));
      if (controls.length) return controls.concat(direct.filter((m) => !isControl(m.node)).map((m) => ({ ...m, score: m.score * 0.9 })));
    }
    return direct;
  }

  /**
   * One match for each thing on the screen. The tree repeats a name down a
   * branch (a heading and its text, a cell and its text): a control keeps it
   * over what it holds; otherwise the innermost node, whose box is the text's
   * own, does. A field found by its label does not count beside that label.
   * Two branches drawing the same thing in the same box (a page's navbar given
   * twice, one over the other) are one thing seen.
   */
  private oneEach(matches: NodeMatch[]): NodeMatch[] {
    const matched = new Map(matches.map((m) => [m.node.path, m]));
    const dropped = new Set<NodeMatch>();
    for (const inner of matches) {
      if (inner.node.labelledBy.some((path) => matched.has(path))) dropped.add(inner);
      for (let at = this.parentOf(inner.node); at; at = this.parentOf(at)) {
        const outer = matched.get(at.path);
        if (outer) dropped.add(isControl(outer.node) && !isControl(inner.node) ? inner : outer);
      }
    }
    const kept = matches.filter((m) => !dropped.has(m));
    return kept.filter((m, i) => !kept.slice(0, i).some((earlier) => sameBox(earlier.node.box, m.node.box) && Math.abs(earlier.node.box.height - m.node.box.height) < 3 && normalise(earlier.node.name) === normalise(m.node.name)));
  }

  private parentOf(node: A11yNode): A11yNode | undefined {
    return node.parent ? this.byPath.get(node.parent) : undefined;
  }

  /** "the button right of 'Export'": every node of the role that stands there. */
  private byRelationOnly(query: Query, anchor: A11yNode): NodeMatch[] {
    return this.nodes.filter((n) => n !== anchor && fitsRole(n, query.role) && (query.role !== null || isControl(n)))
      .map((node) => ({ node, score: 1, via: query.relation ? `its place ${query.relation.kind} '${anchor.name}'` : `the '${anchor.name}' column` }));
  }

  private nearestControl(label: A11yNode, role: Query['role']): A11yNode | null {
    const near = this.nodes.filter((n) => fitsRole(n, role) && (holdsRelation(n.box, label.box, 'right-of') || holdsRelation(n.box, label.box, 'below')) && distance(n.box, label.box) < LABEL_REACH);
    near.sort((a, b) => distance(a.box, label.box) - distance(b.box, label.box));
    return near[0] ?? null;
  }

  /** A relation by the tree where it knows (a table's rows), by the layout otherwise. */
  private related(node: A11yNode, anchor: A11yNode, kind: NonNullable<Query['relation']>['kind']): boolean {
    if (kind === 'row') {
      const a = this.cellOf(anchor);
      const b = this.cellOf(node);
      if (a && b && a.table === b.table) return a.row === b.row;
    }
    return holdsRelation(node.box, anchor.box, kind);
  }

  /** Under a column's header: by the table's own column numbers where it has them, by the layout otherwise. */
  private sameColumn(node: A11yNode, header: A11yNode): boolean {
    const a = this.cellOf(header);
    const b = this.cellOf(node);
    if (a && b && a.table === b.table) return a.column === b.column;
    return node.box.y >= header.box.y + header.box.height - 4 && horizontalOverlap(node.box, header.box) > 0.3;
  }

  /** The table cell a node sits in (itself or an ancestor), with its table. */
  private cellOf(node: A11yNode): { row: number; column: number; table: string | null } | null {
    for (let at: A11yNode | undefined = node; at; at = at.parent ? this.byPath.get(at.parent) : undefined) {
      if (at.cell) return { ...at.cell, table: this.tableOf(at) };
    }
    return null;
  }

  private tableOf(cell: A11yNode): string | null {
    for (let at = cell.parent ? this.byPath.get(cell.parent) : undefined; at; at = at.parent ? this.byPath.get(at.parent) : undefined) {
      if (/table|tree|grid/.test(at.role)) return at.path;
    }
    return null;
  }

  private candidate(match: NodeMatch): Candidate {
    const { node } = match;
    const text = node.name || node.value || '';
    return {
      box: { ...node.box }, text: text || undefined, confidence: Math.round(match.score * 1000) / 1000, engine: 'a11y', evidence: node.box,
      reason: `the ${node.role} ${text ? `'${text}' ` : ''}in the accessibility tree (${match.via}; window '${node.window}')`,
      selector: selectorOf(node, this.nodes),
    };
  }
}

function ordinalWord(ordinal: number): string {
  const words = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
  return words[ordinal - 1] ?? `number ${ordinal}`;
}

/** `window[name="Users"] >> role=button[name="Add user"]`, with `:nth(k)` when the window has several alike. */
export function selectorOf(node: A11yNode, nodes: A11yNode[]): string {
  const role = selectorRole(node);
  const alike = nodes.filter((n) => n.window === node.window && selectorRole(n) === role && n.name === node.name);
  const nth = alike.length > 1 ? `:nth(${readingOrder(alike.map((n) => ({ n, box: n.box }))).findIndex((a) => a.n === node)})` : '';
  return `window[name=${JSON.stringify(node.window)}] >> role=${role}[name=${JSON.stringify(node.name)}]${nth}`;
}
