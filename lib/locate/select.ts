import { InvalidOptionError } from '../config/errors';
import { LocateEngine } from './engine';
import { OcrEngine } from './ocr/engine';

/**
 * Which engine locates: GLANCE_LOCATOR (or the client's `locator` option) is
 * `ocr`, `vision` or `auto`; `auto` means vision when a model is configured,
 * OCR otherwise.
 */
export type LocatorChoice = 'ocr' | 'vision' | 'auto';
export const LOCATORS: LocatorChoice[] = ['ocr', 'vision', 'auto'];

let ocr: OcrEngine | null = null;

export function visionConfigured(): boolean {
  return !!process.env.GLANCE_VISION_MODEL;
}

export function selectEngine(choice: LocatorChoice = (process.env.GLANCE_LOCATOR as LocatorChoice) || 'auto'): LocateEngine {
  if (!LOCATORS.includes(choice)) {
    throw new InvalidOptionError('locator', `Invalid locator '${choice}' (from GLANCE_LOCATOR or the locator option); use one of ${LOCATORS.join(', ')}.`);
  }
  if (choice === 'vision' || (choice === 'auto' && visionConfigured())) {
    throw new InvalidOptionError('locator', `The vision locator is not available in this version of Glance; use locator 'ocr' (or 'auto').`);
  }
  if (!ocr) ocr = new OcrEngine();
  return ocr;
}
