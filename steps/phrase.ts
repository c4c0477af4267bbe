/**
 * Step phrasings are written as in the step contract: `I click (on )(the ){description}`.
 * `(x)` is optional text; `{string}` a single- or double-quoted value;
 * `{description}` an element description, which is quoted text with the
 * words around it (`the second 'Edit' button`, `the 'Delete' icon next to
 * 'Alice'`), passed to find() as written; `{int}` and `{float}` numbers;
 * `{direction}` up/down/left/right. A step that finds also takes the
 * suffixes ` within N seconds`, ` using zoom`, ` and verify` and
 * ` with confidence X`, in any order and combination.
 */
export const SUFFIXES = '((?: within \\d+ seconds?| using zoom| and verify| with confidence (?:0(?:\\.\\d+)?|1(?:\\.0+)?|\\.\\d+))*)';

const QUOTED = `(?:"[^"]*"|'[^']*')`;
const TOKENS: Record<string, string> = {
  '{string}': `("[^"]*"|'[^']*')`,
  '{description}': `([^"']*?${QUOTED}(?:[^"']*?${QUOTED})*[^"']*?)`,
  '{int}': '(-?\\d+)',
  '{float}': '(-?\\d+(?:\\.\\d+)?)',
  '{direction}': '(up|down|left|right)',
};

export type ArgumentKind = 'string' | 'description' | 'int' | 'float' | 'direction';

/** The pattern of a phrasing, and the kind of each argument it captures in order. */
export function compilePhrase(phrase: string, finds: boolean): RegExp & { kinds: ArgumentKind[] } {
  let source = '';
  const kinds: ArgumentKind[] = [];
  for (let i = 0; i < phrase.length; i++) {
    const token = Object.keys(TOKENS).find((t) => phrase.startsWith(t, i));
    if (token) {
      source += TOKENS[token];
      kinds.push(token.slice(1, -1) as ArgumentKind);
      i += token.length - 1;
    } else if (phrase[i] === '(') {
      const end = phrase.indexOf(')', i);
      source += `(?:${escape(phrase.slice(i + 1, end))})?`;
      i = end;
    } else {
      source += escape(phrase[i]);
    }
  }
  return Object.assign(new RegExp(`^${source}${finds ? SUFFIXES : ''}$`), { kinds });
}

/** How many characters of a phrasing are fixed words: optional parts and arguments do not count. */
export function literalLength(phrase: string): number {
  return phrase.replace(/\([^)]*\)/g, '').replace(/\{[a-z]+\}/g, '').length;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A quoted step argument without its quotes. */
export function unquote(value: string): string {
  return /^(['"]).*\1$/s.test(value) ? value.slice(1, -1) : value;
}

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
