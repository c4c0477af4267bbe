import type { Screen } from '../../types/screen';
import { centerX, centerY, contains } from '../geometry';
import { Analysis, groupLines } from './analysis';
import type { GreyImage } from './preprocess';
import type { PaddleModels, TextLine } from './paddle';
import type { OcrWord } from './tesseract';

/**
 * Tesseract's layout analysis misses lines that a text detector sees: white
 * on a coloured button or sidebar, a light placeholder, a badge's digits.
 * When a find comes up short, the detector's lines that the first read left
 * uncovered, or read unsure, are read again (by the PaddleOCR recogniser, or
 * by tesseract line by line), and those words replace whatever tesseract made
 * of them. Done once per screen (lines too narrow for a find's text wait for
 * a find that needs them): the analysis is shared by every later find on it.
 */
/** A line is read well enough when sure words span this share of its width. */
const COVERED = 0.5;
/** Tesseract words below this confidence do not count as covering their line. */
const SURE = 60;
/**
 * On a short line (a word or two: a badge, a button) the bar is higher: a pill
 * read as 'erm' at 71 hides 'Danger', and reading a short line again is cheap.
 */
const SURE_SHORT = 75;
/** A line at most this many of its heights wide is short. */
const SHORT_LINE = 6;
/**
 * Characters are wider than this share of their line's detected height (about
 * half of a narrow character's width): a line narrower than that many for the
 * text looked for cannot hold it.
 */
const NARROWEST_CHARACTER = 0.15;

/** Reads lines of a screen into words, in screen pixels; lines left at the deadline, or once `gone` is aborted, come back empty. */
export type LineReader = (screen: Screen, lines: TextLine[], deadline: number, gone?: AbortSignal) => Promise<OcrWord[][]>;

/**
 * Reads the lines the detector finds and the first read missed. `gone`
 * aborted (the screen has moved, and no one waits for this read) stops it
 * as the deadline does.
 */
export async function readGaps(analysis: Analysis, screen: Screen, models: PaddleModels, readLines: LineReader, deadline: number, shortest = 0, gone?: AbortSignal): Promise<void> {
  if (analysis.gapsRead || Date.now() >= deadline || gone?.aborted) return;
  // Not detected, for a look left before the detection began (this one's, or another's it shared).
  const detected = (await detectedLines(analysis, screen, models, gone)) ?? (gone?.aborted ? null : await detectedLines(analysis, screen, models, gone));
  // Left meanwhile: the lines, once detected, stay for the screen's next look.
  if (!detected || gone?.aborted) return;
  const words = analysis.lines.flatMap((l) => l.words);
  const gaps = detected.filter((line) => !covered(line, words));
  // A line too narrow for the text looked for is left for a later find that may need it.
  const wanted = gaps.filter((line) => line.width >= NARROWEST_CHARACTER * line.height * shortest);
  if (Date.now() < deadline && wanted.length) {
    const read = await readLines(screen, wanted, deadline, gone);
    // Read in part: nothing is replaced, and the next look reads the gaps again.
    if (Date.now() >= deadline || gone?.aborted) return;
    // A line keeps tesseract's words when the recogniser was less sure of its own.
    const better = wanted.map((line, i) => meanConfidence(read[i]) >= meanConfidence(words.filter((w) => holds(line, w))));
    const kept = words.filter((w) => !wanted.some((line, i) => better[i] && holds(line, w)));
    analysis.lines = groupLines([...kept, ...read.filter((_, i) => better[i]).flat()]);
  }
  analysis.gapsRead = wanted.length === gaps.length;
}

/** Detections by the screen they ran on: its grey image, which every analysis of the same pixels shares (SeenScreens). */
const detections = new WeakMap<GreyImage, Promise<TextLine[] | null>>();

/**
 * The detector's lines of the analysed screen, detected once: a detection,
 * once begun, runs to its end (the models cannot stop a run), and is kept
 * whether or not the look that began it is still waiting. Null when `gone`
 * was aborted before it began; the next look begins one.
 */
function detectedLines(analysis: Analysis, screen: Screen, models: PaddleModels, gone?: AbortSignal): Promise<TextLine[] | null> {
  const { grey } = analysis;
  let detection = detections.get(grey);
  if (!detection) {
    const begun = models.detect(screen, undefined, gone);
    const undone = () => { if (detections.get(grey) === begun) detections.delete(grey); };
    begun.then((lines) => { if (!lines) undone(); }, undone);
    detections.set(grey, begun);
    detection = begun;
  }
  return detection;
}

/** Whether the text detector has looked at the analysed screen's pixels (or is looking). */
export function detectorLooked(analysis: Analysis): boolean {
  return detections.has(analysis.grey);
}

/**
 * Every word of the screen from the detector and recogniser alone; past the
 * deadline, or once `gone` says the screen has moved (no one waits for the
 * read any more), the rest of the lines count as unread.
 */
export async function readAllLines(screen: Screen, models: PaddleModels, deadline: number, gone?: AbortSignal): Promise<{ words: OcrWord[]; unread: number }> {
  const lines = await models.detect(screen, undefined, gone);
  if (!lines) return { words: [], unread: 1 };
  const words = await models.recognise(screen, lines, deadline, gone);
  return { words: words.flat(), unread: Date.now() >= deadline || gone?.aborted ? 1 : 0 };
}

/** Sure words span most of the line and reach both its ends: 'PROFILE' alone does not cover 'USER PROFILE'. */
function covered(line: TextLine, words: OcrWord[]): boolean {
  // The detector's box is its text grown by about a third of its height each side.
  const margin = 0.31 * line.height;
  const [left, right] = [line.x + margin, line.x + line.width - margin];
  let span = 0, first = Infinity, last = -Infinity;
  const sure = line.width <= SHORT_LINE * line.height ? SURE_SHORT : SURE;
  for (const w of words) {
    if (w.confidence < sure || !holds(line, w)) continue;
    span += Math.min(w.x + w.width, right) - Math.max(w.x, left);
    first = Math.min(first, w.x);
    last = Math.max(last, w.x + w.width);
  }
  const reach = line.height * 0.7;
  return span >= (right - left) * COVERED && first <= left + reach && last >= right - reach;
}

function meanConfidence(words: OcrWord[]): number {
  return words.length ? words.reduce((sum, w) => sum + w.confidence, 0) / words.length : -1;
}

function holds(line: TextLine, w: OcrWord): boolean {
  return contains(line, centerX(w), centerY(w));
}
