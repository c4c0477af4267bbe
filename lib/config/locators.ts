import { InvalidOptionError } from './errors';

/**
 * The names a user may give the `locator` option (or GLANCE_LOCATOR): `auto`
 * (every engine that can answer, best first) or one engine by name. The
 * engine registry (lib/locate/registry.ts) is typed by ENGINE_NAMES, so the
 * two cannot drift apart.
 */
export const ENGINE_NAMES = ['a11y', 'ocr', 'vision'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];
export type LocatorChoice = 'auto' | EngineName;
export const LOCATORS: readonly LocatorChoice[] = ['auto', ...ENGINE_NAMES];

/** Engines that later versions of Glance add; naming one gets a clear answer rather than "unknown". */
export const PLANNED_ENGINES: Record<string, string> = {};

/**
 * Which reader the OCR engine reads the screen with (GLANCE_OCR_READER):
 * tesseract, with a text detector's missed lines read by PaddleOCR's
 * recogniser when a find comes up short (the default), or by tesseract line by
 * line (`tesseract+detector`); tesseract alone; or PaddleOCR alone.
 */
export const OCR_READERS = ['tesseract+paddle', 'tesseract+detector', 'tesseract', 'paddle'] as const;
export type OcrReaderChoice = (typeof OCR_READERS)[number];

/** The reader GLANCE_OCR_READER names, checked. */
export function ocrReaderFromEnv(env: NodeJS.ProcessEnv = process.env): OcrReaderChoice {
  const value = env.GLANCE_OCR_READER?.trim();
  if (!value) return 'tesseract+paddle';
  if ((OCR_READERS as readonly string[]).includes(value)) return value as OcrReaderChoice;
  throw new InvalidOptionError('GLANCE_OCR_READER', `Invalid GLANCE_OCR_READER '${value}': use one of ${OCR_READERS.join(', ')}, or leave it unset for tesseract+paddle.`);
}
