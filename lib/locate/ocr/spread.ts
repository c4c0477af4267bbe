import { GreyImage, INK } from './preprocess';
import type { OcrWord } from './tesseract';

/**
 * Tesseract now and then reads a row of spaced-out glyphs (a pagination's
 * '4 5 6 7') as one word, '4567', with a box far wider than its characters
 * can fill. Such a word is cut at the ink: when the blobs of ink in its box
 * (leaving out what other words cover) are as many as its characters, each
 * character becomes a word of its own, boxed by its blob.
 */
/** A word's characters are spread when each has more than this many of its heights across. */
const SPREAD = 1.5;

export function splitSpread(words: OcrWord[], prepared: GreyImage): OcrWord[] {
  return words.flatMap((word) => {
    const characters = [...word.text];
    if (characters.length < 2 || word.width <= characters.length * word.height * SPREAD) return [word];
    const others = words.filter((w) => w !== word && w.y < word.y + word.height && w.y + w.height > word.y);
    const blobs = inkBlobs(prepared, word, others);
    if (blobs.length !== characters.length) return [word];
    return blobs.map(([x0, x1], i) => ({ ...word, text: characters[i], x: x0, width: x1 - x0 + 1 }));
  });
}

/** Runs of columns with ink across a word's box, left to right, leaving out the columns other words cover. */
function inkBlobs(image: GreyImage, word: OcrWord, others: OcrWord[]): [number, number][] {
  const blobs: [number, number][] = [];
  const [x0, x1] = [Math.max(0, Math.floor(word.x)), Math.min(image.width - 1, Math.ceil(word.x + word.width))];
  const [y0, y1] = [Math.max(0, Math.floor(word.y)), Math.min(image.height - 1, Math.ceil(word.y + word.height))];
  let start = -1;
  for (let x = x0; x <= x1 + 1; x++) {
    let ink = false;
    if (x <= x1 && !others.some((w) => x >= w.x && x < w.x + w.width)) {
      for (let y = y0; y <= y1 && !ink; y++) ink = image.data[y * image.width + x] < INK;
    }
    if (ink && start < 0) start = x;
    if (!ink && start >= 0) {
      blobs.push([start, x - 1]);
      start = -1;
    }
  }
  // A glyph's own strokes may leave a blank column or two between them ('6' at 12 px): closer blobs are one glyph.
  const gap = Math.max(2, word.height * 0.2);
  return blobs.reduce<[number, number][]>((merged, blob) => {
    const last = merged[merged.length - 1];
    if (last && blob[0] - last[1] - 1 <= gap) last[1] = blob[1];
    else merged.push(blob);
    return merged;
  }, []);
}
