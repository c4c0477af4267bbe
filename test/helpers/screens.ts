import sharp from 'sharp';
import { Screen } from '../../lib/locate/engine';
import type { OcrEngine } from '../../lib/locate/ocr/engine';
import { parseQuery } from '../../lib/locate/query';

/**
 * A small synthetic screen: a light page with a textured "button" (a patterned
 * block, so template matching has something to correlate) and optional noise.
 */
export function syntheticScreen({ width = 320, height = 200, buttonX = 40, buttonY = 60, seed = 1, changedPixels = 0, noise = 0 } = {}): Screen {
  const data = Buffer.alloc(width * height * 4, 245);
  const set = (x: number, y: number, v: number) => {
    const i = (y * width + x) * 4;
    data[i] = data[i + 1] = data[i + 2] = v;
    data[i + 3] = 255;
  };
  for (let y = 0; y < 30; y++) for (let x = 0; x < 90; x++) set(buttonX + x, buttonY + y, ((x * 7 + y * 13 + (x % 9) * (y % 5)) % 97) + 40 + (((x * 31 + y * 17) % 7) - 3) * noise);
  // A banner whose size is the number of pixels to change, away from the button.
  let left = changedPixels;
  for (let y = height - 1; y >= 0 && left > 0; y--) for (let x = width - 1; x >= 160 && left > 0; x--, left--) set(x, y, (seed * 31 + x) % 2 ? 10 : 20);
  return { width, height, data, format: 'rgba' };
}

type Box = { x: number; y: number; width: number; height: number };

/** A screen drawn from SVG with the machine's real fonts. */
export async function svgScreen(svg: string): Promise<Screen> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data, format: 'rgba' };
}

/** Each description located on `screen`; the ones whose best answer is not clicked inside its box, said plainly. */
export async function locateMisses(engine: OcrEngine, screen: Screen, expected: [string, Box][]): Promise<string[]> {
  const misses: string[] = [];
  for (const [description, box] of expected) {
    const found = (await engine.locate({ screen, sandbox: null, deadline: Date.now() + 20_000, ai: {} }, parseQuery(description)))[0];
    const [x, y] = found ? [found.box.x + found.box.width / 2, found.box.y + found.box.height / 2] : [-1, -1];
    const inside = x >= box.x && x <= box.x + box.width && y >= box.y && y <= box.y + box.height;
    if (!inside) misses.push(`${description}: ${found ? `clicked ${Math.round(x)},${Math.round(y)} (${found.reason})` : 'nothing found'}, want inside ${JSON.stringify(box)}`);
  }
  return misses;
}
