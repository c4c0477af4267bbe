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

const BLOCK = 4;
/** A block is flat when its grey levels span at most this much. */
const FLAT = 10;
/** Neighbouring flat blocks join one region when their means differ by at most this much. */
const JOIN = 8;
const REGION_MIN_BLOCKS = 12;
/** How far from the background a pixel must be to count as ink. */
const INK_CONTRAST = 40;
/** Backgrounds darker than this are not stretched further (the text would have no room left). */
const MIN_BACKGROUND = 110;
const WHITE_POINT = 225;
const LINE_MIN_RUN = 28;
/** Darker than this, a pixel of the prepared (dark on white) screen is ink. */
export const INK = 160;

/** Luminance of a 4-byte-per-pixel image; `order` says where red and blue are. */
export function toGrey(image: RawImage, order: 'bgrx' | 'rgba'): GreyImage {
  const { width, height, data } = image;
  const out = new Uint8Array(width * height);
  const [r, b] = order === 'bgrx' ? [2, 0] : [0, 2];
  for (let i = 0, p = 0; p < out.length; i += 4, p++) out[p] = (data[i + r] * 77 + data[i + 1] * 150 + data[i + b] * 29) >> 8;
  return { width, height, data: out };
}

/**
 * Makes all text darker than its background, the background white, and
 * faint text darker (contrast stretched). The screen is cut into 4x4
 * blocks; flat blocks of one colour form regions (a navbar, a button, the
 * page). A region whose enclosed text is lighter than it is inverted together
 * with that text. Regions are painted largest first, so a white button inside
 * a dark bar gets its own decision.
 */
export function invertLightText(grey: GreyImage): GreyImage {
  const { width, height, data } = grey;
  const cols = Math.ceil(width / BLOCK);
  const rows = Math.ceil(height / BLOCK);
  const mean = new Float32Array(cols * rows);
  const flat = new Uint8Array(cols * rows);
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < cols; bx++) {
      let sum = 0, n = 0, lo = 255, hi = 0;
      for (let y = by * BLOCK; y < Math.min(height, (by + 1) * BLOCK); y++) {
        for (let x = bx * BLOCK; x < Math.min(width, (bx + 1) * BLOCK); x++) {
          const v = data[y * width + x];
          sum += v; n++;
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
      mean[by * cols + bx] = sum / n;
      flat[by * cols + bx] = hi - lo <= FLAT ? 1 : 0;
    }
  }
  const decisions: { area: number; blocks: number[]; invert: boolean; background: number }[] = [];
  const owner = new Int32Array(cols * rows).fill(-1);
  for (const region of flatRegions(mean, flat, owner, cols, rows)) {
    const holes = enclosedBlocks(region, owner, cols);
    if (!holes.length) continue;
    let lighter = 0, darker = 0;
    for (const block of holes) {
      if (flat[block]) continue; // nested regions decide for themselves; only text edges count here
      const bx = block % cols, by = (block - bx) / cols;
      for (let y = by * BLOCK; y < Math.min(height, (by + 1) * BLOCK); y++) {
        for (let x = bx * BLOCK; x < Math.min(width, (bx + 1) * BLOCK); x++) {
          const d = data[y * width + x] - region.mean;
          if (d > INK_CONTRAST) lighter++;
          else if (d < -INK_CONTRAST) darker++;
        }
      }
    }
    const invert = lighter > darker;
    decisions.push({ area: region.area, blocks: [...region.members, ...holes], invert, background: invert ? 255 - region.mean : region.mean });
  }
  // Per block, how its grey levels map: inverted or not, the background stretched to white. Each
  // decision is one lookup table; the largest regions paint first, so nested ones get their own.
  const tables = [levelTable(false, 255)];
  const tableOf = new Uint16Array(cols * rows);
  decisions.sort((a, b) => b.area - a.area);
  for (const d of decisions) {
    tables.push(levelTable(d.invert, Math.max(MIN_BACKGROUND, d.background)));
    for (const block of d.blocks) tableOf[block] = tables.length - 1;
  }
  const out = new Uint8Array(data.length);
  for (let by = 0; by < rows; by++) {
    for (let bx = 0; bx < cols; bx++) {
      const table = tables[tableOf[by * cols + bx]];
      const x1 = Math.min(width, (bx + 1) * BLOCK);
      for (let y = by * BLOCK; y < Math.min(height, (by + 1) * BLOCK); y++) {
        for (let i = y * width + bx * BLOCK, end = y * width + x1; i < end; i++) out[i] = table[data[i]];
      }
    }
  }
  return { width, height, data: out };
}

/** Grey levels, inverted or not, scaled so that `background` becomes white, then stretched (see stretchLevel). */
function levelTable(invert: boolean, background: number): Uint8Array {
  const table = new Uint8Array(256);
  for (let g = 0; g < 256; g++) table[g] = stretchLevel(Math.min(255, Math.round(((invert ? 255 - g : g) * 255) / background)));
  return table;
}

/** Stretches contrast so the page background is white and faint text (placeholders) gets darker. */
function stretchLevel(v: number): number {
  return v >= WHITE_POINT ? 255 : Math.round(((v * 255) / WHITE_POINT) * 0.85);
}

interface Region { id: number; members: number[]; mean: number; x0: number; y0: number; x1: number; y1: number; area: number }

/**
 * Connected flat blocks of about the same grey, with at least REGION_MIN_BLOCKS
 * blocks. `owner` gets each flat block's region number (one shared map: a
 * region's own set of blocks would cost an allocation of the whole grid each).
 */
function* flatRegions(mean: Float32Array, flat: Uint8Array, owner: Int32Array, cols: number, rows: number): Generator<Region> {
  for (let start = 0; start < mean.length; start++) {
    if (!flat[start] || owner[start] >= 0) continue;
    const id = start;
    const members: number[] = [];
    const stack = [start];
    owner[start] = id;
    let x0 = cols, y0 = rows, x1 = 0, y1 = 0, sum = 0;
    while (stack.length) {
      const i = stack.pop()!;
      members.push(i);
      sum += mean[i];
      const x = i % cols, y = (i - x) / cols;
      if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
      for (const j of [x > 0 ? i - 1 : -1, x < cols - 1 ? i + 1 : -1, y > 0 ? i - cols : -1, y < rows - 1 ? i + cols : -1]) {
        if (j >= 0 && flat[j] && owner[j] < 0 && Math.abs(mean[j] - mean[start]) <= JOIN) {
          owner[j] = id;
          stack.push(j);
        }
      }
    }
    if (members.length < REGION_MIN_BLOCKS) continue;
    yield { id, members, mean: sum / members.length, x0, y0, x1, y1, area: (x1 - x0 + 1) * (y1 - y0 + 1) };
  }
}

/** The blocks inside a region's box that cannot reach the box's edge without crossing the region. */
function enclosedBlocks(region: Region, owner: Int32Array, cols: number): number[] {
  const { id, x0, y0, x1, y1 } = region;
  const w = x1 - x0 + 1, h = y1 - y0 + 1;
  const outside = new Uint8Array(w * h);
  const stack: number[] = [];
  const visit = (x: number, y: number) => {
    const k = (y - y0) * w + (x - x0);
    if (!outside[k] && owner[y * cols + x] !== id) { outside[k] = 1; stack.push(k); }
  };
  for (let x = x0; x <= x1; x++) { visit(x, y0); visit(x, y1); }
  for (let y = y0; y <= y1; y++) { visit(x0, y); visit(x1, y); }
  while (stack.length) {
    const k = stack.pop()!;
    const x = (k % w) + x0, y = Math.floor(k / w) + y0;
    if (x > x0) visit(x - 1, y);
    if (x < x1) visit(x + 1, y);
    if (y > y0) visit(x, y - 1);
    if (y < y1) visit(x, y + 1);
  }
  const holes: number[] = [];
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) {
    const block = y * cols + x;
    if (!outside[(y - y0) * w + (x - x0)] && owner[block] !== id) holes.push(block);
  }
  return holes;
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
  return prepareGrey(toGrey(image, order));
}

/** The whole preparation of a screen already in grey: dark text on white, contrast stretched, thin lines erased. */
export function prepareGrey(grey: GreyImage): GreyImage {
  return eraseLines(invertLightText(grey));
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
