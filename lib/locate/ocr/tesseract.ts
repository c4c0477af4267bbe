import fs from 'fs';
import os from 'os';
import path from 'path';
import { createWorker, PSM, Worker } from 'tesseract.js';
import { GreyImage, toPgm } from './preprocess';
import { CHUNK_INK, inkChunks, KeyedPiece, PIECE_INK, pieceAt, keyedPiecesOf, stackPieces } from './bands';

/**
 * Reading words off a prepared screen, fast:
 * - warm tesseract.js workers, fully offline (the English model comes from
 *   Debian's tesseract-ocr-eng or @tesseract.js-data/eng; nothing is
 *   downloaded or cached to disk);
 * - the screen is cut into pieces of text at blank rows, and the words of
 *   each piece are remembered by its pixels, so the parts of a
 *   screen that did not change are never read twice;
 * - a tall band is cut at its blank rows, between lines of text, and a piece
 *   still large at its blank columns, between columns of widgets, so that the
 *   screen falls into pieces small enough to share out (see bands.ts);
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

const MEMO_LIMIT = 4000;
/** Chunks per worker a screen is shared out in: the one that finishes first takes the next. */
const CHUNKS_PER_WORKER = 2;

/** What one read got: the words, and how many pieces the deadline left unread. */
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

/** The worker script: tesseract.js's own, with the console of Tesseract and Leptonica shut (see quiet-worker.ts). */
const QUIET_WORKER = path.join(__dirname, 'quiet-worker.js');

/** A worker's start (0.5 to 0.7 s here) weighs as this many crop reads (about 70 ms each) queued before. */
const UNSTARTED_BACKLOG = 8;

/** A few dark strokes on white: read once, they bring a new worker's recogniser up (about 100 ms of its first read). */
const STROKES: GreyImage = (() => {
  const width = 48;
  const height = 20;
  const data = new Uint8Array(width * height).fill(255);
  for (let x = 4; x < 44; x += 6) for (let y = 4; y < 16; y++) data.fill(0, y * width + x, y * width + x + 2);
  return { width, height, data };
})();

class WorkerSlot {
  private worker: Promise<Worker> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Reads asked of this slot and not done yet. */
  private waiting = 0;

  /**
   * What a read given to this slot now would wait for, in reads: those
   * before it, and a worker still to start (several reads' time).
   */
  get backlog(): number {
    return this.waiting + (this.worker ? 0 : UNSTARTED_BACKLOG);
  }

  private start(): Promise<Worker> {
    if (!this.worker) {
      const data = englishModel();
      this.worker = createWorker('eng', 1, { langPath: data.langPath, gzip: data.gzip, cacheMethod: 'none', workerPath: QUIET_WORKER }).catch((error) => {
        this.worker = null;
        throw new Error(`The OCR engine could not start: ${(error as Error).message}. The English model is read from ${data.langPath}.`);
      });
    }
    return this.worker;
  }

  /** Reads one image; calls on one slot run one at a time, and one whose turn comes after `deadline` reads nothing. */
  read(image: GreyImage, psm: string, deadline = Infinity): Promise<OcrWord[]> {
    this.waiting++;
    const job = this.queue.then(async () => {
      if (Date.now() >= deadline) return [];
      const worker = await this.start();
      // Preprocessing already made all text dark on white: tesseract's own inverted retry only costs time.
      await worker.setParameters({ tessedit_pageseg_mode: psm as PSM, preserve_interword_spaces: '1', user_defined_dpi: '96', tessedit_do_invert: '0' });
      const { data } = await worker.recognize(toPgm(image), {}, { tsv: true, text: false, blocks: false, hocr: false });
      return parseTsv(data.tsv ?? '');
    });
    this.queue = job.catch(() => undefined);
    const done = () => { this.waiting--; };
    job.then(done, done);
    return job;
  }

  /** Starts the worker and reads a few strokes, so that the first real read pays neither. */
  warm(): Promise<void> {
    return this.read(STROKES, '7').then(() => undefined);
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

export class OcrReader {
  private readonly slots: WorkerSlot[];
  private readonly memo = new Map<string, OcrWord[]>();

  constructor(workers = Math.max(1, Math.min(2, os.cpus().length))) {
    this.slots = Array.from({ length: workers }, () => new WorkerSlot());
  }

  /**
   * Every word on the prepared screen, in screen coordinates. Pieces left at
   * the deadline, or once `gone` is aborted (the screen has moved, and no one
   * waits for the read), count as unread. `pieces`: the screen's, when they
   * were cut already (prepareScreen cuts them on its own thread).
   */
  async read(image: GreyImage, deadline = Infinity, gone?: AbortSignal, pieces: KeyedPiece[] = keyedPiecesOf(image)): Promise<Reading> {
    const fresh = pieces.filter((p) => !this.memo.has(p.key));
    const unique = [...new Map(fresh.map((p) => [p.key, p])).values()];
    if (unique.length) await this.readPieces(image, unique, deadline, gone);
    const words: OcrWord[] = [];
    let unread = 0;
    for (const piece of pieces) {
      const known = this.memo.get(piece.key);
      if (!known) {
        unread++;
        continue;
      }
      this.memo.delete(piece.key); // re-insert: the memo's order is its recency
      this.memo.set(piece.key, known);
      for (const w of known) words.push({ ...w, y: w.y + piece.y0 });
    }
    while (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value as string);
    return { words, unread };
  }

  /**
   * Reads one crop (e.g. a single control with PSM 7), without the memo:
   * on the worker that would take it first, so that crops asked for
   * together share the workers, and a lone crop goes to a started worker.
   */
  readCrop(image: GreyImage, psm: '7' | '8' | '6' | '11', deadline = Infinity): Promise<OcrWord[]> {
    const slot = this.slots.reduce((best, next) => (next.backlog < best.backlog ? next : best));
    return slot.read(image, psm, deadline);
  }

  /**
   * Chunks of about equal ink that each worker takes in turn until the
   * deadline, the inkiest first (a piece that could not be cut, read last,
   * would keep one worker busy while the other waits): a screen full of text
   * is read in chunks of bounded ink, and one of a few lines is shared out
   * evenly.
   */
  private async readPieces(image: GreyImage, pieces: KeyedPiece[], deadline: number, gone?: AbortSignal): Promise<void> {
    const total = pieces.reduce((sum, piece) => sum + piece.ink, 0);
    const most = Math.min(CHUNK_INK, Math.max(PIECE_INK, total / (this.slots.length * CHUNKS_PER_WORKER)));
    const chunks = inkChunks(pieces, most).sort((a, b) => b.ink - a.ink).map((chunk) => chunk.pieces);
    await Promise.all(this.slots.map(async (slot) => {
      for (let chunk = chunks.shift(); chunk && Date.now() < deadline && !gone?.aborted; chunk = chunks.shift()) {
        const { image: stacked, offsets, left } = stackPieces(image, chunk);
        const words = await slot.read(stacked, '11');
        const perPiece = chunk.map(() => [] as OcrWord[]);
        for (const word of words) {
          const at = pieceAt(chunk, offsets, left, word.x + word.width / 2, word.y + word.height / 2);
          if (at >= 0) perPiece[at].push({ ...word, x: word.x + left, y: word.y - offsets[at] });
        }
        chunk.forEach((piece, k) => this.memo.set(piece.key, perPiece[k]));
      }
    }));
  }

  /** Forgets every piece read so far (benchmarks use it to measure a screen never seen). */
  forget(): void {
    this.memo.clear();
  }

  /**
   * Starts one worker ahead of the first read (a worker takes 0.5 to 0.7 s
   * to start here): a find's crops go to it, and the others start when a
   * whole screen is read.
   */
  warm(): Promise<void> {
    return this.slots[0].warm();
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.stop()));
  }
}
