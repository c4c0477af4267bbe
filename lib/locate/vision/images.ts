import type { Box, Screen } from '../../types/screen';
import { drawBoxes } from '../../image/overlay';
import type { Size } from './families';

/**
 * Images as the model gets them: a screen (or part of it) as a PNG data URL,
 * at the size the family asked for, optionally with a marker drawn on it.
 */

/** Verify's marker: a colour user interfaces rarely use, so nothing on the screen is taken for it. */
export const MARKER_COLOUR: [number, number, number] = [255, 0, 255];
const MARKER_THICKNESS = 3;

export async function imageUrl(screen: Screen, size: Size, options: { region?: Box; marker?: Box } = {}): Promise<string> {
  const region = options.region ?? { x: 0, y: 0, width: screen.width, height: screen.height };
  const part = region.width === screen.width && region.height === screen.height ? screen : cut(screen, region);
  const marks = options.marker
    ? [{ box: { ...options.marker, x: options.marker.x - region.x, y: options.marker.y - region.y }, colour: MARKER_COLOUR }]
    : [];
  const rgba = drawBoxes(part, marks, MARKER_THICKNESS); // also the BGRX → RGBA copy
  const sharp = (await import('sharp')).default; // loaded on first use, as for every PNG Glance writes
  let image = sharp(rgba.data, { raw: { width: rgba.width, height: rgba.height, channels: 4 } });
  if (size.width !== rgba.width || size.height !== rgba.height) image = image.resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' });
  const png = await image.removeAlpha().png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

function cut(screen: Screen, region: Box): Screen {
  const data = Buffer.allocUnsafe(region.width * region.height * 4);
  for (let y = 0; y < region.height; y++) {
    const from = ((region.y + y) * screen.width + region.x) * 4;
    screen.data.copy(data, y * region.width * 4, from, from + region.width * 4);
  }
  return { width: region.width, height: region.height, data, format: screen.format };
}
