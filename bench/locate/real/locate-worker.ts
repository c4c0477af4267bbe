import fs from 'fs';
import { createWorker, Worker } from 'tesseract.js';
import { loadScreen, OfflineLocator } from '../../../lib/service/offline';
import { englishModel } from '../../../lib/locate/ocr/tesseract';
import type { Screen } from '../../../lib/types/screen';
import { serveJobs } from './bounded-runner';

/**
 * The child process that locates for the bench: one OfflineLocator, the
 * current screen kept between jobs (so the engines' memo of a screen is used,
 * as in a session), and a fresh copy with the memo cleared when a job times a
 * never-seen screen. A `plain` job times the baseline instead: plain
 * tesseract reading the whole screen (its default page layout, one worker,
 * no preparation), as an OCR tool used as it comes would.
 */
export interface LocateJob {
  png: string;
  description: string;
  /** Locate on a screen the engines have never seen (for timing). */
  fresh?: boolean;
  /** Time plain tesseract reading the screen, not a find (the description is not used). */
  plain?: boolean;
}

export interface LocateAnswer {
  box: { x: number; y: number; width: number; height: number } | null;
  text: string | null;
  engine: string | null;
  rejection: string | null;
  ms: number;
}

const locator = new OfflineLocator();
let current: { png: string; screen: Screen } | null = null;
let plainReader: Promise<Worker> | null = null;

async function plainRead(png: string): Promise<LocateAnswer> {
  const model = englishModel();
  plainReader ??= createWorker('eng', 1, { langPath: model.langPath, gzip: model.gzip, cacheMethod: 'none' });
  const worker = await plainReader;
  const image = fs.readFileSync(png);
  const started = performance.now();
  await worker.recognize(image, {}, { text: true });
  return { box: null, text: null, engine: 'tesseract', rejection: null, ms: performance.now() - started };
}

serveJobs<LocateJob, LocateAnswer>(async (job) => {
  if (job.plain) return plainRead(job.png);
  if (current?.png !== job.png) {
    locator.forget();
    current = { png: job.png, screen: await loadScreen(job.png) };
  }
  let screen = current.screen;
  if (job.fresh) {
    locator.forget();
    screen = { ...screen, data: Buffer.from(screen.data) };
  }
  const started = performance.now();
  const outcome = await locator.locate(screen, job.description);
  const ms = performance.now() - started;
  const candidate = outcome.candidate;
  return { box: candidate?.box ?? null, text: candidate?.text ?? null, engine: outcome.engine?.name ?? null, rejection: outcome.rejection, ms };
}, async () => {
  await locator.stop();
  await (await plainReader)?.terminate();
});
