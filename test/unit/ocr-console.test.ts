import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');

/** What tesseract, Leptonica and onnxruntime print of their own accord. */
const DIAGNOSTICS = [
  /boxClipToRectangle/, /box outside rectangle/, /guessing pitch/, /Detected \d+ diacritics/,
  /Bottom=\d+, top=\d+/, /Median=/, /Total count=/, /\[W:onnxruntime/, /\[E:onnxruntime/,
];

test("the OCR engine's libraries print nothing to the user's console", () => {
  const child = spawnSync(process.execPath, ['-r', './lib/runtime/register.js', 'test/helpers/ocr-console.ts'], {
    cwd: ROOT, encoding: 'utf8', timeout: 120_000,
  });
  const output = `${child.stdout}${child.stderr}`;
  assert.equal(child.status, 0, output);
  // It did read: the word was found, on both readers.
  assert.match(child.stdout, /tesseract\+paddle found 'Apply'/, output);
  assert.match(child.stdout, /paddle found 'Apply'/, output);
  for (const pattern of DIAGNOSTICS) assert.doesNotMatch(output, pattern);
  assert.deepEqual(output.split('\n').filter((line) => line && !line.startsWith('ocr-console: ')), [], 'nothing else was printed');
});
