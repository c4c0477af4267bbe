import { createWorker, PSM, Worker } from 'tesseract.js';
import { GreyImage, toPgm } from './preprocess';

/**
 * One warm tesseract.js worker per process, fully offline: the `eng` data
 * ships in @tesseract.js-data/eng and nothing is downloaded or cached to disk.
 */
export interface OcrWord {
  text: string;
  /** 0-100, tesseract's own confidence. */
  confidence: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

let worker: Promise<Worker> | null = null;
let queue: Promise<unknown> = Promise.resolve();

function engine(): Promise<Worker> {
  if (!worker) {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const data = require('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
    worker = createWorker('eng', 1, { langPath: data.langPath, gzip: data.gzip, cacheMethod: 'none' }).catch((error) => {
      worker = null;
      throw new Error(`The OCR engine could not start: ${(error as Error).message}. Is @tesseract.js-data/eng installed?`);
    });
  }
  return worker;
}

/** Reads words with their boxes. Calls are queued: the one worker reads one image at a time. */
export function readWords(image: GreyImage, psm: '3' | '6' | '7' | '11'): Promise<OcrWord[]> {
  const job = queue.then(async () => {
    const w = await engine();
    // Our preprocessing already made all text dark on white: tesseract's own inverted retry only costs time.
    await w.setParameters({ tessedit_pageseg_mode: psm as PSM, preserve_interword_spaces: '1', user_defined_dpi: '96', tessedit_do_invert: '0' });
    const { data } = await w.recognize(toPgm(image), {}, { tsv: true, text: false, blocks: false, hocr: false });
    return parseTsv(data.tsv ?? '');
  });
  queue = job.catch(() => undefined);
  return job;
}

/** Ends the worker (tests and CLI runs call this so the process can exit). */
export async function stopOcr(): Promise<void> {
  const current = worker;
  worker = null;
  if (current) await (await current).terminate();
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
