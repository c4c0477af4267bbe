import type { Box, Screen } from '../types/screen';
import { clampBox } from './crop';
import { drawBoxes } from './overlay';
import { encodePng } from './pixels';

/** The picture is at most this wide (the preview's step list shows it at about this size). */
const PICTURE_WIDTH = 360;
/** Around the element, this much of the screen is shown: enough to see where it stands. */
const CONTEXT_WIDTH = 480;
const CONTEXT_HEIGHT = 270;
const MARK: [number, number, number] = [230, 40, 40];
/** Grey, opaque. */
const MASK_RGBA = 0x808080ff;

/**
 * A recorded step's picture: the part of the screen around its element, the
 * element outlined, each masked box (a password field) filled grey, scaled
 * to at most PICTURE_WIDTH wide; the whole screen where there is no element.
 */
export async function stepPicture(screen: Screen, box: Box | null, masks: readonly Box[]): Promise<Buffer> {
  const marked = drawBoxes(screen, box ? [{ box, colour: MARK }] : []);
  for (const mask of masks) {
    const inside = clampBox(mask, screen);
    for (let y = inside.y; y < inside.y + inside.height; y++) {
      for (let x = inside.x; x < inside.x + inside.width; x++) marked.data.writeUInt32BE(MASK_RGBA, (y * screen.width + x) * 4);
    }
  }
  const region = box ? around(box, screen) : { x: 0, y: 0, width: screen.width, height: screen.height };
  const sharp = (await import('sharp')).default;
  return sharp(marked.data, { raw: { width: screen.width, height: screen.height, channels: 4 } })
    .extract({ left: region.x, top: region.y, width: region.width, height: region.height })
    .resize({ width: Math.min(PICTURE_WIDTH, region.width) })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** The context around a box: at least CONTEXT_WIDTH × CONTEXT_HEIGHT, centred on it, inside the screen. */
function around(box: Box, screen: { width: number; height: number }): Box {
  const width = Math.min(screen.width, Math.max(CONTEXT_WIDTH, box.width + 40));
  const height = Math.min(screen.height, Math.max(CONTEXT_HEIGHT, box.height + 40));
  const x = Math.max(0, Math.min(screen.width - width, Math.round(box.x + box.width / 2 - width / 2)));
  const y = Math.max(0, Math.min(screen.height - height, Math.round(box.y + box.height / 2 - height / 2)));
  return { x, y, width, height };
}
