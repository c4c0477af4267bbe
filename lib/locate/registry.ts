import { EngineName, LocatorChoice, ENGINE_NAMES } from '../config/locators';
import { LocateEngine } from './engine';
import { EngineChain } from './chain';
import { OcrEngine } from './ocr/engine';
import { A11yEngine } from './a11y/engine';

/**
 * Every engine Glance has, best first: the order `auto` tries them in.
 * A new engine is a folder under lib/locate/ and one line here.
 */
const ENGINES: Record<EngineName, () => LocateEngine> = {
  a11y: () => new A11yEngine(),
  ocr: () => new OcrEngine(),
};

/** The chain a `locator` choice stands for: `auto` is every engine in order, a name that engine alone. */
export function buildChain(choice: LocatorChoice): EngineChain {
  const names = choice === 'auto' ? [...ENGINE_NAMES] : [choice];
  return new EngineChain(choice, names.map((name) => ENGINES[name]()));
}
