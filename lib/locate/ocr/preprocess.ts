import { RawImage } from '../../image/pixels';

/**
 * Turns a screen into what tesseract reads best: dark text on white, whatever
 * the text's colour was (white on a dark navbar, on a blue button, grey
 * placeholder on white), with the thin borders of inputs and tables erased.
 */
export interface GreyImage {
  width: number;
  height: number;
  data: Uint8Array;
}

const TILE = 16;
const GAIN = 2.4;
const LINE_MIN_RUN = 28;
const INK = 160;

/** Luminance of a 4-byte-per-pixel image; `order` says where red and blue are. */
export function toGrey(image: RawImage, order: 'bgrx' | 'rgba'): GreyImage {
  const { width, height, data } = image;
  const out = new Uint8Array(width * height);
  const [r, b] = order === 'bgrx' ? [2, 0] : [0, 2];
  for (let i = 0, p = 0; p < out.length; i += 4, p++) out[p] = (data[i + r] * 77 + data[i + 1] * 150 + data[i + b] * 29) >> 8;
  return { width, height, data: out };
}

/** The most common grey level of each TILE x TILE tile: the local background. */
function tileBackgrounds(grey: GreyImage): { cols: number; values: Uint8Array } {
  const cols = Math.ceil(grey.width / TILE);
  const rows = Math.ceil(grey.height / TILE);
  const values = new Uint8Array(cols * rows);
  const histogram = new Uint16Array(64);
  for (let ty = 0; ty < rows; ty++) {
    for (let tx = 0; tx < cols; tx++) {
      histogram.fill(0);
      const y1 = Math.min(grey.height, (ty + 1) * TILE);
      const x1 = Math.min(grey.width, (tx + 1) * TILE);
      for (let y = ty * TILE; y < y1; y++) for (let x = tx * TILE; x < x1; x++) histogram[grey.data[y * grey.width + x] >> 2]++;
      let best = 0;
      for (let v = 1; v < 64; v++) if (histogram[v] > histogram[best]) best = v;
      values[ty * cols + tx] = (best << 2) + 2;
    }
  }
  return { cols, values };
}

/** Distance from the local background, as ink: 0 (black) is far from it, 255 is background. */
export function normalise(grey: GreyImage): GreyImage {
  const { cols, values } = tileBackgrounds(grey);
  const out = new Uint8Array(grey.data.length);
  for (let y = 0; y < grey.height; y++) {
    const row = Math.floor(y / TILE) * cols;
    for (let x = 0; x < grey.width; x++) {
      const i = y * grey.width + x;
      const ink = Math.abs(grey.data[i] - values[row + Math.floor(x / TILE)]) * GAIN;
      out[i] = ink >= 255 ? 0 : 255 - ink;
    }
  }
  return { width: grey.width, height: grey.height, data: out };
}

/**
 * Erases horizontal and vertical strokes at most 2 px thick and at least
 * LINE_MIN_RUN long: the borders of inputs, cards and tables that make
 * tesseract drop the text touching them.
 */
export function eraseLines(image: GreyImage): GreyImage {
  const { width, height } = image;
  const src = image.data;
  const out = Uint8Array.from(src);
  // A pixel belongs to a thin line when it is dark but the pixels 2 px to either side (across the line) are not both dark.
  const thinAt = (i: number, step: number, lo: boolean, hi: boolean) =>
    src[i] < INK && !((lo && src[i - 2 * step] < INK) && (hi && src[i + 2 * step] < INK));
  // Horizontal runs.
  for (let y = 0; y < height; y++) {
    let start = -1;
    for (let x = 0; x <= width; x++) {
      const i = y * width + x;
      const on = x < width && thinAt(i, width, y >= 2, y < height - 2);
      if (on && start < 0) start = x;
      else if (!on && start >= 0) {
        if (x - start >= LINE_MIN_RUN) for (let k = start; k < x; k++) clearAcross(out, src, y * width + k, width, y, height);
        start = -1;
      }
    }
  }
  // Vertical runs.
  for (let x = 0; x < width; x++) {
    let start = -1;
    for (let y = 0; y <= height; y++) {
      const i = y * width + x;
      const on = y < height && thinAt(i, 1, x >= 2, x < width - 2);
      if (on && start < 0) start = y;
      else if (!on && start >= 0) {
        if (y - start >= LINE_MIN_RUN) for (let k = start; k < y; k++) clearAcross(out, src, k * width + x, 1, x, width);
        start = -1;
      }
    }
  }
  return { width, height, data: out };
}

/** Whitens the line pixel at `i` and its dark neighbours one step across the line. */
function clearAcross(out: Uint8Array, src: Uint8Array, i: number, step: number, pos: number, size: number): void {
  out[i] = 255;
  if (pos >= 1 && src[i - step] < INK) out[i - step] = 255;
  if (pos < size - 1 && src[i + step] < INK) out[i + step] = 255;
}

/** The whole preparation, for a screen in X11's BGRX order or RGBA. */
export function prepareForOcr(image: RawImage, order: 'bgrx' | 'rgba'): GreyImage {
  return eraseLines(normalise(toGrey(image, order)));
}

/** A binary PGM (P5) file: the cheapest image format tesseract reads. */
export function toPgm(image: GreyImage): Buffer {
  const header = Buffer.from(`P5\n${image.width} ${image.height}\n255\n`);
  return Buffer.concat([header, Buffer.from(image.data.buffer, image.data.byteOffset, image.data.length)]);
}

/** A crop of a grey image, scaled by an integer factor (nearest neighbour keeps strokes crisp for PSM 7). */
export function cropGrey(image: GreyImage, box: { x: number; y: number; width: number; height: number }, scale = 1): GreyImage {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const w = Math.max(1, Math.min(image.width - x0, Math.ceil(box.width)));
  const h = Math.max(1, Math.min(image.height - y0, Math.ceil(box.height)));
  const out = new Uint8Array(w * scale * h * scale);
  for (let y = 0; y < h * scale; y++) {
    const src = (y0 + Math.floor(y / scale)) * image.width + x0;
    for (let x = 0; x < w * scale; x++) out[y * w * scale + x] = image.data[src + Math.floor(x / scale)];
  }
  return { width: w * scale, height: h * scale, data: out };
}
