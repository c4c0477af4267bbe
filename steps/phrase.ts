import { QUOTE_MARKS, quotedSource, unquote } from '../lib/util/quotes';

/**
 * Step phrasings are Cucumber Expressions, written as in the step contract:
 * `I click (on )(the ){element}`. `(x)` is optional text; the parameters are
 * Cucumber's `{int}` and Glance's own (steps/parameter-types.ts):
 * - `{quoted}` a value in quotes, straight or curly, single or double (lib/util/quotes.ts), which the step gets unquoted;
 * - `{element}` an element description: quoted text with the words around it
 *   (`the second 'Edit' button`, `the 'Delete' icon next to 'Alice'`),
 *   passed to find() as written;
 * - `{direction}` up, down, left or right;
 * - `{find-options}` what a step that finds may end with: ` within N seconds`,
 *   ` using zoom`, ` and verify` and ` with confidence X`, in any order and
 *   combination.
 */
export const QUOTED = quotedSource(true);
// Lazy at the end, so that the find options after an element are not taken for its words.
export const ELEMENT = `(?:[^${QUOTE_MARKS}]*?(?:${QUOTED}))+[^${QUOTE_MARKS}]*?`;
export const DIRECTION = 'up|down|left|right';
// Any number after `with confidence`: the find names a value outside 0 to 1, where an undefined step would not say why.
export const FIND_OPTIONS = '(?: within \\d+ seconds?| using zoom| and verify| with confidence [\\d.]+)*';
// As Cucumber's own {int}.
const INT = '-?\\d+';

const PARAMETERS: Record<string, string> = {
  '{quoted}': QUOTED,
  '{element}': ELEMENT,
  '{int}': INT,
  '{direction}': DIRECTION,
};

/** The parameters of a phrasing, in order: `['quoted', 'element']`. */
export function parametersOf(phrase: string): string[] {
  return [...phrase.matchAll(/\{([a-z-]*)\}/g)].map((m) => m[1]);
}

/** A phrasing as a regular expression source; each argument is a group, a capturing one when asked. */
export function phraseSource(phrase: string, capture = false): string {
  let source = '';
  for (let i = 0; i < phrase.length; i++) {
    const parameter = Object.keys(PARAMETERS).find((p) => phrase.startsWith(p, i));
    if (parameter) {
      source += `(${capture ? '' : '?:'}${PARAMETERS[parameter]})`;
      i += parameter.length - 1;
    } else if (phrase[i] === '(') {
      const end = phrase.indexOf(')', i);
      source += `(?:${escape(phrase.slice(i + 1, end))})?`;
      i = end;
    } else {
      source += escape(phrase[i]);
    }
  }
  return source;
}

/** A whole step text of a phrasing, each argument captured as written. */
export function compilePhrase(phrase: string): RegExp {
  return new RegExp(`^${phraseSource(phrase, true)}$`);
}

/** How many characters of a phrasing are fixed words: optional parts and arguments do not count. */
export function literalLength(phrase: string): number {
  return phrase.replace(/\([^)]*\)/g, '').replace(/\{[a-z-]*\}/g, '').length;
}

/** The phrasing with each optional part left out and put in: `I click (on )(the )…` has four. */
export function variants(phrase: string): string[] {
  const optional = /\(([^)]*)\)/.exec(phrase);
  if (!optional) return [phrase];
  const before = phrase.slice(0, optional.index);
  const after = phrase.slice(optional.index + optional[0].length);
  return [...variants(before + after), ...variants(before + optional[1] + after)];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A quoted step argument without its quotes. */
export { unquote };

export interface StepFindOptions {
  timeout?: number;
  zoom?: boolean;
  verify?: boolean;
  confidence?: number;
}

/** The find options a step's suffixes set. */
export function parseSuffixes(suffixes: string | undefined): StepFindOptions {
  const text = suffixes ?? '';
  const options: StepFindOptions = {};
  const within = / within (\d+) seconds?/.exec(text);
  if (within) options.timeout = Number(within[1]) * 1000;
  if (/ using zoom/.test(text)) options.zoom = true;
  if (/ and verify/.test(text)) options.verify = true;
  const confidence = / with confidence ([\d.]+)/.exec(text);
  if (confidence) options.confidence = Number(confidence[1]);
  return options;
}
