import { PNG } from 'pngjs';
import type { Box, Screen } from '../types/screen';

/** The box kept inside the screen, at least one pixel in each direction. */
export function clampBox(box: Box, screen: { width: number; height: number }): Box {
  const x = Math.max(0, Math.min(screen.width - 1, box.x));
  const y = Math.max(0, Math.min(screen.height - 1, box.y));
  return { x, y, width: Math.max(1, Math.min(screen.width - x, box.width)), height: Math.max(1, Math.min(screen.height - y, box.height)) };
}

/** The pixels of a box (inside the screen), row after row, in the screen's format. */
export function cropPixels(screen: Screen, box: Box): Buffer {
  const out = Buffer.allocUnsafe(box.width * box.height * 4);
  for (let y = 0; y < box.height; y++) screen.data.copy(out, y * box.width * 4, ((box.y + y) * screen.width + box.x) * 4, ((box.y + y) * screen.width + box.x + box.width) * 4);
  return out;
}

/** A small PNG of raw pixels, encoded synchronously (element crops: a few hundred pixels wide at most). */
export function pixelsToPng(raw: Buffer, width: number, height: number, format: Screen['format']): Buffer {
  const png = new PNG({ width, height });
  const [r, b] = format === 'bgrx' ? [2, 0] : [0, 2];
  for (let i = 0; i < raw.length; i += 4) {
    png.data[i] = raw[i + r];
    png.data[i + 1] = raw[i + 1];
    png.data[i + 2] = raw[i + b];
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** A box of the screen as a PNG, or null when the box lies outside it. */
export function cropPng(screen: Screen, box: Box): Buffer | null {
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  const width = Math.min(screen.width - x, box.width + Math.min(0, box.x));
  const height = Math.min(screen.height - y, box.height + Math.min(0, box.y));
  if (width <= 0 || height <= 0) return null;
  const inside = { x, y, width, height };
  return pixelsToPng(cropPixels(screen, inside), width, height, screen.format);
}

/** A region of a screen, scaled up by an integer factor (nearest neighbour). */
export function cropScreen(screen: Screen, region: Box, scale: number): Screen {
  const width = region.width * scale;
  const height = region.height * scale;
  const data = Buffer.allocUnsafe(width * height * 4);
  for (let y = 0; y < height; y++) {
    const srcRow = (region.y + Math.floor(y / scale)) * screen.width + region.x;
    for (let x = 0; x < width; x++) {
      const src = (srcRow + Math.floor(x / scale)) * 4;
      const dst = (y * width + x) * 4;
      data[dst] = screen.data[src];
      data[dst + 1] = screen.data[src + 1];
      data[dst + 2] = screen.data[src + 2];
      data[dst + 3] = screen.data[src + 3];
    }
  }
  return { width, height, data, format: screen.format };
}
