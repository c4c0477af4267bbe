import type { Box } from '../../../types/screen';
import { AccessibilityBus, Ref } from './bus';
import type { A11yTextBox } from '../../../types/a11y';
import { wordsIn } from '../../../util/text-words';
import { COORDS_SCREEN, has, IFACE, RELATION_LABELLED_BY, State, StateBits, roleName } from './atspi';
import { textBoxesOf } from './text-ranges';

/**
 * Walks one application's accessibility tree over the bus, keeping only
 * what is on the screen. Every call costs the application's main thread
 * time, so the walk asks as little as it can: a node without the SHOWING
 * state costs one call and its subtree none, and the children of a named
 * button or link (its label again) are not asked for. Siblings are walked
 * side by side, so the time follows the number of calls, not the depth.
 */

export interface RawNode {
  ref: Ref;
  /** The application's bus name, then the child index at each level: `:1.42/0/3/1`. */
  path: string;
  /** Null for a top-level window. */
  parent: RawNode | null;
  role: string;
  name: string;
  description: string;
  states: StateBits;
  /** Screen box as the toolkit reports it, before any clipping; null without the Component interface. */
  extents: Box | null;
  value: string | null;
  labelledBy: Ref[];
  cell?: { row: number; column: number };
  /** True when some child is not on the screen while this node is: it scrolls or cuts off what overflows it. */
  clips: boolean;
  /** False when the toolkit's text for the node shows that its name is not drawn (an aria-label over an icon); absent when unknown. */
  nameShown?: false;
  /** For a password field: whether it holds no characters (its text itself is never read). */
  empty?: boolean;
}

export interface WalkedApplication {
  name: string;
  /** In tree order. */
  nodes: RawNode[];
  /** False when the deadline or the node budget stopped the walk early. */
  complete: boolean;
  /** Where the texts asked about (WalkOptions.texts) stand in the nodes that hold them. */
  textBoxes: A11yTextBox[];
}

/** What all the applications of one snapshot share: the node budget. */
export interface NodeBudget {
  /** Nodes still to be kept. */
  remaining: number;
  /** Nodes still to be asked about, kept or not; bounds the work in trees with many hidden nodes. */
  visits: number;
}

export interface WalkOptions {
  /** Rejects with OutOfTime when the application is out of time; every wait races it. */
  expired: Promise<never>;
  /** Called on every answer: the application is alive. */
  alive(): void;
  /** True for a node that is surely hidden, subtree and all (under another window). */
  hidden(node: RawNode): boolean;
  /**
   * What the application's objects were at the last snapshot, by object
   * path, kept from one snapshot to the next: a find asks again and again.
   */
  known: Map<string, KnownObject>;
  /** Texts to place inside the nodes' texts that hold them, as the walk meets those nodes (see textBoxesOf). */
  texts?: readonly string[];
}

export interface KnownObject {
  /** An object keeps its role while it lives (a page that changes an element's role gets a new object). */
  role?: string;
  /** It was on the screen: the next walk asks its details as it starts (see askAhead). */
  showing?: boolean;
  /** The last walk read its text, and picked out its children on the screen: asked ahead too. */
  text?: boolean;
  picked?: boolean;
}

export class OutOfTime extends Error {}

/** A password field: its text is never read, only whether it is empty. */
const PASSWORD_ROLE = 'password text';
/** Roles whose text is a value apart from their name (a field's content). */
const VALUE_ROLES = new Set(['entry', 'text', 'spin button', 'combo box', 'terminal']);
/** Roles with no text of their own worth a call: containers, documents (the whole page), decorations. */
const TEXTLESS_ROLES = new Set([
  'filler', 'panel', 'scroll pane', 'viewport', 'frame', 'window', 'dialog', 'separator', 'scroll bar', 'tool bar',
  'menu bar', 'page tab list', 'table', 'tree table', 'tree', 'list', 'list box', 'image', 'icon', 'split pane',
  'layered pane', 'root pane', 'glass pane', 'redundant object', 'application', 'unknown', 'invalid', 'password text',
  'document web', 'document frame', 'document text', 'document email', 'document presentation', 'document spreadsheet',
  'progress bar', 'slider', 'level bar', 'animation', 'canvas', 'drawing area',
]);
/** Roles with a numeric value (the Value interface). */
const NUMERIC_ROLES = new Set(['slider', 'spin button', 'progress bar', 'scroll bar', 'level bar', 'dial', 'meter']);
const CELL_ROLES = new Set(['table cell', 'column header', 'row header', 'table column header', 'table row header']);
/** Controls whose label usually sits beside them, tied by a labelled-by relation. */
const LABELLED_ROLES = new Set(['entry', 'password text', 'text', 'spin button', 'combo box', 'check box', 'radio button', 'slider', 'list box', 'toggle button', 'switch', 'tree table', 'table']);
/**
 * Named controls whose children only repeat the name (a button's label, a
 * link's text). Not a menu item: Qt hangs a menu's open popup under the item
 * that opened it.
 */
const SELF_LABELLED_ROLES = new Set(['push button', 'toggle button', 'check box', 'radio button', 'check menu item', 'radio menu item', 'link', 'static']);
/** Roles whose children, on a web page, are runs of their text unless marked otherwise (see childrenAreText). */
const TEXT_RUN_ROLES = new Set([
  'paragraph', 'heading', 'section', 'static', 'table cell', 'list item', 'caption', 'block quote', 'article',
  'description term', 'description value', 'definition', 'column header', 'row header', 'table column header',
  'table row header', 'mark', 'subscript', 'superscript', 'comment', 'footer', 'header',
]);
/** Inline elements whose text is part of the line around them (bold, a link, a highlight). */
const INLINE_TEXT_ROLES = new Set(['static', 'text', 'link', 'mark', 'subscript', 'superscript', 'emphasis', 'strong', 'content deletion', 'content insertion']);
/** Field roles whose placeholder a web page gives as an attribute. */
const PLACEHOLDER_ROLES = new Set(['entry', 'password text', 'text', 'combo box', 'spin button']);
/** From this many children on, the ones on the screen are picked out by the application itself. */
const MANY_CHILDREN = 32;
/** AtspiCollectionMatchType ALL and AtspiCollectionSortOrder CANONICAL. */
const MATCH_ALL = 1;
const SORT_CANONICAL = 1;
/** Collection.GetMatches' arguments for the children with the SHOWING state. */
const SHOWING_MATCHES = (() => {
  const showing = [0, 0];
  showing[State.SHOWING >> 5] |= 1 << (State.SHOWING & 31);
  const rule = [showing, MATCH_ALL, {}, MATCH_ALL, [], MATCH_ALL, [], MATCH_ALL, false];
  return { signature: '(aiia{ss}iaiiasib)uib', body: [rule, SORT_CANONICAL, 0, false] };
})();
/** Characters a text keeps where an embedded child (a link, an image) sits. */
const EMBEDDED_OBJECT = /\uFFFC/g;
/** A control's children read for the text it shows: a link or a button holds a few. */
const MAX_TEXT_CHILDREN = 8;
const MAX_TEXT = 2000;

const orNull = <T>(promise: Promise<T>): Promise<T | null> => promise.catch(() => null);

/** Whether a control's rendered text shows its name (folded for case and spacing): not where it shows nothing, or only embedded objects. */
function nameDrawn(name: string, text: string | null): boolean {
  if (text === null) return true; // no text to tell by
  const fold = (t: string) => t.replace(EMBEDDED_OBJECT, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
  const shown = fold(text);
  return shown !== '' && (shown.includes(fold(name)) || fold(name).includes(shown));
}

export class TreeWalker {
  private readonly nodes: RawNode[] = [];
  /** Answers asked for ahead (see askAhead), by object path and method: each is taken once, by the walk's own call. */
  private readonly ahead = new Map<string, Promise<any[]>>();
  /** The objects this walk asked about, by path: after a whole walk, the rest are forgotten (see forgetUnmet). */
  private readonly met = new Set<string>();
  /** The words being placed in the nodes met so far (see placeWords). */
  private readonly placing: Promise<A11yTextBox[]>[] = [];
  private complete = true;
  /** Whether name and description come in one GetAll call, or one call each. */
  private oneCallProperties = true;
  /** Whether the application picks out its children on the screen (Collection.GetMatches). */
  private collection = true;
  /**
   * Whether a named control's text tells if its name is drawn: Chromium gives
   * every element its rendered text, so an icon button named by aria-label
   * has none. GTK and Qt draw their controls' names.
   */
  private readsNamesText = false;

  constructor(
    private readonly bus: AccessibilityBus,
    private readonly app: Ref,
    private readonly budget: NodeBudget,
    private readonly options: WalkOptions,
  ) {}

  private race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.options.expired]);
  }

  /** A method call, answered by the call asked ahead when there is one (see askAhead). */
  private call(ref: Ref, iface: string, member: string, signature = '', body: unknown[] = []): Promise<any[]> {
    const key = `${ref[1]} ${member}`;
    const early = this.ahead.get(key);
    if (!early) return this.ask(ref, iface, member, signature, body);
    this.ahead.delete(key);
    return early;
  }

  /**
   * Asks an object that was on the screen at the last walk what this walk
   * will ask it: state, name, box, children, and its text and its children
   * on the screen where the last walk asked those. The walk asks this of
   * all of them as it starts, and then finds each level's answers in
   * instead of waiting a round trip a level: a page's tree is ten levels
   * deep and more. An object gone or hidden since costs its calls, and
   * nothing else.
   */
  private askAhead(ref: Ref, known: KnownObject): void {
    const early: [string, Promise<any[]>][] = [
      ['GetState', this.ask(ref, IFACE.accessible, 'GetState')],
      ['GetExtents', this.ask(ref, IFACE.component, 'GetExtents', 'u', [COORDS_SCREEN])],
      ['GetChildren', this.ask(ref, IFACE.accessible, 'GetChildren')],
    ];
    if (this.oneCallProperties) early.push(['GetAll', this.ask(ref, IFACE.properties, 'GetAll', 's', [IFACE.accessible])]);
    if (known.text) early.push(['GetText', this.ask(ref, IFACE.text, 'GetText', 'ii', [0, -1])]);
    if (known.picked) early.push(['GetMatches', this.ask(ref, IFACE.collection, 'GetMatches', SHOWING_MATCHES.signature, SHOWING_MATCHES.body)]);
    for (const [member, answer] of early) {
      answer.catch(() => undefined); // an answer the walk does not take must not go unhandled
      this.ahead.set(`${ref[1]} ${member}`, answer);
    }
  }

  /** Every answer, an error too, shows the application alive. */
  private ask(ref: Ref, iface: string, member: string, signature = '', body: unknown[] = []): Promise<any[]> {
    return this.bus.call(ref[0], ref[1], iface, member, signature, body).then(
      (reply) => { this.options.alive(); return reply; },
      (error) => { this.options.alive(); throw error; },
    );
  }

  private async property(ref: Ref, iface: string, name: string): Promise<any> {
    const [variant] = await this.call(ref, IFACE.properties, 'Get', 'ss', [iface, name]);
    return variant.value;
  }

  async walk(): Promise<WalkedApplication> {
    const [name, windows, toolkit] = await this.race(Promise.all([
      this.property(this.app, IFACE.accessible, 'Name').catch(() => ''),
      this.children(this.app),
      this.property(this.app, IFACE.application, 'ToolkitName').catch(() => ''),
    ]));
    // Qt 5 reads a second argument that GetAll does not have, and crashes; it has no Collection interface either.
    const qt = String(toolkit).toLowerCase() === 'qt';
    this.oneCallProperties = !qt;
    this.collection = !qt;
    this.readsNamesText = String(toolkit).toLowerCase() === 'chromium';
    for (const [path, known] of this.options.known) if (known.showing) this.askAhead([this.app[0], path], known);
    try {
      await Promise.all(windows.map((ref, i) => this.visit(ref, `${this.app[0]}/${i}`, null)));
    } catch (error) {
      if (!(error instanceof OutOfTime)) throw error;
      this.complete = false;
    }
    if (this.complete) this.forgetUnmet();
    // Out of time, the words placed so far are dropped with the rest: the caller asks again for what it needs.
    const textBoxes = await this.race(Promise.all(this.placing)).then((boxes) => boxes.flat(), () => []);
    return { name: String(name), nodes: this.inTreeOrder(), complete: this.complete, textBoxes };
  }

  private async children(ref: Ref): Promise<Ref[]> {
    const [children] = await this.call(ref, IFACE.accessible, 'GetChildren');
    return children as Ref[];
  }

  /** Null for an object that went away while we looked; out of time propagates. */
  private answered<T>(promise: Promise<T>): Promise<T | null> {
    return this.race(promise).catch((error) => {
      if (error instanceof OutOfTime) throw error;
      return null;
    });
  }

  private async visit(ref: Ref, path: string, parent: RawNode | null): Promise<void> {
    if (this.budget.visits <= 0 || this.budget.remaining <= 0) {
      this.complete = false;
      return;
    }
    this.budget.visits--;
    const known = this.known(ref);
    this.met.add(ref[1]);
    // What was asked of it ahead came from the last walk; this one notes its own asks for the next.
    known.text = known.picked = false;
    const state = this.answered(this.call(ref, IFACE.accessible, 'GetState').then(([bits]) => bits as StateBits));
    // An object on the screen last time most likely still is: its details were asked for ahead (askAhead),
    // not after its state. A hidden one costs one call, as before.
    const asked = known.showing ? this.answered(this.basics(ref)) : null;
    asked?.catch(() => undefined); // not awaited when the object turns out hidden or gone; out of time reaches the walk through its state
    const states = await state;
    known.showing = !!states && has(states, State.SHOWING) && !has(states, State.DEFUNCT);
    if (!states || has(states, State.DEFUNCT)) return;
    if (!has(states, State.SHOWING)) {
      if (parent) parent.clips = true;
      return;
    }
    const answers = await (asked ?? this.answered(this.basics(ref)));
    if (!answers) return;
    const [role, properties, extents, children] = answers;
    const node: RawNode = {
      ref, path, parent, role, states, value: null, labelledBy: [], clips: false,
      name: String(properties.Name?.value ?? ''), description: String(properties.Description?.value ?? ''),
      extents: extents && extents.width > 0 && extents.height > 0 ? extents : null,
    };
    if (this.options.hidden(node)) return;
    if (this.budget.remaining <= 0) {
      this.complete = false;
      return;
    }
    this.budget.remaining--;
    this.nodes.push(node);
    const named = SELF_LABELLED_ROLES.has(role) && node.name.trim() !== '';
    let descend = named ? [] : children ?? [];
    const wantsText = this.wantsText(node);
    const checksName = named && this.readsNamesText;
    const text = wantsText || checksName || (descend.length && !TEXTLESS_ROLES.has(role)) ? this.text(node, wantsText) : null;
    const nameCheck = checksName && text ? text.then((shown) => this.checkNameDrawn(node, shown)).catch(() => undefined) : null;
    const emptiness = role === PASSWORD_ROLE ? this.passwordEmptiness(node) : null;
    if (text && descend.length && this.childrenAreText(node, await text)) descend = [];
    const showing = this.collection && descend.length >= MANY_CHILDREN ? await this.showingChildren(ref) : null;
    if (showing && showing.size < descend.length) node.clips = true;
    const [raw] = await Promise.all([
      text,
      emptiness,
      nameCheck,
      this.details(node),
      ...descend.map((child, i) => (showing && !showing.has(child[1]) ? undefined : this.visit(child, `${path}/${i}`, node))),
    ]);
    if (raw && raw.includes('\uFFFC') && node.value !== null) this.joinInlineText(node, raw);
    this.placeWords(node);
  }

  /** Asks where the texts asked about stand in a node that holds them, beside the rest of the walk; never in a password field's text. */
  private placeWords(node: RawNode): void {
    if (node.role === PASSWORD_ROLE) return;
    for (const text of this.options.texts ?? []) {
      const words = wordsIn(node.value || node.name, text);
      if (words) this.placing.push(textBoxesOf(this.bus, node.path, node.ref, text, words.whole).catch(() => []));
    }
  }

  /**
   * One line of text is one text, however the page splits it: in
   * `<strong>1</strong> item left` the bold '1' is a child of its own, and
   * the paragraph's text holds an embedded-object mark where it stands. The
   * paragraph's value takes the child's text there. Children that are plain
   * runs of the text are in the text already; an image or a control gives a space.
   */
  private joinInlineText(node: RawNode, raw: string): void {
    const index = (n: RawNode) => Number(n.path.slice(n.path.lastIndexOf('/') + 1));
    const children = this.nodes.filter((n) => n.parent === node).sort((a, b) => index(a) - index(b));
    let next = 0;
    const embedded = () => {
      for (; next < children.length; next++) {
        const child = children[next];
        const own = child.value ?? child.name;
        if (!own || !raw.includes(own)) return children[next++];
      }
      return null;
    };
    const joined = [...raw].map((ch) => {
      if (ch !== '\uFFFC') return ch;
      const child = embedded();
      // The text around the mark has its own spaces: '<b>1</b>st' stays one word.
      return child && INLINE_TEXT_ROLES.has(child.role) ? child.value ?? child.name : ' ';
    }).join('');
    node.value = joined.replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT);
  }

  private wantsText(node: RawNode): boolean {
    const { role } = node;
    return !TEXTLESS_ROLES.has(role) && (VALUE_ROLES.has(role) || has(node.states, State.EDITABLE) || !node.name.trim());
  }

  /**
   * Reads the node's text, and keeps it as the node's value when `keep`;
   * resolves to the raw text, or null when the node has none.
   */
  private async text(node: RawNode, keep: boolean): Promise<string | null> {
    this.known(node.ref).text = true;
    const text = await this.race(orNull(this.call(node.ref, IFACE.text, 'GetText', 'ii', [0, -1]).then(([t]) => String(t))));
    if (text === null || !keep) return text;
    const cleaned = text.replace(EMBEDDED_OBJECT, ' ').replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT);
    if (cleaned || has(node.states, State.EDITABLE) || VALUE_ROLES.has(node.role)) node.value = cleaned;
    return text;
  }

  /**
   * Whether a named control shows its name, by its rendered text. A block
   * inside it (a sidebar link holding a <div>) stands in that text as an
   * embedded-object mark only: the children's own text counts then. An icon
   * inside an aria-labelled button has none.
   */
  private async checkNameDrawn(node: RawNode, shown: string | null): Promise<void> {
    const onlyEmbedded = shown !== null && shown.includes('\uFFFC') && shown.replace(EMBEDDED_OBJECT, '').trim() === '';
    const drawn = onlyEmbedded ? await this.childrenText(node.ref) : shown;
    if (!nameDrawn(node.name, drawn)) node.nameShown = false;
  }

  private async childrenText(ref: Ref): Promise<string> {
    const children = (await this.race(orNull(this.children(ref)))) ?? [];
    const texts = await Promise.all(children.slice(0, MAX_TEXT_CHILDREN).map((child) => this.race(orNull(this.call(child, IFACE.text, 'GetText', 'ii', [0, -1]).then(([t]) => String(t))))));
    return texts.filter((t): t is string => !!t).join(' ');
  }

  /** A password field's character count, never its text: a placeholder shows only while it is empty. */
  private async passwordEmptiness(node: RawNode): Promise<void> {
    const count = await this.race(orNull(this.property(node.ref, IFACE.text, 'CharacterCount')));
    if (typeof count === 'number') node.empty = count === 0;
  }

  /**
   * True when the children only split the node's own text into runs: a web
   * page's hypertext marks every other child (a link, a field, an image)
   * with U+FFFC. Only for text-holding roles: a menu's or a list's items
   * are no such mark, nor are a GTK entry's icons or a GTK label's links.
   */
  private childrenAreText(node: RawNode, text: string | null): boolean {
    if (!text || text.includes('\uFFFC')) return false;
    return TEXT_RUN_ROLES.has(node.role) && !has(node.states, State.EDITABLE);
  }

  /**
   * The object paths of the children on the screen, in one call: a long
   * list or table mostly scrolled away would otherwise cost a call for
   * every row. Null where the toolkit has no Collection interface.
   */
  private async showingChildren(ref: Ref): Promise<Set<string> | null> {
    this.known(ref).picked = true;
    const matches = await this.answered(this.call(ref, IFACE.collection, 'GetMatches', SHOWING_MATCHES.signature, SHOWING_MATCHES.body));
    return matches ? new Set((matches[0] as Ref[]).map(([, objectPath]) => objectPath)) : null;
  }

  /**
   * After a whole walk, what is known is what it met: objects gone since (a
   * page's old document, a closed dialog's widgets) would otherwise stay
   * known as on the screen, and be asked ahead at every walk after.
   */
  private forgetUnmet(): void {
    for (const path of this.options.known.keys()) if (!this.met.has(path)) this.options.known.delete(path);
  }

  /** What is known of an object from the last snapshot; filled in as this one asks. */
  private known(ref: Ref): KnownObject {
    let known = this.options.known.get(ref[1]);
    if (!known) this.options.known.set(ref[1], (known = {}));
    return known;
  }

  /** Role, name and description, screen box, and children: what every node on the screen is asked. */
  private basics(ref: Ref): Promise<[string, Record<string, { value: unknown }>, Box | null, Ref[] | null]> {
    return Promise.all([
      this.role(ref),
      this.oneCallProperties
        ? this.call(ref, IFACE.properties, 'GetAll', 's', [IFACE.accessible]).then(([all]) => all, () => this.nameAndDescription(ref))
        : this.nameAndDescription(ref),
      orNull(this.call(ref, IFACE.component, 'GetExtents', 'u', [COORDS_SCREEN]).then(([[x, y, width, height]]) => ({ x, y, width, height }))),
      orNull(this.children(ref)),
    ]);
  }

  private async role(ref: Ref): Promise<string> {
    const known = this.known(ref);
    if (known.role) return known.role;
    const [role] = await this.call(ref, IFACE.accessible, 'GetRole');
    known.role = roleName(role);
    return known.role;
  }

  /** For toolkits that cannot take GetAll, in GetAll's shape. */
  private async nameAndDescription(ref: Ref): Promise<Record<string, { value: unknown }>> {
    const [name, description] = await Promise.all([
      this.property(ref, IFACE.accessible, 'Name').catch(() => ''),
      this.property(ref, IFACE.accessible, 'Description').catch(() => ''),
    ]);
    return { Name: { value: name }, Description: { value: description } };
  }

  /**
   * The numeric value, the labels and the table position, for the roles
   * that have them. Decided by role rather than by asking for the
   * interfaces: that would be one more call for every node.
   */
  private async details(node: RawNode): Promise<void> {
    const { ref, role } = node;
    const [value, relations, position, attributes] = await this.race(Promise.all([
      NUMERIC_ROLES.has(role) ? orNull(this.property(ref, IFACE.value, 'CurrentValue')) : null,
      LABELLED_ROLES.has(role) ? orNull(this.call(ref, IFACE.accessible, 'GetRelationSet').then(([set]) => set as [number, Ref[]][])) : null,
      CELL_ROLES.has(role) ? orNull(this.property(ref, IFACE.tableCell, 'Position')) : null,
      this.readsNamesText && PLACEHOLDER_ROLES.has(role) ? orNull(this.call(ref, IFACE.accessible, 'GetAttributes').then(([dict]) => dict as Record<string, string>)) : null,
    ]));
    // A page's placeholder is an attribute, or the name where nothing else names the field; the field's description stands for it, as GTK's does.
    const placeholder = attributes?.['placeholder-text'] ?? (attributes?.['name-from'] === 'placeholder' ? node.name : undefined);
    if (placeholder && !node.description) node.description = placeholder;
    // A spin button's text says it better than its number.
    if (node.value === null && typeof value === 'number' && Number.isFinite(value)) node.value = String(Math.round(value * 1e6) / 1e6);
    for (const [type, targets] of relations ?? []) {
      if (type === RELATION_LABELLED_BY) node.labelledBy.push(...targets);
    }
    if (Array.isArray(position) && position.length === 2 && position[0] >= 0 && position[1] >= 0) node.cell = { row: position[0], column: position[1] };
  }

  private inTreeOrder(): RawNode[] {
    const key = (node: RawNode) => node.path.slice(node.path.indexOf('/') + 1).split('/').map(Number);
    const keyed = this.nodes.map((node) => ({ node, key: key(node) }));
    keyed.sort((a, b) => {
      for (let i = 0; i < Math.min(a.key.length, b.key.length); i++) if (a.key[i] !== b.key[i]) return a.key[i] - b.key[i];
      return a.key.length - b.key.length;
    });
    return keyed.map((k) => k.node);
  }
}
