import sharp from 'sharp';
import { Screen } from './engine';
import { FindOutcome, FindSettings, runFind } from './pipeline';
import { selectEngine } from './select';
import { parseQuery, wrapDescription } from './query';
import { Element } from '../client/element';

/**
 * Locating on a screenshot file, without a sandbox: the `glance locate` CLI
 * and the accuracy benchmark go through here, and so through the same find
 * pipeline as the Client.
 */
export async function loadScreen(file: string): Promise<Screen> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data, format: 'rgba' };
}

export function locateOnScreen(screen: Screen, description: string, settings: Partial<FindSettings> = {}): Promise<FindOutcome> {
  const full: FindSettings = { timeout: 0, type: 'any', zoom: false, verify: false, ...settings };
  return runFind(selectEngine(), async () => screen, description, full, () => undefined);
}

/** Every candidate the engine sees for the description (the `--overlay` view and findAll). */
export async function allCandidates(screen: Screen, description: string, type: FindSettings['type'] = 'any') {
  return selectEngine().locate(screen, parseQuery(wrapDescription(description, type)), { all: true }).catch(() => []);
}

/** An Element for a result located offline; acting on it explains that there is no sandbox. */
export function offlineElement(outcome: FindOutcome, description: string): Element {
  const noSandbox = async () => { throw new Error('This element was located on a screenshot file; there is no sandbox to act on.'); };
  return new Element({ pointerAt: noSandbox, find: noSandbox }, {
    description, candidate: outcome.candidate, screen: outcome.screen, threshold: -1,
    cache: { hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent: null, imageUrl: null },
    similarity: null, notFound: outcome.candidate ? null : outcome.rejection, debugScreenshot: null, findOptions: {},
  });
}
