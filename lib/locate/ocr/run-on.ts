import type { OcrWord } from './tesseract';

/**
 * Tesseract reads two words with no space between them as one when a
 * sentence's end runs into a word set apart by weight or colour ('snap!Change':
 * bold text, then a link). Such a word is cut after the punctuation, each part
 * boxed by its share of the characters.
 */
const RUN_ON = /(?<=\p{Ll}[!?.,;:])(?=\p{Lu}\p{Ll})/u;

export function splitRunOn(words: OcrWord[]): OcrWord[] {
  return words.flatMap((word) => {
    const parts = word.text.split(RUN_ON);
    if (parts.length < 2) return [word];
    const share = word.width / [...word.text].length;
    let before = 0;
    return parts.map((text) => {
      const part = { ...word, text, x: word.x + before * share, width: [...text].length * share };
      before += [...text].length;
      return part;
    });
  });
}
