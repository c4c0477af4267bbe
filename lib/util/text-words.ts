/**
 * A text's words as compared: case folded, the dress at its edges taken off.
 * Written once for the locate engines (text-match.ts) and the sandbox's
 * tree walk, which places the words a find asks about.
 */

/**
 * Symbols that are part of what a text says ('C++', 'C#', '-1', '100%',
 * '$5', '@ada', '<button>'). Any other mark at a text's edge dresses it:
 * end punctuation ('Email:'), quotes, brackets, a required field's star,
 * bullets, arrows, and the borders and specks OCR reads as | _ ~.
 */
export const OWN_SYMBOLS = '+\\-\u2212=#%$\u20ac\u00a3\u00a5@&<>^\u00b0';
export const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const DRESSED_EDGES = new RegExp(`^[^\\p{L}\\p{N}${OWN_SYMBOLS}]+|[^\\p{L}\\p{N}${OWN_SYMBOLS}]+$`, 'gu');

export function normalise(text: string): string {
  const words = text.toLowerCase().replace(/[\u2018\u2019]/g, "'").trim().split(/\s+/);
  // A mark standing apart at either end is an icon or decoration beside the text ('+ Add', 'Next >'), unless it is all there is ('+').
  if (words.some((w) => LETTER_OR_DIGIT.test(w))) {
    while (!LETTER_OR_DIGIT.test(words[0])) words.shift();
    while (!LETTER_OR_DIGIT.test(words[words.length - 1])) words.pop();
  }
  return words.join(' ').replace(DRESSED_EDGES, '').trim();
}

/**
 * Whether a node whose own text is `own` holds the words `text`, so that
 * where they stand in it is worth asking; `whole` when they are all of it.
 * Null when it does not hold them.
 */
export function wordsIn(own: string, text: string): { whole: boolean } | null {
  const held = normalise(own);
  const wanted = normalise(text);
  if (!held || !wanted || !held.includes(wanted)) return null;
  return { whole: held === wanted };
}
