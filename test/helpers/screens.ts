import { Screen } from '../../lib/locate/engine';

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
