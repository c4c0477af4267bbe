import { EngineName, LocatorChoice, ENGINE_NAMES } from '../config/locators';
import type { VisionModelSettings } from '../config/vision';
import { LocateEngine } from './engine';
import { EngineChain } from './chain';
import { OcrEngine } from './ocr/engine';
import { A11yEngine } from './a11y/engine';
import { VisionEngine } from './vision/engine';

/**
 * Every engine Glance has, best first: the order `auto` tries them in.
 * A new engine is a folder under lib/locate/ and one line here. An engine
 * that needs something not configured (vision without a model) is null.
 */
const ENGINES: Record<EngineName, (vision: VisionModelSettings | null) => LocateEngine | null> = {
  a11y: () => new A11yEngine(),
  ocr: () => new OcrEngine(),
  vision: (vision) => (vision ? new VisionEngine(vision) : null),
};

/**
 * An engine for a chain. Engines that depend on nothing but themselves (the
 * tree, OCR) come from `pool` when given, so that chains for different
 * models share one set of OCR workers.
 */
function made(name: EngineName, vision: VisionModelSettings | null, pool?: Map<EngineName, LocateEngine>): LocateEngine | null {
  if (name === 'vision' || !pool) return ENGINES[name](vision);
  let engine = pool.get(name);
  if (!engine) pool.set(name, (engine = ENGINES[name](vision)!));
  return engine;
}

/**
 * The chain a `locator` choice stands for: `auto` is every available engine
 * in order, a name that engine alone (the Client's options have checked it can run).
 */
export function buildChain(choice: LocatorChoice, vision: VisionModelSettings | null = null, pool?: Map<EngineName, LocateEngine>): EngineChain {
  const names = choice === 'auto' ? [...ENGINE_NAMES] : [choice];
  const engines = names.map((name) => made(name, vision, pool)).filter((e): e is LocateEngine => e !== null);
  if (!engines.length) throw new Error(`The '${choice}' locator needs a vision model: set GLANCE_AI_MODEL (and GLANCE_AI_BASE_URL, GLANCE_AI_API_KEY).`);
  return new EngineChain(choice, engines);
}
