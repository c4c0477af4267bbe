/**
 * Runs the OCR engine the way a find does, on a small screen drawn here, in a
 * process of its own, so that a test can read everything it printed. It reads
 * the screen, finds a word, and reads back a blank box (as the cross-check
 * does over an icon): tesseract prints its diagnostics on a blank line.
 */
import sharp from 'sharp';
import { OcrEngine } from '../../lib/locate/ocr/engine';
import { parseQuery } from '../../lib/locate/query';
import type { Screen } from '../../lib/types/screen';

async function drawnScreen(): Promise<Screen> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="240"><rect width="100%" height="100%" fill="white"/>
    <text x="40" y="60" font-family="DejaVu Sans" font-size="16">Apply</text>
    <text x="-6" y="12" font-family="DejaVu Sans" font-size="18">Clipped at the edge</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data, format: 'rgba' };
}

async function main(): Promise<void> {
  const screen = await drawnScreen();
  const context = { screen, sandbox: null, deadline: Date.now() + 60_000, ai: {} };
  for (const reader of ['tesseract+paddle', 'paddle'] as const) {
    const engine = new OcrEngine(reader);
    try {
      const [found] = await engine.locate(context, parseQuery("the 'Apply' button"));
      const blank = { x: 300, y: 120, width: 120, height: 30 };
      const read = reader === 'paddle' ? '' : `${await engine.readBox(context, blank)} / ${await engine.readText(context, blank)}`;
      process.stdout.write(`ocr-console: ${reader} found '${found?.text ?? ''}'; blank box read '${read}'\n`);
    } finally {
      await engine.stop();
    }
  }
}

main().catch((error) => {
  process.stdout.write(`ocr-console failed: ${(error as Error).stack}\n`);
  process.exitCode = 1;
});
