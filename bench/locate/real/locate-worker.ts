import { loadScreen, OfflineLocator } from '../../../lib/service/offline';
import type { Screen } from '../../../lib/types/screen';
import { serveJobs } from './bounded-runner';

/**
 * The child process that locates for the bench: one OfflineLocator, the
 * current screen kept between jobs (so the engines' memo of a screen is used,
 * as in a session), and a fresh copy with the memo cleared when a job times a
 * never-seen screen.
 */
export interface LocateJob {
  png: string;
  description: string;
  /** Locate on a screen the engines have never seen (for timing). */
  fresh?: boolean;
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

serveJobs<LocateJob, LocateAnswer>(async (job) => {
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
}, () => locator.stop());
