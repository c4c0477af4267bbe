/**
 * Quoted text as people write it: 'straight single', "straight double",
 * ‘curly single’ and “curly double” (editors and chat apps curl straight
 * quotes as you type). Descriptions, assert statements and step arguments
 * all read quotes here, so every kind works wherever a quote is read.
 */

/** Each kind of quote: the mark that opens it and the one that closes it. */
const PAIRS: readonly (readonly [open: string, close: string])[] = [
  ["'", "'"],
  ['"', '"'],
  ['\u2018', '\u2019'],
  ['\u201c', '\u201d'],
];

/** Every opening and closing quote mark, as characters for a regular-expression class. */
export const QUOTE_MARKS = `'"\u2018\u2019\u201c\u201d`;
const OPENING = new Set(PAIRS.map(([open]) => open));
const CLOSING = new Set(PAIRS.map(([, close]) => close));

/**
 * A regular-expression source for one quoted text, quotes included, with no
 * capturing group (so it can sit inside a Cucumber parameter type).
 * `allowEmpty` lets `''` and `""` count, as a step argument may be empty.
 */
export function quotedSource(allowEmpty = false): string {
  const repeat = allowEmpty ? '*' : '+';
  return PAIRS.map(([open, close]) => {
    if (close !== '\'' && close !== '\u2019') return `${open}[^${close}]${repeat}${close}`;
    // A single closing mark is also the apostrophe: one with a letter after it ("Don’t", "user's")
    // is inside the text, and a straight one with a letter before it opens nothing.
    const start = open === '\'' ? `(?<![A-Za-z])${open}` : open;
    return `${start}(?:[^${close}]|${close}(?=[A-Za-z]))${repeat}${close}`;
  }).join('|');
}

const QUOTED = new RegExp(quotedSource(), 'g');

export interface QuotedPart {
  /** The text inside the quotes. */
  text: string;
  /** Where the opening quote is. */
  index: number;
  /** Its length with the quotes. */
  length: number;
}

/** Each quoted text, in order: "the 'Save' button next to “Draft”" has 'Save' and 'Draft'. */
export function quotedParts(text: string): QuotedPart[] {
  return [...text.matchAll(QUOTED)].map((m) => ({ text: m[0].slice(1, -1), index: m.index!, length: m[0].length }));
}

export function quotedTexts(text: string): string[] {
  return quotedParts(text).map((part) => part.text);
}

/** The text with each quoted part (quotes included) replaced. */
export function replaceQuoted(text: string, by: (quoted: string) => string): string {
  return text.replace(QUOTED, by);
}

/** A value without the pair of quotes around it, if it has one: `'Save'` → `Save`, `“Save”` → `Save`. */
export function unquote(value: string): string {
  const quoted = value.length >= 2 && PAIRS.some(([open, close]) => value.startsWith(open) && value.endsWith(close));
  return quoted ? value.slice(1, -1) : value;
}

/** The text without a quote mark at its start or end, paired or not: `'Save` → `Save` (a description cut short). */
export function trimQuoteMarks(text: string): string {
  let trimmed = text.trim();
  if (OPENING.has(trimmed[0])) trimmed = trimmed.slice(1);
  if (CLOSING.has(trimmed[trimmed.length - 1])) trimmed = trimmed.slice(0, -1);
  return trimmed.trim();
}

/** Whether the text brings quotes of its own (then it is shown as written, not quoted again). */
export function hasQuoteMark(text: string): boolean {
  return [...text].some((c) => OPENING.has(c) || CLOSING.has(c));
}

/** Whether the text opens with a quote mark: `'Save'`, `“Save” button`. */
export function startsQuoted(text: string): boolean {
  return OPENING.has(text[0]);
}

/** Text in the quotes a step or description reads it back from: single, or double where it holds a single one. */
export function inQuotes(text: string): string {
  return text.includes("'") ? `"${text}"` : `'${text}'`;
}
