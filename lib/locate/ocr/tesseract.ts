import fs from 'fs';
import os from 'os';
import path from 'path';
import { createHash } from 'crypto';
import { createWorker, PSM, Worker } from 'tesseract.js';
import { GreyImage, INK, toPgm } from './preprocess';

/**
 * Reading words off a prepared screen, fast:
 * - warm tesseract.js workers, fully offline (the English model comes from
 *   Debian's tesseract-ocr-eng or @tesseract.js-data/eng; nothing is
 *   downloaded or cached to disk);
 * - the screen is cut into horizontal bands of text at blank rows, and the
 *   words of each band are remembered by the band's pixels, so the parts of a
 *   screen that did not change are never read twice;
 * - a tall band is cut at its blank rows, between lines of text, so that the
 *   screen falls into pieces small enough to share out;
 * - pieces not seen before are stacked into chunks of about equal ink, which
 *   the workers (one per core, at most two) take in turn until the deadline:
 *   both workers stay busy to the end, a screen full of text is read in part,
 *   never for longer than the find may take, and the next look reads on where
 *   this one stopped.
 */
export interface OcrWord {
  /** Read inside a ring of its own (a page number): a whole label, never part of a neighbour's phrase. */
  enclosed?: boolean;
  text: string;
  /** 0-100, tesseract's own confidence. */
  confidence: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

const BAND_PAD = 3;
const BAND_GAP = 12;
const MEMO_LIMIT = 4000;
/**
 * Inked pixels one tesseract call reads at most: a UI screen holds 15,000 to
 * 40,000, a page of small text over 200,000, which takes tesseract seconds.
 */
const CHUNK_INK = 30_000;
/** Rows of a band too dense for one call, per slice: it is cut between its lines. */
const SLICE_ROWS = 120;
/**
 * Ink a piece of a band may hold before it is cut at a blank row: a screen's
 * text falls into a handful of pieces, which the workers share evenly
 * (tesseract's time follows the ink it reads, not the rows).
 */
const PIECE_INK = 4_000;
/**
 * A row is blank when all of it is near white: between lines of text, not
 * through a word or a box's sides, and not through grey that tesseract, which
 * sets its own black level per image, might read as ink in one piece and not
 * in the other (a window's edge on a grey desktop read as '|').
 */
const BLANK_ROW = 235;
/** The fewest rows a piece has: a line of text with its margins. */
const PIECE_MIN_ROWS = 16;
/** Chunks per worker a screen is shared out in: the one that finishes first takes the next. */
const CHUNKS_PER_WORKER = 2;

/** What one read got: the words, and how many bands the deadline left unread. */
export interface Reading {
  words: OcrWord[];
  unread: number;
}

/**
 * Debian's tesseract-ocr-eng holds tessdata_fast's English model, which reads
 * a UI screen in about two thirds of the time of the npm package's model and
 * about as accurately; the npm package's is used where it is not installed
 * (a machine set up by hand). Both are read from disk, offline.
 */
const FAST_MODEL_FOLDER = '/usr/share/tesseract-ocr/5/tessdata';

export function englishModel(): { langPath: string; gzip: boolean } {
  if (fs.existsSync(path.join(FAST_MODEL_FOLDER, 'eng.traineddata'))) return { langPath: FAST_MODEL_FOLDER, gzip: false };
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const data = require('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
  return { langPath: data.langPath, gzip: data.gzip };
}

class WorkerSlot {
  private worker: Promise<Worker> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  private start(): Promise<Worker> {
    if (!this.worker) {
      const data = englishModel();
      this.worker = createWorker('eng', 1, { langPath: data.langPath, gzip: data.gzip, cacheMethod: 'none' }).catch((error) => {
        this.worker = null;
        throw new Error(`The OCR engine could not start: ${(error as Error).message}. The English model is read from ${data.langPath}.`);
      });
    }
    return this.worker;
  }

  /** Reads one image; calls on one slot run one at a time, and one whose turn comes after `deadline` reads nothing. */
  read(image: GreyImage, psm: string, deadline = Infinity): Promise<OcrWord[]> {
    const job = this.queue.then(async () => {
      if (Date.now() >= deadline) return [];
      const worker = await this.start();
      // Preprocessing already made all text dark on white: tesseract's own inverted retry only costs time.
      await worker.setParameters({ tessedit_pageseg_mode: psm as PSM, preserve_interword_spaces: '1', user_defined_dpi: '96', tessedit_do_invert: '0' });
      const { data } = await worker.recognize(toPgm(image), {}, { tsv: true, text: false, blocks: false, hocr: false });
      return parseTsv(data.tsv ?? '');
    });
    this.queue = job.catch(() => undefined);
    return job;
  }

  async stop(): Promise<void> {
    const current = this.worker;
    this.worker = null;
    if (current) await (await current.catch(() => null))?.terminate();
  }
}

/** Words from tesseract's TSV (level 5 rows: left, top, width, height, conf, text). */
function parseTsv(tsv: string): OcrWord[] {
  const words: OcrWord[] = [];
  for (const row of tsv.split('\n')) {
    const cells = row.split('\t');
    if (cells[0] !== '5' || cells.length < 12) continue;
    const text = cells.slice(11).join('\t').trim();
    if (!text) continue;
    words.push({ text, confidence: Number(cells[10]), x: Number(cells[6]), y: Number(cells[7]), width: Number(cells[8]), height: Number(cells[9]) });
  }
  return words;
}

interface Band { y0: number; y1: number; key: string }

/** Runs of rows with ink, padded and merged when closer than BAND_GAP rows. */
export function findBands(image: GreyImage): { y0: number; y1: number }[] {
  const { width, height, data } = image;
  const inked: boolean[] = new Array(height);
  for (let y = 0; y < height; y++) {
    let any = false;
    for (let i = y * width, end = i + width; i < end; i++) {
      if (data[i] < INK) { any = true; break; }
    }
    inked[y] = any;
  }
  const bands: { y0: number; y1: number }[] = [];
  for (let y = 0; y < height; y++) {
    if (!inked[y]) continue;
    let end = y;
    while (end + 1 < height && inked[end + 1]) end++;
    const y0 = Math.max(0, y - BAND_PAD);
    const y1 = Math.min(height, end + 1 + BAND_PAD);
    const last = bands[bands.length - 1];
    if (last && y0 - last.y1 < BAND_GAP) last.y1 = y1;
    else bands.push({ y0, y1 });
    y = end;
  }
  return bands;
}

export class OcrReader {
  private readonly slots: WorkerSlot[];
  private readonly memo = new Map<string, OcrWord[]>();
  private nextSlot = 0;

  constructor(workers = Math.max(1, Math.min(2, os.cpus().length))) {
    this.slots = Array.from({ length: workers }, () => new WorkerSlot());
  }

  /** Every word on the prepared screen, in screen coordinates. */
  async read(image: GreyImage, deadline = Infinity): Promise<Reading> {
    const bands: Band[] = cutAtBlankRows(image, cutDenseBands(image, findBands(image))).map((b) => ({ ...b, key: bandKey(image, b.y0, b.y1) }));
    const fresh = bands.filter((b) => !this.memo.has(b.key));
    const unique = [...new Map(fresh.map((b) => [b.key, b])).values()];
    if (unique.length) await this.readBands(image, unique, deadline);
    const words: OcrWord[] = [];
    let unread = 0;
    for (const band of bands) {
      const known = this.memo.get(band.key);
      if (!known) {
        unread++;
        continue;
      }
      this.memo.delete(band.key); // re-insert: the memo's order is its recency
      this.memo.set(band.key, known);
      for (const w of known) words.push({ ...w, y: w.y + band.y0 });
    }
    while (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value as string);
    return { words, unread };
  }

  /** Reads one crop (e.g. a single control with PSM 7), without the memo; crops asked for together share the workers in turn. */
  readCrop(image: GreyImage, psm: '7' | '8' | '6' | '11', deadline = Infinity): Promise<OcrWord[]> {
    return this.slots[this.nextSlot++ % this.slots.length].read(image, psm, deadline);
  }

  /**
   * Chunks of about equal ink that each worker takes in turn until the
   * deadline, the inkiest first (a band that could not be cut, read last,
   * would keep one worker busy while the other waits): a screen full of text
   * is read in chunks of bounded ink, and one of a few lines is shared out
   * evenly.
   */
  private async readBands(image: GreyImage, bands: Band[], deadline: number): Promise<void> {
    const inks = bands.map((band) => inkIn(image, band.y0, band.y1));
    const total = inks.reduce((sum, ink) => sum + ink, 0);
    const most = Math.min(CHUNK_INK, Math.max(PIECE_INK, total / (this.slots.length * CHUNKS_PER_WORKER)));
    const chunks = inkChunks(bands, inks, most).sort((a, b) => b.ink - a.ink).map((chunk) => chunk.bands);
    await Promise.all(this.slots.map(async (slot) => {
      for (let chunk = chunks.shift(); chunk && Date.now() < deadline; chunk = chunks.shift()) {
        const { image: stacked, offsets } = stackBands(image, chunk);
        const words = await slot.read(stacked, '11');
        const perBand = chunk.map(() => [] as OcrWord[]);
        for (const word of words) {
          const middle = word.y + word.height / 2;
          const at = offsets.findIndex((o, k) => middle >= o && middle < o + (chunk[k].y1 - chunk[k].y0));
          if (at >= 0) perBand[at].push({ ...word, y: word.y - offsets[at] });
        }
        chunk.forEach((band, k) => this.memo.set(band.key, perBand[k]));
      }
    }));
  }

  /** Forgets every band read so far (benchmarks use it to measure a screen never seen). */
  forget(): void {
    this.memo.clear();
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.stop()));
  }
}

function inkIn(image: GreyImage, y0: number, y1: number): number {
  let count = 0;
  for (let i = y0 * image.width, end = y1 * image.width; i < end; i++) if (image.data[i] < INK) count++;
  return count;
}

/** Consecutive bands in chunks of at most `most` inked pixels (a denser band is a chunk alone). */
function inkChunks(bands: Band[], inks: number[], most: number): { bands: Band[]; ink: number }[] {
  const chunks: { bands: Band[]; ink: number }[] = [];
  bands.forEach((band, i) => {
    const last = chunks[chunks.length - 1];
    if (last && last.ink + inks[i] <= most) {
      last.bands.push(band);
      last.ink += inks[i];
    } else {
      chunks.push({ bands: [band], ink: inks[i] });
    }
  });
  return chunks;
}

/** Cuts each band with more ink than one call reads into slices of about SLICE_ROWS, at its emptiest rows (between lines). */
export function cutDenseBands(image: GreyImage, bands: { y0: number; y1: number }[]): { y0: number; y1: number }[] {
  const cut: { y0: number; y1: number }[] = [];
  for (const band of bands) {
    let y0 = band.y0;
    if (inkIn(image, band.y0, band.y1) > CHUNK_INK) {
      while (band.y1 - y0 > SLICE_ROWS) {
        let at = y0 + SLICE_ROWS;
        for (let y = y0 + SLICE_ROWS / 2; y < y0 + SLICE_ROWS; y++) if (inkIn(image, y, y + 1) < inkIn(image, at, at + 1)) at = y;
        cut.push({ y0, y1: at });
        y0 = at;
      }
    }
    cut.push({ y0, y1: band.y1 });
  }
  return cut;
}

/**
 * Cuts each band with more ink than PIECE_INK at its blank rows, into pieces
 * of about PIECE_INK: a blank row lies between lines of text, so no word is
 * cut. The cut falls in the middle of a run of blank rows, so the text on
 * either side keeps its white margin, and no piece is thinner than a line of
 * text with its margins. A band with no blank row stays whole.
 */
export function cutAtBlankRows(image: GreyImage, bands: { y0: number; y1: number }[]): { y0: number; y1: number }[] {
  const cut: { y0: number; y1: number }[] = [];
  for (const band of bands) {
    let y0 = band.y0, ink = 0, runStart = -1, at = -1;
    for (let y = band.y0; y < band.y1; y++) {
      const row = inkIn(image, y, y + 1);
      if (blankRow(image, y)) {
        if (runStart < 0) runStart = y;
        const middle = Math.floor((runStart + y) / 2);
        if (middle - y0 >= PIECE_MIN_ROWS && band.y1 - middle >= PIECE_MIN_ROWS) at = middle;
      } else {
        runStart = -1;
      }
      ink += row;
      if (ink > PIECE_INK && at > y0 && runStart < 0) {
        cut.push({ y0, y1: at });
        y0 = at;
        ink = inkIn(image, y0, y + 1);
        at = -1;
      }
    }
    cut.push({ y0, y1: band.y1 });
  }
  return cut;
}

function blankRow(image: GreyImage, y: number): boolean {
  for (let i = y * image.width, end = i + image.width; i < end; i++) if (image.data[i] < BLANK_ROW) return false;
  return true;
}

function bandKey(image: GreyImage, y0: number, y1: number): string {
  return createHash('sha1').update(image.data.subarray(y0 * image.width, y1 * image.width)).update(`${image.width}`).digest('base64');
}

/** The bands one under another, BAND_GAP white rows apart. */
function stackBands(image: GreyImage, bands: Band[]): { image: GreyImage; offsets: number[] } {
  const height = bands.reduce((sum, b) => sum + (b.y1 - b.y0) + BAND_GAP, BAND_GAP);
  const data = new Uint8Array(image.width * height).fill(255);
  const offsets: number[] = [];
  let y = BAND_GAP;
  for (const band of bands) {
    offsets.push(y);
    data.set(image.data.subarray(band.y0 * image.width, band.y1 * image.width), y * image.width);
    y += band.y1 - band.y0 + BAND_GAP;
  }
  return { image: { width: image.width, height, data }, offsets };
}
