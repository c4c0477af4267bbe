import { Box, right } from '../geometry';
import type { Screen } from '../../types/screen';
import { cropGrey, GreyImage } from './preprocess';
import { prepareScreen } from './prepare-thread';
import type { KeyedPiece } from './bands';
import type { OcrReader, OcrWord, Reading } from './tesseract';
import { QUOTE_MARKS } from '../../util/quotes';
import { iconRead } from './icon-read';
import { normalise, similarity, threshold } from '../text-match';
import { splitSpread } from './spread';
import { splitRunOn } from './run-on';

/**
 * What the OCR engine knows about one screen: its grey pixels (for finding
 * controls), the prepared image and the words on it, grouped into lines.
 * Computed once per screen buffer and shared by find, findAll and verify.
 */
export interface Line {
  words: OcrWord[];
}

export interface Analysis {
  grey: GreyImage;
  prepared: GreyImage;
  lines: Line[];
  /** Bands of text the deadline left unread: the screen was read in part. */
  unread: number;
  /** The lines a text detector found that the first read missed have been read (see gaps.ts). */
  gapsRead: boolean;
  /** The glyphs inside rings on the detector's lines have been read (see ringed.ts). */
  ringsRead?: boolean;
}

/** Reads the words of a screen, given also as prepared for tesseract and cut into pieces, until the deadline. */
export type ReadWords = (screen: Screen, prepared: GreyImage, deadline: number, pieces: KeyedPiece[]) => Promise<Reading>;

export interface TextMatch {
  box: Box;
  text: string;
  score: number;
  /** The run is a whole phrase, not part of a longer one ("Customers" vs "New customers"). */
  standalone: boolean;
  /**
   * Its neighbours stand a height or more away, farther than words of one
   * phrase: an item of a menu bar or a tab strip ('File  Edit  Options'), which
   * sit closer together than two phrases need to be.
   */
  setApart?: boolean;
  /** Mean tesseract confidence of the words, 0-100. */
  ocrConfidence: number;
}

/** How many screens' analyses SeenScreens keeps. */
const SCREENS_KEPT = 4;

/** A whole screen's first reading, before any find's closer look: what every capture of the same pixels starts from. */
interface FirstReading {
  grey: GreyImage;
  prepared: GreyImage;
  lines: Line[];
}

/**
 * What one engine has read, by capture and by pixels. Each capture's
 * analysis is kept while the capture is in use: the finds of one look share
 * it, and one read in part is read on at the next call. The first readings
 * of the last few whole screens are kept by their pixels: a screen captured
 * again unchanged (the next find on the same page, a waiting find's periodic
 * look, a page back where it was) is not prepared and read again. Each
 * capture starts an analysis of its own from that reading, as a new read
 * would, so that what one find looked at more closely does not change what
 * the next finds: the closer looks' own costly parts (the detector's lines,
 * lines read again) are kept by the pixels they read (gaps.ts, rereadLine).
 * Only whole readings are kept. An engine keeps its own: what a screen reads
 * as depends on the reader.
 */
export class SeenScreens {
  private byCapture = new WeakMap<Buffer, Promise<Analysis>>();
  private readonly kept = new Map<string, FirstReading>();

  analysis(screen: Screen, read: () => Promise<Analysis>): Promise<Analysis> {
    let pending = this.byCapture.get(screen.data);
    if (!pending) {
      pending = this.byPixels(screen, read);
      this.byCapture.set(screen.data, pending);
      pending.then((analysis) => { if (analysis.unread) this.byCapture.delete(screen.data); }, () => this.byCapture.delete(screen.data));
    }
    return pending;
  }

  private async byPixels(screen: Screen, read: () => Promise<Analysis>): Promise<Analysis> {
    const key = await pixelDigest(screen);
    const known = this.kept.get(key);
    if (known) {
      this.kept.delete(key); // re-insert: the map's order is its recency
      this.kept.set(key, known);
      return { ...known, unread: 0, gapsRead: false };
    }
    const fresh = await read();
    if (!fresh.unread) {
      this.kept.set(key, { grey: fresh.grey, prepared: fresh.prepared, lines: fresh.lines });
      while (this.kept.size > SCREENS_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    }
    return fresh;
  }

  /** Forgets every screen read: the next call reads its screen as never seen. */
  forget(): void {
    this.byCapture = new WeakMap();
    this.kept.clear();
  }
}

/** The screen's pixels' digest, worked out off the finder's thread (WebCrypto hashes on the thread pool). */
async function pixelDigest(screen: Screen): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', screen.data);
  return `${screen.width}x${screen.height}:${screen.format}:${Buffer.from(digest).toString('hex')}`;
}

/**
 * The screen's analysis, read until `deadline`. `seen`: what the engine read
 * before, of this capture and of these pixels; without it, the screen is read.
 */
export function analyse(screen: Screen, readWords: ReadWords, deadline = Infinity, seen?: SeenScreens): Promise<Analysis> {
  const read = () => readScreen(screen, readWords, deadline);
  return seen ? seen.analysis(screen, read) : read();
}

async function readScreen(screen: Screen, readWords: ReadWords, deadline: number): Promise<Analysis> {
  const { grey, prepared, pieces } = await prepareScreen(screen);
  const { words, unread } = await readWords(screen, prepared, deadline, pieces);
  return { grey, prepared, lines: groupLines(splitRunOn(splitSpread(words, prepared))), unread, gapsRead: false };
}

/** Words on one text line, left to right. */
export function groupLines(words: OcrWord[]): Line[] {
  // Punctuation-only "words" are borders and focus rings read as | [ ( . — not text; a '+' read inside its ring is.
  const sorted = words.filter((w) => w.enclosed || /[\p{L}\p{N}]/u.test(w.text)).sort((a, b) => a.y + a.height / 2 - (b.y + b.height / 2));
  const lines: Line[] = [];
  for (const word of sorted) {
    const middle = word.y + word.height / 2;
    // The nearest line it fits, not the first: a tall box (a value read with its input's border) fits two lines,
    // and taking the first would pull the words of the label beside it into the line above.
    let line: Line | null = null;
    let nearest = Infinity;
    for (const l of lines) {
      const last = l.words[l.words.length - 1];
      const off = Math.abs(last.y + last.height / 2 - middle);
      if (off < Math.max(4, Math.min(last.height, word.height) * 0.5) && off < nearest) [line, nearest] = [l, off];
    }
    if (line) line.words.push(word);
    else lines.push({ words: [word] });
  }
  for (const line of lines) line.words.sort((a, b) => a.x - b.x);
  return lines;
}

const boxOf = (words: OcrWord[]): Box => {
  const x = Math.min(...words.map((w) => w.x));
  const y = Math.min(...words.map((w) => w.y));
  return { x, y, width: Math.max(...words.map((w) => w.x + w.width)) - x, height: Math.max(...words.map((w) => w.y + w.height)) - y };
};

/**
 * Every place the wanted text is read: runs of neighbouring words on a line
 * whose joined text is similar enough. Overlapping runs keep the best.
 */
/** What a whole phrase scores above the same words inside a longer one. */
export const STANDALONE_BONUS = 0.03;

/** What a copy loses that lacks the symbols or the quotes asked for: the word 'Button' when '<button>' is asked for. */
const OTHER_SYMBOLS = 0.05;

/** How much normalising (case, edge punctuation, OCR confusions) can bring two lengths closer. */
const LENGTH_SLACK = 0.1;

export function findText(lines: Line[], wanted: string, { everyCopy = false }: { everyCopy?: boolean } = {}): TextMatch[] {
  const wantedWords = wanted.trim().split(/\s+/).length;
  const oneWord = wantedWords === 1;
  const wantedLength = normalise(wanted).length;
  const needed = threshold(wanted);
  const matches: TextMatch[] = [];
  for (const { words } of lines) {
    for (let i = 0; i < words.length; i++) {
      for (let n = 1; n <= Math.min(words.length - i, wantedWords + 1); n++) {
        const run = words.slice(i, i + n);
        if (n > 1) {
          // A glyph in its own ring is a whole label: no phrase runs through it. It may end one: a label's count on its badge ('Item 2').
          if (run.slice(0, -1).some((w) => w.enclosed)) break;
          if (apartInLine(run[n - 2], run[n - 1])) break;
        }
        const text = run.map((w) => w.text).join(' ');
        // A run far longer or shorter than the wanted text cannot be similar enough: no need to measure it.
        // (Lengths as compared: 'Search...' is as long as 'Search'.)
        const length = normalise(text).length;
        if (1 - Math.abs(length - wantedLength) / Math.max(length, wantedLength, 1) < needed - LENGTH_SLACK) continue;
        // A word of monospace code is now and then read in two pieces a few pixels apart ('<but' 'ton>'): a one-word
        // text is also tried joined up.
        const pieces = n > 1 && oneWord && run.every((w, k) => k === 0 || w.x - right(run[k - 1]) <= Math.max(w.height, run[k - 1].height) * 0.6);
        const similar = pieces ? Math.max(similarity(text, wanted), similarity(run.map((w) => w.text).join(''), wanted)) : similarity(text, wanted);
        if (similar >= needed) {
          const standalone = !joined(words[i - 1], run[0]) && !joined(run[n - 1], words[i + n]);
          const setApart = standalone || (!joined(words[i - 1], run[0], ITEM_GAP) && !joined(run[n - 1], words[i + n], ITEM_GAP));
          // Among equally similar runs, prefer the exact spelling (capitals included), the symbols asked for ('<button>' in code over
          // the word 'Button' in a heading) and a whole phrase.
          const score = Math.min(1, similar - (text === wanted.trim() ? 0 : 0.01) - (otherCapitals(text, wanted) ? OTHER_CAPITALS : 0) -
            (keepsSymbols(text, wanted) && keepsQuotes(text, wanted) ? 0 : OTHER_SYMBOLS) - (standalone ? 0 : STANDALONE_BONUS));
          matches.push({ box: boxOf(run), text, score, standalone, setApart, ocrConfidence: run.reduce((s, w) => s + w.confidence, 0) / n });
        }
      }
    }
  }
  // Code runs its tokens together ('scope="col">Heading</th>'): a one-word text found nowhere whole is looked for among
  // them, and so is every copy of one whose copies are counted (an ordinal: the second 'class' of a code sample), and a
  // quoted one ('"table"': an attribute's value, where the word 'table' stands whole in the prose above).
  // So is a text of several words, whose ends code runs into its neighbours ('class="btn btn-primary">primary').
  if (everyCopy || !matches.length || QUOTED.test(wanted.trim())) {
    matches.push(...(oneWord ? tokensWithin(lines, wanted, needed) : codeRuns(lines, wanted, wantedWords, needed)));
  }
  // A label too long for its button or cell wraps: a text found on no one line is looked for across two.
  if (!oneWord && !matches.length) matches.push(...wrapped(lines, wanted, wantedWords, needed));
  matches.sort((a, b) => b.score - a.score);
  const kept: TextMatch[] = [];
  for (const m of matches) if (!kept.some((k) => overlaps(k.box, m.box))) kept.push(m);
  return kept;
}

/** How far under a line, in its heights, the next line of the same wrapped text starts: a line's spacing as text is set (word boxes hug the letters). */
const WRAP_GAP = 1.5;

/**
 * A text wrapped over two lines ('Create an' over 'Account!', in a narrow
 * button): a whole phrase on one line and a whole phrase on the line just
 * under it, about a line's spacing below and overlapping it across, not off
 * in another column. Each part stands apart from any words beside it, not in
 * the middle of a sentence, so a near phrase does not turn up by joining the
 * ends of two lines of a paragraph.
 */
function wrapped(lines: Line[], wanted: string, wantedWords: number, needed: number): TextMatch[] {
  // Every whole phrase short of the wanted text, boxed once: each pair is then a cheap comparison.
  const parts = lines.flatMap(({ words }) => wholeRuns(words, 1, wantedWords - 1)).map((run) => ({ run, box: boxOf(run) }));
  const found: TextMatch[] = [];
  for (const head of parts) {
    for (const tail of parts) {
      if (head.run.length + tail.run.length !== wantedWords) continue;
      const below = tail.box.y - (head.box.y + head.box.height);
      if (below < -2 || below > head.box.height * WRAP_GAP || tail.box.x > right(head.box) || right(tail.box) < head.box.x) continue;
      const all = [...head.run, ...tail.run];
      const text = all.map((w) => w.text).join(' ');
      const similar = similarity(text, wanted);
      if (similar < needed) continue;
      found.push({ box: boxOf(all), text, score: similar, standalone: true, setApart: true, ocrConfidence: all.reduce((sum, w) => sum + w.confidence, 0) / all.length });
    }
  }
  return found;
}

/** The runs of `least` to `most` words on a line that are whole phrases: joined inside, set apart from the words either side. */
function wholeRuns(words: OcrWord[], least: number, most: number): OcrWord[][] {
  const runs: OcrWord[][] = [];
  for (let i = 0; i < words.length; i++) {
    if (joined(words[i - 1], words[i])) continue;
    for (let n = 1; n <= most && i + n <= words.length; n++) {
      const run = words.slice(i, i + n);
      if (run[n - 1].enclosed || (n > 1 && !joined(run[n - 2], run[n - 1]))) break;
      if (n >= least && !joined(run[n - 1], words[i + n])) runs.push(run);
    }
  }
  return runs;
}

/**
 * What a copy in other capitals loses, when the text is asked for in mixed
 * case: 'Tables' is spelled so on purpose, and the caption 'FORMS & TABLES'
 * ranks below the link 'Tables' even when OCR read the caption more surely.
 * It still matches where it is the only copy (CSS often shows labels in
 * capitals).
 */
const OTHER_CAPITALS = 0.02;

export function otherCapitals(read: string, wanted: string): boolean {
  const letters = (text: string) => text.replace(/[^\p{L}]/gu, '');
  const [got, asked] = [letters(read), letters(wanted)];
  return /\p{Lu}/u.test(asked) && /\p{Ll}/u.test(asked) && got !== asked && got.toLowerCase() === asked.toLowerCase();
}

/** Where code's tokens meet: markup and call punctuation (quotes stay with their token: '"col"'). */
const CODE_BOUNDARY = /[=<>/(){};,]/;
const DIGIT = /[0-9]/;
/** Two characters either side of a turn from digits to letters: '100text' (two badges read as one word), not 'x86' or 'H2O'. */
const TURN = /[0-9]{2}\p{L}{2}|\p{L}{2}[0-9]{2}/u;

/**
 * The tokens of words read from code, or of words that run digits into
 * letters ('100text': two badges side by side, read as one word), that match
 * a one-word text, each boxed by its share of the word's characters (exact in
 * monospace, close enough elsewhere). A token is never a whole phrase: it
 * scores as one that is not standalone.
 */
function tokensWithin(lines: Line[], wanted: string, needed: number): TextMatch[] {
  const found: TextMatch[] = [];
  for (const { words } of lines) {
    for (const word of words) {
      if (word.enclosed || (!CODE_BOUNDARY.test(word.text) && !TURN.test(word.text))) continue;
      const characters = [...word.text];
      const share = word.width / characters.length;
      for (const [start, end] of tokenSpans(characters)) {
        const token = characters.slice(start, end).join('');
        const similar = token && token.length < characters.length ? similarity(token, wanted) : 0;
        if (similar < needed) continue;
        const box = { x: word.x + start * share, y: word.y, width: (end - start) * share, height: word.height };
        found.push({ box, text: token, score: tokenScore(similar, token, wanted), standalone: false, setApart: false, ocrConfidence: word.confidence });
      }
    }
  }
  return found;
}

/**
 * The runs of words read from code that match a text of several words once
 * their first word is cut after its last piece of code punctuation and
 * their last word before its first: an attribute's value of two classes,
 * whose first word OCR reads joined to 'class=' and whose last runs on
 * into '>primary'. The words between are whole, and hold no such
 * punctuation. Boxed as tokens are, and never a whole phrase.
 */
function codeRuns(lines: Line[], wanted: string, wantedWords: number, needed: number): TextMatch[] {
  const found: TextMatch[] = [];
  for (const { words } of lines) {
    for (let i = 0; i + wantedWords <= words.length; i++) {
      const run = words.slice(i, i + wantedWords);
      const inner = run.slice(1, -1);
      if (run.some((w) => w.enclosed) || inner.some((w) => CODE_BOUNDARY.test(w.text))) continue;
      if (run.some((w, k) => k > 0 && apartInLine(run[k - 1], w))) continue;
      const [head, tail] = [[...run[0].text], [...run[wantedWords - 1].text]];
      let start = head.length;
      while (start > 0 && !CODE_BOUNDARY.test(head[start - 1])) start--;
      const cut = tail.findIndex((c) => CODE_BOUNDARY.test(c));
      const to = cut < 0 ? tail.length : cut;
      // Nothing cut is a run the whole-word search has measured; nothing left of an end is no run.
      if ((start === 0 && to === tail.length) || start >= head.length || to === 0) continue;
      const text = [head.slice(start).join(''), ...inner.map((w) => w.text), tail.slice(0, to).join('')].join(' ');
      const similar = similarity(text, wanted);
      if (similar < needed) continue;
      const [first, last] = [run[0], run[wantedWords - 1]];
      const x = first.x + (start * first.width) / head.length;
      const box = boxOf(run);
      found.push({ box: { ...box, x, width: last.x + (to * last.width) / tail.length - x }, text, score: tokenScore(similar, text, wanted), standalone: false, setApart: false, ocrConfidence: run.reduce((sum, w) => sum + w.confidence, 0) / wantedWords });
    }
  }
  return found;
}

/** A piece of code is never a whole phrase, and loses what any copy loses without the quotes asked for. */
const tokenScore = (similar: number, read: string, wanted: string) => similar - STANDALONE_BONUS - (keepsQuotes(read, wanted) ? 0 : OTHER_SYMBOLS);

/** Two neighbouring words too far apart on a line to be one phrase: more than two and a half heights between them. */
const apartInLine = (before: OcrWord, after: OcrWord) => after.x - right(before) > Math.max(before.height, after.height) * 2.5;

/** Where a word's tokens start and end: cut at code's punctuation (dropped), and between runs of two or more digits and letters. */
function tokenSpans(characters: string[]): [number, number][] {
  const spans: [number, number][] = [];
  const run = (from: number, step: number, test: (c: string) => boolean) => {
    let n = 0;
    for (let k = from; k >= 0 && k < characters.length && test(characters[k]); k += step) n++;
    return n;
  };
  const isDigit = (c: string) => DIGIT.test(c);
  const isLetter = (c: string) => /\p{L}/u.test(c);
  let start = 0;
  for (let i = 0; i <= characters.length; i++) {
    const punctuation = i < characters.length && CODE_BOUNDARY.test(characters[i]);
    const turn = i > start && i < characters.length && ((isDigit(characters[i - 1]) && isLetter(characters[i]) && run(i - 1, -1, isDigit) >= 2 && run(i, 1, isLetter) >= 2) ||
      (isLetter(characters[i - 1]) && isDigit(characters[i]) && run(i - 1, -1, isLetter) >= 2 && run(i, 1, isDigit) >= 2));
    if (i < characters.length && !punctuation && !turn) continue;
    spans.push([start, i]);
    start = punctuation ? i + 1 : i;
  }
  return spans;
}

/** Whether a read shows every symbol the wanted text has ('<', '#', '!', ':'), apart from dots, commas and quotes. */
export function keepsSymbols(read: string, wanted: string): boolean {
  const symbols = wanted.replace(new RegExp(`[\\p{L}\\p{N}\\s.,${QUOTE_MARKS}]`, 'gu'), '');
  return [...symbols].every((symbol) => read.includes(symbol));
}

/** Whether a read is quoted where the wanted text is: '"tab-item"' asked for is the attribute value in code, not the word in prose. */
export function keepsQuotes(read: string, wanted: string): boolean {
  return !QUOTED.test(wanted.trim()) || QUOTED.test(read.trim());
}

const QUOTED = new RegExp(`^[${QUOTE_MARKS}].*[${QUOTE_MARKS}]$`, 'u');

/**
 * Two neighbouring words belong to one phrase when the gap between them is
 * under 1.5 heights (one height for a lone character: an icon read as 'S'
 * stands further from its label than a word from the next). An icon read as a
 * letter or two, unsurely ('BB' beside 'Layouts'), joins nothing, nor does a
 * glyph read inside its own ring (page numbers side by side).
 */
function joined(left: OcrWord | undefined, next: OcrWord | undefined, wordGap = 1.5): boolean {
  if (!left || !next || iconRead(left) || iconRead(next) || left.enclosed || next.enclosed) return false;
  const reach = left.text.length === 1 || next.text.length === 1 ? Math.min(1, wordGap) : wordGap;
  return next.x - right(left) <= Math.max(left.height, next.height) * reach;
}

/** The gap, in heights, under which words are one phrase even among the items of a bar: a few spaces' width. */
const ITEM_GAP = 0.9;

function overlaps(a: Box, b: Box): boolean {
  const w = Math.min(right(a), right(b)) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 && w * h > 0.3 * Math.min(a.width * a.height, b.width * b.height);
}

/**
 * Lines where the wanted text may have been misread (a partly similar run,
 * or, unless a text detector's look already read those again, words
 * tesseract was unsure of), to read again closer up.
 */
export function suspectLines(lines: Line[], wanted: string, options: { unsure: boolean; least?: number } = { unsure: true }, limit = 6): Box[] {
  const scored: { box: Box; score: number }[] = [];
  for (const { words } of lines) {
    let best = 0;
    for (const w of words) best = Math.max(best, similarity(w.text, wanted.split(/\s+/)[0]), similarity(w.text, wanted));
    const unsure = options.unsure && words.some((w) => w.confidence < 60);
    if (best >= (options.least ?? 0.45) || unsure) scored.push({ box: boxOf(words), score: best + (unsure ? 0.2 : 0) });
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, limit).map((s) => s.box);
}

/** Lines read again, by the prepared screen they were read on and their box: a screen seen again is not read again line by line either. */
const reread = new WeakMap<GreyImage, Map<string, OcrWord[]>>();

/** Reads a region again at twice the size as a single line (PSM 7); words come back in screen coordinates. */
export async function rereadLine(prepared: GreyImage, box: Box, reader: { readCrop: OcrReader['readCrop'] }, deadline = Infinity): Promise<OcrWord[]> {
  const key = `${box.x},${box.y},${box.width},${box.height}`;
  const known = reread.get(prepared)?.get(key);
  if (known) return known;
  const region = { x: Math.max(0, box.x - 6), y: Math.max(0, box.y - 5), width: box.width + 12, height: box.height + 10 };
  const crop = cropGrey(prepared, region, 2);
  const words = (await reader.readCrop(crop, '7', deadline)).map((w) => ({ ...w, x: region.x + w.x / 2, y: region.y + w.y / 2, width: w.width / 2, height: w.height / 2 }));
  // Nothing read past the deadline may be a read that never ran (its turn came too late): not kept.
  if (words.length || Date.now() < deadline) {
    if (!reread.has(prepared)) reread.set(prepared, new Map());
    reread.get(prepared)!.set(key, words);
  }
  return words;
}

/** Every phrase on the screen (words on a line closer than 1.5 heights), leaving out the words inside `exclude`. */
export function phrases(lines: Line[], exclude?: Box): TextMatch[] {
  const out: TextMatch[] = [];
  const excluded = (w: OcrWord) => !!exclude && w.x + w.width / 2 >= exclude.x && w.x + w.width / 2 < right(exclude) &&
    w.y + w.height / 2 >= exclude.y && w.y + w.height / 2 < exclude.y + exclude.height;
  for (const { words } of lines) {
    let run: OcrWord[] = [];
    const flush = () => {
      if (run.length) out.push({ box: boxOf(run), text: run.map((w) => w.text).join(' '), score: 1, standalone: true, ocrConfidence: run.reduce((s, w) => s + w.confidence, 0) / run.length });
      run = [];
    };
    for (const word of words) {
      if (excluded(word)) {
        flush();
        continue;
      }
      if (!joined(run[run.length - 1], word)) flush();
      run.push(word);
    }
    flush();
  }
  return out;
}
