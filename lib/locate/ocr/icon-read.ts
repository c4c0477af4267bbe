import type { OcrWord } from './tesseract';

/** A word of one or two characters read less surely than this is likely an icon read as letters. */
const ICON_READ = 75;

/** Whether a word is likely an icon OCR read as a letter or two: such a word joins no phrase. */
export function iconRead(word: OcrWord): boolean {
  return word.text.length <= 2 && word.confidence < ICON_READ;
}
