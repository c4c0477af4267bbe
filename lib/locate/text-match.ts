import { editDistance } from '../config/closest';
import { LETTER_OR_DIGIT, normalise, OWN_SYMBOLS } from '../util/text-words';

export { normalise, wordsIn } from '../util/text-words';

/**
 * Fuzzy text comparison tolerant of OCR slips: case, end punctuation, and
 * the classic confusions (rn/m, l/1/I/|//, 0/O, vv/w, and a small 'g' read
 * as 9 or 8: '23g' as '238'). What tells texts apart is kept: 'C', 'C++' and
 * 'C#' are three texts, and so are '1' and '-1'.
 */

const NOT_OWN = new RegExp(`[^${OWN_SYMBOLS}]`, 'gu');

/** The symbols a text's words carry before and after their letters, in order: 'c++' has '…++', '-1' has '-…', 'language (c#' has '…#'. */
function edgeSymbols(normalised: string): string {
  const own = (marks: string) => marks.replace(NOT_OWN, '');
  return normalised.split(' ').filter((w) => LETTER_OR_DIGIT.test(w)).flatMap((w) => {
    const before = own(/^[^\p{L}\p{N}]*/u.exec(w)![0]);
    const after = own(/[^\p{L}\p{N}]*$/u.exec(w)![0]);
    return [...(before ? [`${before}\u2026`] : []), ...(after ? [`\u2026${after}`] : [])];
  }).join(' ');
}

/**
 * Whether two texts are the same with their punctuation kept: case and
 * spacing aside, 'Email:' is not 'Email'. Matching ignores end punctuation,
 * so between two candidates that match alike, this tells which is spelled
 * as asked.
 */
export function punctuationExact(text: string, wanted: string): boolean {
  const fold = (t: string) => t.toLowerCase().replace(/\s+/g, ' ').trim();
  return fold(text) === fold(wanted);
}

function confusable(text: string): string {
  return text.replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/[il1|!/]/g, 'l').replace(/0/g, 'o').replace(/5/g, 's').replace(/[89]/g, 'g').replace(/[^\p{L}\p{N}]/gu, '');
}

/** 0-1 similarity of what was read to what was asked for. */
export function similarity(read: string, wanted: string): number {
  const a = normalise(read);
  const b = normalise(wanted);
  // A lone symbol asked for ('+', '<'): only the same symbol is it.
  if (!b && wanted.trim()) return read.trim() === wanted.trim() ? 1 : 0;
  if (!a || !b) return 0;
  if (a === b) return 1;
  const plain = 1 - editDistance(a, b) / Math.max(a.length, b.length);
  const ca = confusable(a);
  const cb = confusable(b);
  const loose = ca && cb ? (1 - editDistance(ca, cb) / Math.max(ca.length, cb.length)) * 0.97 : 0;
  const score = Math.max(plain, loose);
  return otherWords(a, b) ? Math.min(score, NOT_A_SLIP) : score;
}

/** The same text, spaces aside: OCR drops a narrow space now and then ('Divas Input' for 'Div as Input'). */
export function sameLetters(read: string, wanted: string): boolean {
  const letters = (text: string) => normalise(text).replace(/\s+/g, '');
  return letters(read) === letters(wanted);
}

/** What a text that differs by more than a slip scores at most: below every threshold. */
const NOT_A_SLIP = 0.6;

/**
 * A slip changes letters, not what the text says: 'page 3' is not 'page 2',
 * and 'Remove a container' is not 'Add a container'. Numbers with as many
 * digits but other values differ (a misread digit usually turns into a
 * letter, changing the count), and so does a number word one has and the
 * other lacks or has another value of; where both have the same words, one word that shares almost
 * nothing with its counterpart is a different word.
 */
function otherWords(a: string, b: string): boolean {
  // A symbol that is part of a word is part of what it says: 'C++' is not 'C', '-1' is not '1'.
  if (edgeSymbols(a) !== edgeSymbols(b)) return true;
  const da = a.replace(/\D/g, '');
  const db = b.replace(/\D/g, '');
  if (da.length && da.length === db.length && da !== db) return true;
  // A digit more or fewer is another number ('1/tcp' is not '13/tcp'), unless a letter read for a digit explains it ('l3' for '13').
  if (da.length && db.length && da !== db && confusable(a) !== confusable(b)) return true;
  const wa = a.split(' ');
  const wb = b.split(' ');
  // A number added or left out ('Argon Dashboard 5' for 'Argon Dashboard'), or another number in its place
  // ('Tape x 8' for 'Tape x 48'); a number read in two pieces is the same.
  const [na, nb] = [numbers(a), numbers(b)];
  if (da !== db && wa.length !== wb.length && na.length !== nb.length) return true;
  if (na.length && na.length === nb.length && na.some((n, i) => n !== nb[i])) return true;
  if (wa.length !== wb.length) return false;
  // A plural is another name ('Orders' is not 'Order', 'Dropdowns' not 'Dropdown'): OCR does not add an 's'. Nor does it
  // add a negation: 'unchecked' is not 'checked', 'inactive' not 'active'.
  if (wa.some((word, i) => anotherForm(word, wb[i]) || anotherForm(wb[i], word))) return true;
  if (wa.length < 2) return false;
  return wa.some((word, i) => Math.max(word.length, wb[i].length) >= 3 && 1 - editDistance(confusable(word), confusable(wb[i])) / Math.max(word.length, wb[i].length, 1) < 0.5);
}

const NEGATIONS = ['un', 'in', 'im', 'dis', 'non', 'non-'];
const anotherForm = (word: string, other: string) => other.length >= 3 && /^\p{L}+$/u.test(other) &&
  (word === `${other}s` || word === `${other}es` || (other.length >= 4 && NEGATIONS.some((prefix) => word === `${prefix}${other}`)));

/** The words that are numbers, in order. */
const numbers = (text: string): string[] => text.split(' ').filter((word) => /^\d+$/.test(word));

/** The similarity a match needs: short texts must be (nearly) exact, longer ones may carry a slip or two. */
export function threshold(wanted: string): number {
  const length = normalise(wanted).length;
  if (length <= 3) return 0.95;
  return 0.8;
}

/**
 * Whether text read from the screen contains `wanted`, with the same
 * tolerance as matching: some run of the read words is similar enough. A
 * text caret or a border read as a stray character does not fail the check.
 */
export function containsText(read: string, wanted: string): boolean {
  if (normalise(read).includes(normalise(wanted))) return true;
  const words = read.split(/\s+/).filter(Boolean);
  const size = wanted.split(/\s+/).filter(Boolean).length;
  const needed = threshold(wanted);
  for (let length = Math.max(1, size - 1); length <= size + 1; length++) {
    for (let start = 0; start + length <= words.length; start++) {
      if (similarity(words.slice(start, start + length).join(' '), wanted) >= needed) return true;
    }
  }
  return false;
}
