import { quotedParts, quotedSource, replaceQuoted, trimQuoteMarks, unquote } from '../util/quotes';

/**
 * Reads a plain-words description ("the second 'Edit' button", "Email field",
 * "the 'Delete' button in the row of 'Bob Stone'") into what a locate engine
 * needs: the text to look for, the kind of control, an ordinal and a position
 * relative to another text.
 */
export type Role = 'button' | 'link' | 'field' | 'checkbox' | 'radio' | 'tab' | 'menuitem' | 'heading' | 'icon' | 'image' | 'dropdown' | 'cell' | 'text';
export type RelationKind = 'right-of' | 'left-of' | 'below' | 'above' | 'near' | 'row';
export type TypeHint = 'text' | 'image' | 'ui' | 'any';
/** Where on the screen the description says the element stands: a bar along the top, a side bar, the bottom. */
export type Place = 'top' | 'side' | 'bottom';

export interface Query {
  description: string;
  /** The text the element shows or is labelled with; null when the description names none. */
  text: string | null;
  role: Role | null;
  /** 1-based; -1 means the last one. */
  ordinal: number | null;
  relation: { kind: RelationKind; anchor: string } | null;
  /** "in the 'City' column": the header of the column the element stands in. */
  column?: string;
  /** "in the sidebar", "Docs navbar link": copies standing there come first. */
  place?: Place;
  hint: TypeHint;
  /** Words the description used beyond text and role (colours, shapes): things only a vision model sees. */
  visualWords: string[];
  /**
   * For unquoted descriptions, the text with its ordinal and colour words
   * kept: "First name field" may mean the field labelled "First name", and
   * "ORANGE 5 button" the button named so. An engine tries it first (see
   * withWholeText).
   */
  wholeText?: string;
  /** "the field showing 'All statuses'", "the input with 'Jane'": the text is what the control shows, not its label. */
  shown?: boolean;
  /** "the '12' badge", "the New pill": a text on a small face of its own, not the same words in a sentence. */
  badge?: boolean;
  /** "the About Me text area": a field of several lines, taller than an input. */
  textArea?: boolean;
  /** "in the 'Billing' dialog", "in the 'Settings' window": the title of the window the element stands in. */
  within?: string;
}

/** Words that say the quoted text is shown inside the control. */
const SHOWING = /\b(?:showing|shows|with|containing|contains|displaying|reading|that says)\s*$/;

const ROLE_WORDS: [RegExp, Role][] = [
  [/\b(?:menu[ -]?items?|menu entr(?:y|ies))\b/, 'menuitem'],
  [/\bradio(?: buttons?)?\b/, 'radio'],
  [/\bcheck[ -]?box(?:es)?\b|\b(?:switch|toggle)(?:es|s)?$/, 'checkbox'],
  [/\b(?:drop[ -]?downs?(?: lists?)?|select(?: box)?|combo[ -]?box(?:es)?|pickers?|list[ -]?box(?:es)?)\b/, 'dropdown'],
  // A desktop's number entry with arrows: before 'button', which would take 'spin button' for a button.
  [/\b(?:spin[ -]?(?:box(?:es)?|buttons?)|spinners?)\b/, 'field'],
  [/\b(?:buttons?|btns?)\b/, 'button'],
  [/\blinks?\b/, 'link'],
  [/\b(?:fields?|inputs?|text[ -]?box(?:es)?|text[ -]?areas?|boxe?s?|search[ -]?bar)\b/, 'field'],
  [/\btabs?\b/, 'tab'],
  [/\bmenus?\b/, 'menuitem'],
  [/\b(?:column|row) headers?\b/, 'cell'],
  [/\b(?:headings?|headers?|titles?)\b/, 'heading'],
  [/\b(?:icons?|symbols?)\b/, 'icon'],
  [/\b(?:images?|pictures?|logos?|photos?|avatars?)\b/, 'image'],
  [/\b(?:(?:table )?cells?)\b/, 'cell'],
  [/\b(?:labels?|texts?|words?|badges?|chips?|pills?)\b/, 'text'],
];

const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, last: -1,
  '1st': 1, '2nd': 2, '3rd': 3, '4th': 4, '5th': 5, '6th': 6, '7th': 7, '8th': 8, '9th': 9, '10th': 10,
};

const RELATIONS: [RegExp, RelationKind][] = [
  [/\b(?:in|on) the (?:same )?row (?:of|with|containing|for)\b|\bin the row\b/, 'row'],
  [/\b(?:to the )?right of\b/, 'right-of'],
  [/\b(?:to the )?left of\b/, 'left-of'],
  [/\b(?:below|under|beneath|underneath)\b/, 'below'],
  [/\babove\b/, 'above'],
  [/\b(?:next to|beside|near|by)\b/, 'near'],
];

const VISUAL = /\b(red|green|blue|yellow|orange|purple|pink|black|white|grey|gray|round|circular|square|big|large|small|tiny|colou?red|shaped|arrow|gear|cog|hamburger|magnifier|trash|bin|logo|avatar|star|heart|cross|plus|minus)\b/g;
const FILLER = /\b(?:the|a|an|on|at|in|of|that|which|says|saying|reads|reading|labell?ed|called|named|with|text|one|element|ui)\b/g;
const WITHIN = new RegExp(`\\s+(?:in|inside|within|on) the (${quotedSource()}) (?:dialog|window)\\s*$`, 'i');
const COLUMN = new RegExp(`\\b(?:in|under) the (${quotedSource()}) column\\b|\\bin column (${quotedSource()})`, 'i');

const WRAPPED: [RegExp, TypeHint][] = [[/^the text "(.*)"$/i, 'text'], [/^the image "(.*)"$/i, 'image'], [/^the ui element "(.*)"$/i, 'ui']];

/** The spec's `type` hint: `text` → `The text "..."`, `image` → `The image "..."`, `ui` → `The UI element "..."`. */
export function wrapDescription(description: string, type: TypeHint = 'any'): string {
  if (type === 'text') return `The text "${description}"`;
  if (type === 'image') return `The image "${description}"`;
  if (type === 'ui') return `The UI element "${description}"`;
  return description;
}

export function parseQuery(description: string): Query {
  let hint: TypeHint = 'any';
  let body = description.trim();
  for (const [pattern, kind] of WRAPPED) {
    const match = pattern.exec(body);
    if (match) {
      hint = kind;
      body = match[1].trim();
      break;
    }
  }
  if (hint === 'text') return { description, text: trimQuoteMarks(body), role: 'text', ordinal: null, relation: null, hint, visualWords: [] };

  // "the 'OK' button in the 'Billing' dialog": the window is read first; the rest describes the element inside it.
  let within: string | undefined;
  const withinMatch = WITHIN.exec(body);
  if (withinMatch) {
    within = unquote(withinMatch[1]);
    body = body.slice(0, withinMatch.index).trim();
  }
  // "the cell in the 'City' column in the row of 'Ada'": the column is a second anchor, read first.
  let column: string | undefined;
  const columnMatch = COLUMN.exec(body);
  if (columnMatch) {
    column = unquote(columnMatch[1] ?? columnMatch[2]);
    body = `${body.slice(0, columnMatch.index)} ${body.slice(columnMatch.index + columnMatch[0].length)}`.replace(/\s+/g, ' ').trim();
  }
  const place = placeNamed(outsideQuotes(body));
  const placeAfter = PLACE_AFTER.exec(outsideQuotes(body));
  if (placeAfter) body = body.slice(0, placeAfter.index);
  const quoted = quotedParts(body);
  let lower = body.toLowerCase();

  let relation: Query['relation'] = null;
  for (const [pattern, kind] of RELATIONS) {
    // Only words outside the quotes relate: "the 'Sort by date' button" is one button.
    const match = pattern.exec(outsideQuotes(lower));
    if (!match) continue;
    const after = quoted.find((q) => q.index >= match.index);
    const rest = body.slice(match.index + match[0].length);
    const anchor = after?.text ?? trimQuoteMarks(rest).replace(FILLER, ' ').trim();
    if (!anchor) continue;
    // "the Sort by dropdown", "the Sort by: dropdown": a relation word with nothing after it but a label's
    // punctuation and a role word is part of the name.
    if (!after && ROLE_WORDS.some(([word]) => new RegExp(`^[\\s:*]*(?:${word.source})\\s*$`, 'i').test(rest))) continue;
    relation = { kind, anchor };
    // Everything from the relation on describes the anchor, not the target.
    body = body.slice(0, match.index);
    lower = lower.slice(0, match.index);
    break;
  }

  let ordinal: number | null = null;
  const ordinalMatch = new RegExp(`\\b(${Object.keys(ORDINALS).join('|')})\\b`).exec(replaceQuoted(lower, () => ' '));
  if (ordinalMatch) ordinal = ORDINALS[ordinalMatch[1]];

  const target = quoted.find((q) => q.index < body.length);
  const unquoted = replaceQuoted(lower, () => ' ');
  const named = target ? firstRoleWord(unquoted) : lastRoleWord(lower);
  let role: Role | null = named?.role ?? null;
  const visualWords = [...unquoted.matchAll(VISUAL)].map((m) => m[1]);

  let text: string | null = target?.text ?? null;
  let wholeText: string | undefined;
  // "'Submit button'", "'Delete buttons'": a role word that ends the only quoted text names the control, not its label
  // (unless the screen shows the whole text as a phrase of its own: the heading 'Button Dropdowns').
  if (role === null && target && !unquoted.trim()) {
    const split = splitTrailingRole(target.text);
    if (split) {
      ({ text, role } = split);
      wholeText = target.text.trim();
    }
  }
  if (text === null) {
    // Unquoted: what is left once the role word (with the kind words before it: "Settings icon button"),
    // ordinals, colours and fillers are gone: "Submit button" → "Submit", "menus.ui tab" → "menus.ui".
    const plain = (kept: string) => trimFillers(kept.replace(new RegExp(`\\b(${Object.keys(ORDINALS).join('|')})\\b`, 'gi'), ' ')
      .replace(new RegExp(VISUAL.source, 'gi'), ' '));
    const before = named ? body.slice(0, named.index) : body;
    const after = named ? body.slice(named.end) : '';
    // A kind word alone is the text: "the search box" is the box labelled Search.
    const words = [`${withoutKindWords(before)} ${after}`, `${before} ${after}`].find((w) => plain(w)) ?? '';
    text = plain(words) || null;
    // A description that is nothing but a role word ("links", "Button") names the word shown;
    // "the gear icon" is not that: it describes a picture.
    if (text === null && !relation && !column && named && trimFillers(body).toLowerCase() === lower.slice(named.index, named.end)) {
      text = trimFillers(body);
      role = null;
    }
    // Nothing left but little words ("With text", a section's caption): the words are the text shown.
    if (text === null && !relation && !column && ordinal === null && (role === null || role === 'text') && !visualWords.length && /\p{L}/u.test(body.replace(/^\s*the\s+/i, ''))) {
      text = body.replace(/^\s*the\s+/i, '').trim();
      role = null;
    }
    const whole = trimFillers(words || `${withoutKindWords(before)} ${after}`);
    if (text !== null && whole !== text) wholeText = whole;
    // "Star link", "Heart button": a control that shows words is named by them, even when they are shape words.
    // ("the red button" stays a picture: colours and sizes name no text.)
    // A look word capitalised inside the description is a name too ("the Round button"; "Round button" stays a shape).
    else if (text === null && !relation && !column && role !== null && TEXT_BEARING.includes(role) && withoutLooks(whole, description).trim()) wholeText = whole;
    // "Pill badges", "Div as Select": a role word may be part of the text itself, where the screen shows it so.
    const withRoleWord = trimFillers(`${before} ${body.slice(named?.index ?? 0, named?.end ?? 0)} ${after}`);
    if (text !== null && !wholeText && named && withRoleWord !== text) wholeText = withRoleWord;
  }
  const shown = !!target && SHOWING.test(lower.slice(0, target.index));
  const roleWord = named ? (target ? unquoted : lower).slice(named.index, named.end) : '';
  const badge = role === 'text' && BADGE_WORDS.test(roleWord);
  const textArea = role === 'field' && TEXT_AREA_WORDS.test(roleWord);
  if (hint === 'image' && role === null) role = 'image';
  if (column && role === null) role = 'cell';
  return { description, text, role, ordinal, relation, hint, visualWords, ...(wholeText ? { wholeText } : {}), ...(column ? { column } : {}), ...(within ? { within } : {}), ...(place ? { place } : {}), ...(shown ? { shown } : {}), ...(badge ? { badge } : {}), ...(textArea ? { textArea } : {}) };
}

/** Role words for a text on a small face of its own. */
const BADGE_WORDS = /^(?:badges?|chips?|pills?)$/;
/** Role words for a field of several lines. */
const TEXT_AREA_WORDS = /^text[ -]?areas?$/;

/** Visual words that describe a look, never a name: colours and sizes. */
const LOOKS = /\b(?:red|green|blue|yellow|orange|purple|pink|black|white|grey|gray|round|circular|square|big|large|small|tiny|colou?red|shaped)\b/gi;

/** The text without its look words, but for those capitalised after the description's first word, which are names. */
function withoutLooks(text: string, description: string): string {
  const first = description.trim().split(/\s+/)[0];
  return text.replace(LOOKS, (word) => (/^\p{Lu}/u.test(word) && word !== first ? word : ' '));
}

/** Roles whose element shows its name as text, or beside it as a label ("the Small box" is the field labelled Small). */
const TEXT_BEARING: Role[] = ['link', 'button', 'tab', 'menuitem', 'heading', 'text', 'cell', 'field', 'checkbox', 'radio', 'dropdown'];

/**
 * The query read with its whole text: an ordinal word inside that text is no
 * longer an ordinal, a colour word no colour, and a role word no role ('Div
 * as Select' is a text, not a dropdown).
 */
export function withWholeText(query: Query): Query {
  if (!query.wholeText) return query;
  const ordinalInside = new RegExp(`\\b(${Object.keys(ORDINALS).join('|')})\\b`, 'i').test(query.wholeText);
  const visualWords = query.visualWords.filter((w) => !new RegExp(`\\b${w}\\b`, 'i').test(query.wholeText!));
  const inside = roleWordInside(query);
  // The role word is part of the text: what it said of the control's look goes with it.
  const { badge, textArea, ...rest } = query;
  const looks = inside ? {} : { ...(badge ? { badge } : {}), ...(textArea ? { textArea } : {}) };
  return { ...rest, text: query.wholeText, ordinal: ordinalInside ? null : query.ordinal, visualWords, role: inside ? null : query.role, ...looks };
}

/** Whether the whole text holds the word that gave the query its role ('Select' in 'Div as Select'). */
export function roleWordInside(query: Query): boolean {
  const wholeText = query.wholeText?.toLowerCase();
  if (!wholeText || query.role === null) return false;
  const ofRole = ROLE_WORDS.filter(([, role]) => role === query.role).map(([pattern]) => pattern);
  // "the Large input field": 'input' is in the text, but 'field' outside it still names the control.
  const outside = query.description.toLowerCase().replace(wholeText, ' ');
  return ofRole.some((pattern) => pattern.test(wholeText)) && !ofRole.some((pattern) => pattern.test(outside));
}

/**
 * Words that say what kind of control follows, or where it stands ("icon" in
 * "Settings icon button", "text" in "Email text field", "sidebar" in
 * "Utilities sidebar link").
 */
const KIND_WORDS = /(?:\s+(?:icon|text|input|search|toggle|sidebar|side bar|navbar|nav bar|nav|navigation|top bar|top-bar|toolbar|tool bar|menu bar|footer|breadcrumb))+\s*$/i;

function withoutKindWords(before: string): string {
  return before.replace(KIND_WORDS, ' ');
}

interface RoleWord { role: Role; index: number; end: number }

/** With quoted text, the role words around it, by priority: "the 'Name' column header" is a cell. */
function firstRoleWord(unquoted: string): RoleWord | null {
  for (const [pattern, role] of ROLE_WORDS) {
    const match = [...unquoted.matchAll(new RegExp(pattern.source, 'g'))].find((m) => !inCompound(unquoted, m.index!, m.index! + m[0].length));
    if (match) return { role, index: match.index!, end: match.index! + match[0].length };
  }
  return null;
}

/** A word hyphenated to another is part of a name, not a role: 'btn-tip', 'nav-link', 'tab-pane'. */
function inCompound(text: string, index: number, end: number): boolean {
  return /[\p{L}\p{N}]-$/u.test(text.slice(0, index)) || /^-[\p{L}\p{N}]/u.test(text.slice(end));
}

/** Without quotes, the last role word names the thing, as the last noun does in English: "Tabs heading" is a heading. */
function lastRoleWord(lower: string): RoleWord | null {
  let last: RoleWord | null = null;
  for (const [pattern, role] of ROLE_WORDS) {
    for (const match of lower.matchAll(new RegExp(pattern.source, 'g'))) {
      // "in the header", "on the toolbar": a place, not what is wanted.
      const end = match.index! + match[0].length;
      if (PLACE_BEFORE.test(lower.slice(0, match.index)) || inCompound(lower, match.index!, end)) continue;
      if (!last || end > last.end) last = { role, index: match.index!, end };
    }
  }
  return last;
}

const PLACE_BEFORE = /\b(?:in|on|at|of|from|inside|within|into) (?:the|a) $/;
/** A place the description ends with: where to look, not words of the target ("Sign in button in the header"). */
const PLACE_AFTER = /\s+(?:in|on|at|inside|within) (?:the|a) (?:[\p{L}-]+ )?(?:header|sidebar|side bar|navbar|nav bar|navigation|toolbar|tool bar|top bar|menu bar|footer|page|dialog|window|table|form|panel|modal|card|list|grid)$/iu;

const PLACES: [RegExp, Place][] = [
  [/\b(?:side ?bar|side ?nav|side menu)\b/i, 'side'],
  [/\b(?:top ?bar|top-bar|nav ?bar|app ?bar|tool ?bar|menu ?bar)\b|\b(?:in|on|at) the (?:page )?header\b/i, 'top'],
  [/\b(?:in|on|at) the (?:page )?footer\b|\bfooter link\b/i, 'bottom'],
];

/** The place named outside the quotes, if any. */
function placeNamed(unquoted: string): Place | undefined {
  return PLACES.find(([pattern]) => pattern.test(unquoted))?.[1];
}

/** The text with each quoted part masked, at the same length so that indexes still match; the mask is neither a word nor a space. */
function outsideQuotes(text: string): string {
  return replaceQuoted(text, (quoted) => '\u0001'.repeat(quoted.length));
}

/** Control roles that may end a quoted text: the ones a label is seldom made of. */
const TRAILING_ROLES: Role[] = ['button', 'link', 'field', 'checkbox', 'radio', 'tab', 'dropdown'];

function splitTrailingRole(quoted: string): { text: string; role: Role } | null {
  for (const [pattern, kind] of ROLE_WORDS) {
    if (!TRAILING_ROLES.includes(kind)) continue;
    const match = new RegExp(`\\s+(?:${pattern.source})$`, 'i').exec(quoted.trim());
    if (match && match.index > 0) return { text: quoted.trim().slice(0, match.index), role: kind };
  }
  return null;
}

/** Drops filler words at either end only: inner ones belong to the text ("Log in", "Terms of use"). */
function trimFillers(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  // A filler capitalised after the first word is a name: "the first Labeled button"; so is one in capitals ("UI Elements").
  const filler = (w: string, i: number) => new RegExp(`^(?:${FILLER.source})$`, 'i').test(w) && (i === 0 || !/^\p{Lu}/u.test(w)) && !/^\p{Lu}{2,}$/u.test(w);
  let dropped = 0;
  for (; words.length && filler(words[0], dropped); dropped++) words.shift();
  // At the end, only the words a description trails off with ("the Submit one"); capitalised, they are a name too ("the Text field").
  while (words.length && /^(?:one|element|text)$/i.test(words[words.length - 1]) && filler(words[words.length - 1], dropped + words.length - 1)) words.pop();
  return words.join(' ');
}

