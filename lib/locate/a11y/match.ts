import type { A11yNode, A11yTextBox, A11yTextRequest } from '../../types/a11y';
import type { Candidate } from '../../types/locate';
import type { Box } from '../../types/screen';
import { distance, horizontalOverlap, readingOrder, textWithin } from '../geometry';
import { NotThere } from '../engine';
import { Query, withWholeText } from '../query';
import { holdsRelation, inPlace, sameBox } from '../relations';
import { normalise, punctuationExact, similarity, threshold, wordsIn } from '../text-match';
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
  /** The box is the words' own, from the Text interface's character extents. */
  fromTextExtents?: boolean;
  /** Where the matched words are drawn, when not in the node's own box: a field's label. */
  wordsAt?: Box;
}

/** How far below the best a match may score and still count for findAll and ordinals. */
const PEER_MARGIN = 0.1;
/** How far a field may stand from a label that has no relation to it. */
const LABEL_REACH = 400;

/**
 * Whether a description counts only text shown on the screen: bare quoted
 * text ('Welcome back'), and "the text '…'". A role word ("the 'Search'
 * button") lets a control answer to its name too, drawn or not.
 */
export function wantsShownText(query: Query): boolean {
  return query.role === null || query.role === 'text';
}

/** A name the screen does not show (an aria-label over an icon, a field's own name) weighs a little less than shown text. */
const HIDDEN_NAME_WEIGHT = 0.97;
/** Matching with the punctuation as asked ('Search:') beats matching once punctuation is set aside ('Search'). */
const NEAR_WEIGHT = 0.98;

/** True when a field shows nothing of its own: its placeholder is on the screen then. */
function showsPlaceholder(node: A11yNode): boolean {
  return node.empty ?? (node.value === null || node.value === '');
}

/**
 * The texts a node answers to, each with how it answers. With `shownOnly`,
 * only what a person can read on the screen: a field's own name is no text
 * of the screen (its label is, as a node of its own), a placeholder is only
 * while its field is empty, and a name the toolkit says is not drawn is none.
 */
function textsOf(node: A11yNode, byPath: Map<string, A11yNode>, shownOnly: boolean): { text: string; via: string; weight: number; wordsAt?: Box }[] {
  const texts: { text: string; via: string; weight: number; wordsAt?: Box }[] = [];
  const field = isField(node);
  if (node.name && !looksLikeWidgetId(node.name)) {
    const shown = !field && node.nameShown !== false;
    if (shown || !shownOnly) texts.push({ text: node.name, via: shown ? 'name' : 'its name, which the screen does not show', weight: shown ? 1 : HIDDEN_NAME_WEIGHT });
  }
  for (const path of node.labelledBy) {
    const label = byPath.get(path);
    // Chromium gives a <label> its text as the value, with no name.
    const text = label?.name || label?.value;
    if (text) texts.push({ text, via: `label '${text}'`, weight: 1, wordsAt: label!.box });
  }
  if (node.value && (isTextRole(node) || field || node.role === 'table cell')) texts.push({ text: node.value, via: 'value', weight: field ? 0.95 : 1 });
  if (node.description && field && (!shownOnly || showsPlaceholder(node))) texts.push({ text: node.description, via: 'placeholder', weight: 0.95 });
  return texts;
}

/** How well a text answers the wanted one: the whole of it, allowing for case, punctuation and a slip in a long name. */
function wholeMatch(text: string, wanted: string): number {
  // A lone symbol ('+'): normalising leaves nothing of it, so only the same symbol matches.
  if (!normalise(wanted)) return text.trim() === wanted.trim() ? 1 : 0;
  if (normalise(text) === normalise(wanted)) return punctuationExact(text, wanted) ? 1 : NEAR_WEIGHT;
  // The tree's names are exact: only a slip in a long name passes, never a different word.
  const score = similarity(text, wanted);
  return score >= Math.max(0.95, threshold(wanted)) ? score * 0.95 : 0;
}

export function matchText(nodes: A11yNode[], wanted: string, byPath: Map<string, A11yNode>, accept: (node: A11yNode) => boolean, shownOnly = false): NodeMatch[] {
  const matches: NodeMatch[] = [];
  for (const node of nodes) {
    if (!accept(node)) continue;
    let best: NodeMatch | null = null;
    for (const { text, via, weight, wordsAt } of textsOf(node, byPath, shownOnly)) {
      const score = wholeMatch(text, wanted) * weight;
      if (score > 0 && (!best || score > best.score)) best = { node, score, via, ...(wordsAt ? { wordsAt } : {}) };
    }
    if (best) matches.push(best);
  }
  return matches;
}

/** Roles whose text the tree does not hold: drawn pixels. */
const OPAQUE_ROLES = new Set(['canvas', 'image', 'drawing area', 'embedded', 'animation', 'video', 'unknown']);
/** From this share of the screen on, such a node may hold text that matters. */
const OPAQUE_SHARE = 0.02;

/** Roles whose box may be wider than their words (a full-width heading, a table cell, a card header): a click goes to the words. */
const WORDS_INSIDE = new Set(['table cell', 'column header', 'row header', 'table column header', 'table row header', 'list item', 'heading']);
/** The weight of a copy found inside a longer text, against the same words standing alone. */
const INSIDE_WEIGHT = 0.95;

/**
 * The texts whose place inside a node's text a query asks for: its text, and
 * the whole quoted text too ("'Basic Inputs'" may be a heading's words, not
 * 'Basic' fields, see locate()), and a relation's anchor.
 */
export function textsAsked(query: Query): string[] {
  if (!query.text || !normalise(query.text)) return [];
  return [...new Set([query.text, query.wholeText, query.relation?.anchor].filter((t): t is string => !!t))];
}

/** Whether the node's text may hold the wanted words with a box of their own. */
function holdsWords(node: A11yNode): boolean {
  return isTextRole(node) || WORDS_INSIDE.has(node.role) || node.role === 'terminal' || (node.states.includes('multi-line') && node.states.includes('editable'));
}

export class TreeMatcher {
  private readonly byPath: Map<string, A11yNode>;

  /**
   * `screen`: the size of the screen the boxes are on, for descriptions that
   * name a place ("in the sidebar"). `textBoxes`: where the text asked for
   * stands inside the nodes' texts (see textRequests()).
   */
  constructor(private readonly nodes: A11yNode[], private readonly screen?: { width: number; height: number }, private readonly textBoxes: A11yTextBox[] = []) {
    this.byPath = new Map(nodes.map((n) => [n.path, n]));
  }

  /**
   * The nodes whose text holds the words asked for, to ask where they stand
   * in it: a word inside an editor's or a paragraph's text, and the words of
   * a heading or a cell wider than they are. Empty when the query names no text.
   */
  textRequests(query: Query): A11yTextRequest[] {
    const requests: A11yTextRequest[] = [];
    for (const text of textsAsked(query)) {
      for (const node of this.nodes) {
        if (!holdsWords(node)) continue;
        const words = wordsIn(node.value || node.name, text);
        if (words) requests.push({ path: node.path, text, ...(words.whole ? { whole: true } : {}) });
      }
    }
    return requests;
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
    // An element the tree puts partly off the screen is half seen at best, and Chromium's boxes lag a
    // scroll: one scrolled back into view can still be reported cut at the edge. The pixels find it.
    matches = matches.filter((m) => !m.node.partlyOffScreen);
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
      // The tree holds every copy of a text it has: past the last one there is nothing to find, unless some of the screen's text is not in it.
      if (!pick && peers.length && this.holdsAllText() && !this.shownElsewhere(query, peers.length)) throw new NotThere(`the accessibility tree shows '${query.text ?? ''}' ${peers.length === 1 ? 'once' : `${peers.length} times`}, so there is no ${ordinalWord(query.ordinal)}`);
      return pick ? [this.candidate(pick)] : [];
    }
    const ranked = anchor ? matches : [...matches].sort((a, b) => b.score - a.score || a.node.box.y - b.node.box.y || a.node.box.x - b.node.box.x);
    return ranked.map((m) => this.candidate(m));
  }

  /**
   * Whether the tree holds all the text the screen shows: not where a
   * canvas, a picture, a plug-in or a terminal without a text interface
   * covers part of it, whose text only the pixels tell.
   */
  private holdsAllText(): boolean {
    const screenArea = this.screen ? this.screen.width * this.screen.height : Infinity;
    return !this.nodes.some((n) => (OPAQUE_ROLES.has(n.role) && n.box.width * n.box.height >= screenArea * OPAQUE_SHARE) || (n.role === 'terminal' && n.value === null));
  }

  /**
   * Whether the text shows more often than the copies counted: the same
   * words on an element of another role (a link drawn as a button) may be
   * what a person counts, and the pixels should decide.
   */
  private shownElsewhere(query: Query, counted: number): boolean {
    if (query.text === null) return false;
    return this.oneEach(matchText(this.nodes, query.text, this.byPath, (n) => fitsRole(n, null), true)).length > counted;
  }

  /** The node a relation is measured from: the best whole match of any role, among what the screen shows. */
  private anchor(text: string): A11yNode | null {
    const found = matchText(this.nodes, text, this.byPath, (n) => fitsRole(n, null), true);
    found.sort((a, b) => b.score - a.score || Number(isControl(b.node)) - Number(isControl(a.node)));
    return found[0]?.node ?? null;
  }

  private byText(query: Query): NodeMatch[] {
    const wanted = query.text!;
    // "the text 'Email'" is the words shown, not the field they label.
    const accept = query.role === 'text' ? (n: A11yNode) => fitsRole(n, 'text') && !isField(n) : (n: A11yNode) => fitsRole(n, query.role);
    const shownOnly = wantsShownText(query);
    const direct = this.onTheWords(matchText(this.nodes, wanted, this.byPath, accept, shownOnly), wanted).concat(this.insideTexts(wanted, accept, shownOnly));
    if (query.role === 'field' || query.role === 'dropdown' || query.role === 'checkbox' || query.role === 'radio') {
      // A label with no relation to its control: the nearest control of that role right of it or below it.
      const labels = matchText(this.nodes, wanted, this.byPath, (n) => isTextRole(n) && !fitsRole(n, query.role), true);
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
   * A whole match on a node wider than its words (a heading across the page,
   * a table cell) stands where its words stand, so that a click lands on them.
   */
  private onTheWords(matches: NodeMatch[], wanted: string): NodeMatch[] {
    return matches.map((match) => {
      if (!WORDS_INSIDE.has(match.node.role) && !isTextRole(match.node)) return match;
      const words = this.textBoxes.find((t) => t.path === match.node.path && normalise(t.text) === normalise(wanted));
      return words && textWithin(words.box, match.node.box) ? { ...match, node: { ...match.node, box: words.box }, fromTextExtents: true } : match;
    });
  }

  /**
   * Every copy of the words inside a longer text: a line of an editor, a
   * word of a paragraph. Each is a match of its own, at its own box, counted
   * in reading order with the copies elsewhere.
   */
  private insideTexts(wanted: string, accept: (node: A11yNode) => boolean, shownOnly: boolean): NodeMatch[] {
    const matches: NodeMatch[] = [];
    for (const copy of this.textBoxes) {
      if (normalise(copy.text) !== normalise(wanted)) continue;
      const node = this.byPath.get(copy.path);
      if (!node || !accept(node) || !textWithin(copy.box, node.box)) continue;
      const own = node.value || node.name;
      // A text that is just the words is a whole match, found above.
      if (normalise(own) === normalise(wanted)) continue;
      if (shownOnly && isField(node) && node.value === null) continue;
      matches.push({
        node: { ...node, path: `${node.path}#${copy.start}`, parent: node.path, labelledBy: [], box: copy.box, name: wanted, value: null, role: 'text' },
        score: INSIDE_WEIGHT, via: `characters ${copy.start} to ${copy.end} of the ${node.role}'s text`, fromTextExtents: true,
      });
    }
    return matches;
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

  /**
   * Whether the node is part of a web page. A page's boxes, the Text
   * interface's extents too, lag a scroll (Chromium moves them lazily): a
   * box there is read back from the pixels, however exact it looks.
   */
  private inWebPage(node: A11yNode): boolean {
    for (let at = this.parentOf(node); at; at = this.parentOf(at)) if (at.role === 'document web') return true;
    return false;
  }

  private parentOf(node: A11yNode): A11yNode | undefined {
    return node.parent ? this.byPath.get(node.parent) : undefined;
  }

  /** "the button right of 'Export'": every node of the role that stands there. */
  private byRelationOnly(query: Query, anchor: A11yNode): NodeMatch[] {
    return this.nodes.filter((n) => n !== anchor && fitsRole(n, query.role) && (query.role !== null || isControl(n)))
      .map((node) => ({ node, score: 1, via: query.relation ? `its place ${query.relation.kind} '${anchor.name}'` : `the '${anchor.name}' column` }));
  }

  /**
   * The control a label with no relation to it names: on the label's own
   * row first, either side (a checkbox before its label, a field after it);
   * for a field or a dropdown, else the one just under the label. Never one
   * on the next row of a list: that is the next row's control.
   */
  private nearestControl(label: A11yNode, role: Query['role']): A11yNode | null {
    const byDistance = (a: A11yNode, b: A11yNode) => distance(a.box, label.box) - distance(b.box, label.box);
    const controls = this.nodes.filter((n) => fitsRole(n, role) && distance(n.box, label.box) < LABEL_REACH);
    const onRow = controls.filter((n) => holdsRelation(n.box, label.box, 'row') && (holdsRelation(n.box, label.box, 'right-of') || holdsRelation(n.box, label.box, 'left-of')));
    if (onRow.length) return onRow.sort(byDistance)[0];
    if (role !== 'field' && role !== 'dropdown') return null;
    const under = controls.filter((n) => holdsRelation(n.box, label.box, 'below') && n.box.y - (label.box.y + label.box.height) <= label.box.height * 2 && horizontalOverlap(n.box, label.box) > 0);
    return under.sort(byDistance)[0] ?? null;
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
      box: { ...node.box }, text: text || undefined, confidence: Math.round(match.score * 1000) / 1000, engine: 'a11y', evidence: match.wordsAt ?? node.box,
      reason: `the ${node.role} ${text ? `'${text}' ` : ''}in the accessibility tree (${match.via}; window '${node.window}')`,
      // Words inside a text are a range of a node, which no selector names.
      selector: node.path.includes('#') ? undefined : selectorOf(node, this.nodes),
      ...(match.fromTextExtents && !this.inWebPage(node) ? { drawnHere: true } : {}),
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
