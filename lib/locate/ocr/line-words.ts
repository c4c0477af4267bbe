import type { Screen } from '../../types/screen';
import type { TextLine } from './paddle';
import type { OcrWord } from './tesseract';
import { iconRead } from './icon-read';
import { median } from '../../util/median';

/**
 * From a recognised line (its characters, each where its peak stood) to
 * words with boxes, by the line's own pixels: where its ink is, and where the
 * gaps between words are.
 */
/** Characters this many times further apart than the line's usual step may be two words. */
const WORD_STEP = 1.4;
/** A gap this many times the line's usual gap between letters ends a word on its own. */
const WIDE_GAP = 3;

/**
 * Characters into words. The recogniser often leaves out spaces, so a word
 * also ends where the line's pixels show a gap as wide as a space and either
 * the recogniser's characters stand further apart than usual there or the gap
 * is far wider than the line's gaps between letters (letter-spaced capitals
 * have wide gaps everywhere). Each word's box is its ink.
 */
export function toWords(screen: Screen, chars: { char: string; p: number; x: number }[], line: TextLine): OcrWord[] {
  const visible = chars.filter((c) => c.char !== ' ');
  const charXs = visible.map((c) => c.x);
  const ink = inkOf(screen, line, charXs);
  const [y0, y1] = inkRows(screen, line, ink);
  const runs = inkRuns(screen, line, ink, [y0, y1], charXs);
  if (!runs.length) return [];
  const usualStep = median(visible.slice(1).map((c, i) => c.x - visible[i].x), Infinity);
  const words: { chars: typeof chars; x0: number; x1: number }[] = [];
  let current: (typeof words)[number] | null = null;
  let run = -1;
  let previous: (typeof chars)[number] | null = null;
  for (const c of chars) {
    if (c.char === ' ') {
      current = null;
      continue;
    }
    const at = nearestRun(runs, c.x);
    const apart = !!previous && c.x - previous.x >= usualStep * WORD_STEP;
    previous = c;
    if (!current || (at !== run && (apart || runs.slice(run + 1, at + 1).some((r) => r.wide)))) {
      current = { chars: [], x0: runs[at].x0, x1: runs[at].x1 };
      words.push(current);
    }
    current.chars.push(c);
    current.x0 = Math.min(current.x0, runs[at].x0);
    current.x1 = Math.max(current.x1, runs[at].x1);
    run = at;
  }
  // Two words the recogniser split inside one run of ink share it: cut it at their boundary.
  for (let i = 1; i < words.length; i++) {
    if (words[i].x0 < words[i - 1].x1) {
      const cut = (words[i - 1].chars[words[i - 1].chars.length - 1].x + words[i].chars[0].x) / 2;
      words[i - 1].x1 = Math.min(words[i - 1].x1, cut);
      words[i].x0 = Math.max(words[i].x0, cut);
    }
  }
  return words.map((w) => ({
    text: w.chars.map((c) => c.char).join(''),
    confidence: Math.round((100 * w.chars.reduce((sum, c) => sum + c.p, 0)) / w.chars.length),
    x: w.x0, y: y0, width: Math.max(1, w.x1 - w.x0), height: Math.max(1, y1 - y0),
  })).filter((w) => !iconRead(w));
}

/** The line's background grey (the commonest along its edge) and how far from it a pixel must be to be ink. */
interface Ink { background: number; contrast: number }

function inkOf(screen: Screen, line: TextLine, charXs: number[] = []): Ink {
  const counts = new Uint32Array(256);
  const x0 = Math.floor(line.x), x1 = Math.min(screen.width - 1, Math.ceil(line.x + line.width) - 1);
  const y0 = Math.floor(line.y), y1 = Math.min(screen.height - 1, Math.ceil(line.y + line.height) - 1);
  for (let x = x0; x <= x1; x++) { counts[grey(screen, x, y0)]++; counts[grey(screen, x, y1)]++; }
  for (let y = y0; y <= y1; y++) { counts[grey(screen, x0, y)]++; counts[grey(screen, x1, y)]++; }
  let background = 0;
  for (let v = 1; v < 256; v++) if (counts[v] > counts[background]) background = v;
  // Faint text (a light placeholder) is ink too: the threshold follows the text's strongest contrast. Where the
  // recogniser's characters stand, that is the usual contrast at them, so that a black checkbox on the line does not
  // make its grey label (a disabled one) too faint to count.
  const strongestIn = (from: number, to: number) => {
    let strongest = 0;
    for (let y = y0; y <= y1; y++) for (let x = Math.max(x0, from); x <= Math.min(x1, to); x++) strongest = Math.max(strongest, Math.abs(grey(screen, x, y) - background));
    return strongest;
  };
  const strongest = charXs.length ? median(charXs.map((x) => strongestIn(Math.round(x) - CHAR_REACH, Math.round(x) + CHAR_REACH))) : strongestIn(x0, x1);
  return { background, contrast: Math.max(10, strongest * 0.4) };
}

/** How far either side of a recognised character's place its ink is looked for, in pixels. */
const CHAR_REACH = 2;

function grey(screen: Screen, x: number, y: number): number {
  const i = (y * screen.width + x) * 4;
  const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
  return (screen.data[i + r] * 77 + screen.data[i + 1] * 150 + screen.data[i + b] * 29) >> 8;
}

/**
 * Columns of the line with ink, in runs split by gaps as wide as a space: at
 * least a quarter of the text's height, and twice the line's usual gap
 * between letters (letter-spaced capitals have wide ones).
 */
function inkRuns(screen: Screen, line: TextLine, ink: Ink, [y0, y1]: [number, number], charXs: number[] = []): Run[] {
  const x0 = Math.floor(line.x), x1 = Math.min(screen.width, Math.ceil(line.x + line.width));
  const pieces: { x0: number; x1: number }[] = [];
  for (let x = x0; x < x1; x++) {
    let inked = false;
    for (let y = y0; y < y1 && !inked; y++) inked = Math.abs(grey(screen, x, y) - ink.background) > ink.contrast;
    if (!inked) continue;
    const last = pieces[pieces.length - 1];
    if (last && last.x1 === x) last.x1 = x + 1;
    else pieces.push({ x0: x, x1: x + 1 });
  }
  // The gaps between letters are measured where the recogniser's characters stand: icons on the line (a toolbar's,
  // before a path bar's 'usr' 'share') have gaps of their own, wide enough to pass for letters' and join two words.
  const [from, to] = charXs.length ? [Math.min(...charXs) - (y1 - y0), Math.max(...charXs) + (y1 - y0)] : [-Infinity, Infinity];
  const usual = median(pieces.slice(1).flatMap((p, i) => (pieces[i].x0 >= from && p.x1 <= to ? [p.x0 - pieces[i].x1] : [])));
  const space = Math.max(2, (y1 - y0) * 0.25, 2 * usual);
  const runs: Run[] = [];
  for (const piece of pieces) {
    const last = runs[runs.length - 1];
    if (last && piece.x0 - last.x1 < space) last.x1 = piece.x1;
    else runs.push({ ...piece, wide: !!last && piece.x0 - last.x1 >= Math.max(space, WIDE_GAP * usual) });
  }
  return runs;
}

/** A run of ink; `wide`: the gap before it is wide enough to end a word whatever the characters say. */
interface Run { x0: number; x1: number; wide?: boolean }

/** The rows of the line that hold ink: the text's own height, without the detector's margin. */
function inkRows(screen: Screen, line: TextLine, ink: Ink): [number, number] {
  const x0 = Math.floor(line.x), x1 = Math.min(screen.width, Math.ceil(line.x + line.width));
  const y0 = Math.floor(line.y), y1 = Math.min(screen.height, Math.ceil(line.y + line.height));
  let top = -1, bottom = -1;
  for (let y = y0; y < y1; y++) {
    let inked = false;
    for (let x = x0; x < x1 && !inked; x++) inked = Math.abs(grey(screen, x, y) - ink.background) > ink.contrast;
    if (inked) {
      if (top < 0) top = y;
      bottom = y + 1;
    }
  }
  return top < 0 ? [y0, y1] : [top, bottom];
}

function nearestRun(runs: { x0: number; x1: number }[], x: number): number {
  let best = 0, distance = Infinity;
  runs.forEach((r, i) => {
    const d = x < r.x0 ? r.x0 - x : x >= r.x1 ? x - r.x1 + 1 : 0;
    if (d < distance) { distance = d; best = i; }
  });
  return best;
}

/**
 * A line cut between words into pieces at most `maxWidth` pixels wide (the
 * recogniser reads a squeezed line badly); a word wider than that is cut where
 * it must.
 */
export function splitLong(screen: Screen, line: TextLine, maxWidth: number): TextLine[] {
  if (line.width <= maxWidth) return [line];
  const ink = inkOf(screen, line);
  const runs = inkRuns(screen, line, ink, inkRows(screen, line, ink));
  const pieces: TextLine[] = [];
  let start = line.x;
  const end = line.x + line.width;
  while (end - start > maxWidth) {
    // The last gap between runs that keeps the piece within the width, else a hard cut.
    const fits = runs.filter((r, i) => i > 0 && r.x0 > start + 1 && r.x0 <= start + maxWidth);
    const next = fits.length ? fits[fits.length - 1] : null;
    const before = next ? runs[runs.indexOf(next) - 1] : null;
    // Halfway across the gap, but always past where the piece starts: a run that began before it must not turn the cut back.
    const middle = next && before ? (before.x1 + next.x0) / 2 : start + maxWidth;
    const cut = middle > start + 1 ? middle : next!.x0;
    pieces.push({ ...line, x: start, width: cut - start });
    start = cut;
  }
  pieces.push({ ...line, x: start, width: end - start });
  return pieces;
}
