import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitRunOn } from '../../lib/locate/ocr/run-on';
import type { OcrWord } from '../../lib/locate/ocr/tesseract';

const word = (text: string, x: number, width: number): OcrWord => ({ text, x, y: 10, width, height: 12, confidence: 85 });

test('a sentence run into the next word is cut after its punctuation', () => {
  const [first, second] = splitRunOn([word('snap!Change', 40, 110)]);
  assert.deepEqual([first.text, first.x, first.width, second.text, second.x, second.width], ['snap!', 40, 50, 'Change', 90, 60]);
  // Initials, a version, a file name and a word in capitals after a full stop stay whole.
  assert.deepEqual(['U.S.A.', 'v1.2.3', 'index.html', 'e.g.UI'].map((t) => splitRunOn([word(t, 0, 60)]).length), [1, 1, 1, 1]);
});
