import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import fs from 'fs';
import os from 'os';
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
  assert.match(child.stdout, /^ocr-console: tesseract\+paddle found 'Apply'/m, output);
  assert.match(child.stdout, /^ocr-console: paddle found 'Apply'/m, output);
  for (const pattern of DIAGNOSTICS) assert.doesNotMatch(output, pattern);
  assert.deepEqual(output.split('\n').filter((line) => line && !line.startsWith('ocr-console: ')), [], 'nothing else was printed');
});

test("the OCR engine's libraries keep no usage records and send none: no usage database in the home, no log file in /tmp", () => {
  // onnxruntime-node's usage events (1.30 on Linux) go to a database under the home's .cache, a log file named after
  // the process in /tmp, and Microsoft's collector, unless ORT_DISABLE_TELEMETRY is set.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-ocr-home-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.ORT_DISABLE_TELEMETRY;
  try {
    const child = spawnSync(process.execPath, ['-r', './lib/runtime/register.js', 'test/helpers/ocr-console.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(child.status, 0, `${child.stdout}${child.stderr}`);
    assert.match(child.stdout, /^ocr-console: paddle found 'Apply'/m, 'the models ran');
    const debugLog = `/tmp/mat-debug-${child.pid}.log`;
    const left = fs.existsSync(debugLog);
    fs.rmSync(debugLog, { force: true });
    assert.equal(left, false, `${debugLog} was left`);
    assert.equal(fs.existsSync(path.join(home, '.cache', 'Microsoft')), false, 'no usage database in the home');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
