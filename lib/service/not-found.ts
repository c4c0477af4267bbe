import type { FindOutcome } from './find';
import type { LocateRequest } from './service';
import { startsQuoted } from '../util/quotes';

/**
 * The message of a find that found nothing: what was looked for, why it
 * failed, what was tried, the best candidate, what the screen showed instead,
 * the cache, and where the screenshot is.
 */
export function notFoundMessage(outcome: FindOutcome, request: LocateRequest, engines: string, seen: string[], screenshot: string | null, modelAnswer: string | null = null): string {
  const best = outcome.best;
  return [
    `Element not found: ${startsQuoted(outcome.description) ? outcome.description : `'${outcome.description}'`}.`,
    `  why: ${outcome.rejection}`,
    `  tried: ${engines} engine, ${outcome.attempts} attempt(s) over ${(outcome.elapsedMs / 1000).toFixed(1)} s (timeout ${request.timeout} ms${request.zoom ? ', zoom' : ''}${request.verify ? ', verify' : ''}${request.confidence !== undefined ? `, confidence >= ${request.confidence}` : ''})`,
    `  best candidate: ${best ? `'${best.text ?? ''}' at ${best.box.x},${best.box.y} ${best.box.width}x${best.box.height}, confidence ${best.confidence}` : 'none'}`,
    ...(seen.length ? [`  seen instead: ${seen.map((t) => `'${t}'`).join(', ')}`] : []),
    ...(modelAnswer ? [`  vision model said: ${modelAnswer.replace(/\s+/g, ' ').slice(0, 300)}`] : []),
    `  cache: ${cacheState(outcome, request)}`,
    `  screenshot: ${screenshot ?? 'none (no screen was captured)'}`,
  ].join('\n');
}

function cacheState(outcome: FindOutcome, request: LocateRequest): string {
  if (request.cacheThreshold === -1) return 'off for this call';
  const info = outcome.cache?.info;
  if (!info) return 'off';
  return info.diffPercent === null ? 'no entry for this description' : `entry not used (screen ${info.diffPercent}% different, threshold ${request.cacheThreshold * 100}%)`;
}
