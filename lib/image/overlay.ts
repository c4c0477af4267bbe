import type { Screen } from '../types/screen';
import type { Box } from '../types/screen';
import { RawImage } from './pixels';

/** A copy of the screen as RGBA with rectangles drawn on it (debug screenshots, `glance locate --overlay`). */
export function drawBoxes(screen: Screen, boxes: { box: Box; colour: [number, number, number] }[], thickness = 2): RawImage {
  const { width, height } = screen;
  const data = Buffer.allocUnsafe(width * height * 4);
  const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
  for (let i = 0; i < data.length; i += 4) {
    data[i] = screen.data[i + r];
    data[i + 1] = screen.data[i + 1];
    data[i + 2] = screen.data[i + b];
    data[i + 3] = 255;
  }
  const paint = (x: number, y: number, colour: [number, number, number]) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = (y * width + x) * 4;
    [data[i], data[i + 1], data[i + 2]] = colour;
  };
  for (const { box, colour } of boxes) {
    for (let t = 0; t < thickness; t++) {
      for (let x = box.x - t; x <= box.x + box.width + t; x++) {
        paint(x, box.y - t, colour);
        paint(x, box.y + box.height + t, colour);
      }
      for (let y = box.y - t; y <= box.y + box.height + t; y++) {
        paint(box.x - t, y, colour);
        paint(box.x + box.width + t, y, colour);
      }
    }
  }
  return { width, height, data };
}
