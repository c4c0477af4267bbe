import { Candidate, LocateEngine, LocateRefusal, Screen } from './engine';
import { Box } from './geometry';
import { parseQuery, Query, TypeHint, wrapDescription } from './query';
import { sleep } from '../util/wait';
import type { CacheLookup } from '../cache/element-cache';

/**
 * The find pipeline, written once for every engine: polling within the
 * timeout, zoom, verify and the confidence gate.
 *
 * Polling: the spec's 5 s interval is a ceiling. The screen is watched in
 * between, and a screen that changed is looked at again at once, so a find
 * that succeeds on its second look does not wait out a whole interval. An
 * unchanged screen is re-checked every 5 s.
 */
export interface FindSettings {
  timeout: number;
  confidence?: number;
  type: TypeHint;
  zoom: boolean;
  verify: boolean;
}

export interface FindOutcome {
  description: string;
  query: Query;
  candidate: Candidate | null;
  /** The best candidate seen, also when it was rejected. */
  best: Candidate | null;
  /** Why nothing was found, when nothing was. */
  rejection: string | null;
  attempts: number;
  elapsedMs: number;
  screen: Screen | null;
  /** The last cache lookup, when the cache was consulted. */
  cache: CacheLookup | null;
}

export const RETRY_CEILING_MS = 5000;
const WATCH_INTERVAL_MS = 120;
/** The zoom crop is 30% of the screen in each direction. */
export const ZOOM_SHARE = 0.3;
const ZOOM_SCALE = 2;

export async function runFind(
  engine: LocateEngine,
  capture: () => Promise<Screen>,
  description: string,
  settings: FindSettings,
  log: (line: string) => void,
  /** The element cache, consulted before the engine on every look. */
  lookup?: (screen: Screen) => CacheLookup,
): Promise<FindOutcome> {
  const wrapped = wrapDescription(description, settings.type);
  const query = parseQuery(wrapped);
  const started = Date.now();
  const deadline = started + settings.timeout;
  let attempts = 0;
  let best: Candidate | null = null;
  let rejection = 'nothing on the screen matched';
  let lastScreen: Screen | null = null;
  let lastAttemptAt = 0;
  let nextProgress = started + RETRY_CEILING_MS;
  let cache: CacheLookup | null = null;
  const done = (candidate: Candidate | null, screen: Screen | null): FindOutcome =>
    ({ description: wrapped, query, candidate, best: candidate ?? best, rejection: candidate ? null : rejection, attempts, elapsedMs: Date.now() - started, screen, cache });
  for (;;) {
    const screen = await capture();
    const changed = !lastScreen || !screen.data.equals(lastScreen.data);
    if (changed || Date.now() - lastAttemptAt >= RETRY_CEILING_MS) {
      attempts++;
      lastAttemptAt = Date.now();
      lastScreen = screen;
      if (lookup) {
        cache = lookup(screen);
        if (cache.candidate && (settings.confidence === undefined || cache.candidate.confidence >= settings.confidence)) return done(cache.candidate, screen);
      }
      try {
        const result = await attempt(engine, screen, query, settings);
        if (result.candidate) {
          cache?.evictStale?.(); // the cached entry said the element was elsewhere, or looked different
          return done(result.candidate, screen);
        }
        rejection = result.rejection;
        if (result.best && (!best || result.best.confidence >= best.confidence)) best = result.best;
      } catch (error) {
        if (!(error instanceof LocateRefusal)) throw error;
        // The engine cannot answer this kind of description: waiting would not change that.
        rejection = error.message;
        return done(null, screen);
      }
    }
    const now = Date.now();
    if (settings.timeout === 0 || now >= deadline) break;
    if (now >= nextProgress) {
      log(`waiting for '${description}' (${Math.round((now - started) / 1000)} s of ${Math.round(settings.timeout / 1000)} s)`);
      nextProgress += RETRY_CEILING_MS;
    }
    await sleep(Math.min(WATCH_INTERVAL_MS, deadline - now));
  }
  return done(null, lastScreen);
}

async function attempt(engine: LocateEngine, screen: Screen, query: Query, settings: FindSettings): Promise<{ candidate: Candidate | null; best: Candidate | null; rejection: string }> {
  let [candidate] = await engine.locate(screen, query);
  if (!candidate) return { candidate: null, best: null, rejection: 'nothing on the screen matched' };
  if (settings.zoom) candidate = await zoomIn(engine, screen, query, candidate);
  if (settings.confidence !== undefined && candidate.confidence < settings.confidence) {
    return { candidate: null, best: candidate, rejection: `the best match scored ${candidate.confidence} (below the confidence of ${settings.confidence})` };
  }
  if (settings.verify && engine.verify) {
    const verdict = await engine.verify(screen, candidate, query);
    if (!verdict.ok) return { candidate: null, best: candidate, rejection: `verify rejected the match: ${verdict.reason}` };
    candidate = { ...candidate, reason: `${candidate.reason}; verified: ${verdict.reason}` };
  }
  return { candidate, best: candidate, rejection: '' };
}

/**
 * Zoom: crop 30% of the screen around the approximate match, upscale it,
 * locate again in the crop, and map the result back to screen coordinates.
 * When the closer look finds nothing, the approximate match stands.
 */
async function zoomIn(engine: LocateEngine, screen: Screen, query: Query, rough: Candidate): Promise<Candidate> {
  const region = zoomRegion(screen, rough.box);
  const crop = cropScreen(screen, region, ZOOM_SCALE);
  const [fine] = await engine.locate(crop, query).catch(() => []);
  if (!fine) return { ...rough, reason: `${rough.reason}; zoom found nothing closer, kept the first match` };
  const back = (b: Box): Box => ({
    x: Math.round(region.x + b.x / ZOOM_SCALE), y: Math.round(region.y + b.y / ZOOM_SCALE),
    width: Math.round(b.width / ZOOM_SCALE), height: Math.round(b.height / ZOOM_SCALE),
  });
  return { ...fine, box: back(fine.box), evidence: fine.evidence ? back(fine.evidence) : undefined, reason: `${fine.reason} (zoomed into ${region.width}x${region.height} at ${region.x},${region.y})` };
}

export function zoomRegion(screen: { width: number; height: number }, around: Box): Box {
  const width = Math.round(screen.width * ZOOM_SHARE);
  const height = Math.round(screen.height * ZOOM_SHARE);
  const cx = around.x + around.width / 2;
  const cy = around.y + around.height / 2;
  const x = Math.max(0, Math.min(screen.width - width, Math.round(cx - width / 2)));
  const y = Math.max(0, Math.min(screen.height - height, Math.round(cy - height / 2)));
  return { x, y, width, height };
}

/** A region of a screen, scaled up by an integer factor (nearest neighbour). */
export function cropScreen(screen: Screen, region: Box, scale: number): Screen {
  const width = region.width * scale;
  const height = region.height * scale;
  const data = Buffer.allocUnsafe(width * height * 4);
  for (let y = 0; y < height; y++) {
    const srcRow = (region.y + Math.floor(y / scale)) * screen.width + region.x;
    for (let x = 0; x < width; x++) {
      const src = (srcRow + Math.floor(x / scale)) * 4;
      const dst = (y * width + x) * 4;
      data[dst] = screen.data[src];
      data[dst + 1] = screen.data[src + 1];
      data[dst + 2] = screen.data[src + 2];
      data[dst + 3] = screen.data[src + 3];
    }
  }
  return { width, height, data, format: screen.format };
}
