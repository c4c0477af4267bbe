import type { Box } from '../types/screen';

/**
 * Template matching by normalised cross-correlation on grey pixels: where the
 * stored element crop appears in the current screen, and how well (-1..1).
 */
export interface Grey {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface TemplateHit {
  x: number;
  y: number;
  score: number;
}

/**
 * Prepared for many placements: the template minus its mean (so the cross
 * term needs one pass, since the window's mean drops out against a zero-mean
 * template) and integral images of the screen (so each window's variance
 * costs four lookups).
 */
class Matcher {
  private readonly zeroMean: Float32Array;
  private readonly varT: number;
  private readonly flat: boolean;
  private readonly sum: Float64Array;
  private readonly sumSq: Float64Array;
  private readonly stride: number;

  constructor(private readonly screen: Grey, private readonly template: Grey) {
    const n = template.width * template.height;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += template.data[i];
    mean /= n;
    this.zeroMean = new Float32Array(n);
    let varT = 0;
    for (let i = 0; i < n; i++) {
      this.zeroMean[i] = template.data[i] - mean;
      varT += this.zeroMean[i] * this.zeroMean[i];
    }
    this.varT = varT;
    this.flat = varT < n;
    this.stride = screen.width + 1;
    this.sum = new Float64Array(this.stride * (screen.height + 1));
    this.sumSq = new Float64Array(this.stride * (screen.height + 1));
    for (let y = 0; y < screen.height; y++) {
      let row = 0, rowSq = 0;
      for (let x = 0; x < screen.width; x++) {
        const v = screen.data[y * screen.width + x];
        row += v;
        rowSq += v * v;
        this.sum[(y + 1) * this.stride + x + 1] = this.sum[y * this.stride + x + 1] + row;
        this.sumSq[(y + 1) * this.stride + x + 1] = this.sumSq[y * this.stride + x + 1] + rowSq;
      }
    }
  }

  private windowSum(table: Float64Array, x: number, y: number): number {
    const { stride } = this;
    const w = this.template.width, h = this.template.height;
    return table[(y + h) * stride + x + w] - table[y * stride + x + w] - table[(y + h) * stride + x] + table[y * stride + x];
  }

  /** NCC at (x, y); a flat template (or window) compares grey levels directly instead. */
  at(x: number, y: number): number {
    const { screen, template } = this;
    const n = template.width * template.height;
    if (this.flat) {
      let diff = 0;
      for (let ty = 0; ty < template.height; ty++) for (let tx = 0; tx < template.width; tx++) diff += Math.abs(template.data[ty * template.width + tx] - screen.data[(y + ty) * screen.width + x + tx]);
      return 1 - diff / n / 255;
    }
    const s = this.windowSum(this.sum, x, y);
    const varI = this.windowSum(this.sumSq, x, y) - (s * s) / n;
    if (varI < n) return 0;
    let cross = 0;
    for (let ty = 0; ty < template.height; ty++) {
      const row = (y + ty) * screen.width + x;
      const trow = ty * template.width;
      for (let tx = 0; tx < template.width; tx++) cross += this.zeroMean[trow + tx] * screen.data[row + tx];
    }
    return cross / Math.sqrt(this.varT * varI);
  }
}

/** NCC of the template placed at (x, y). */
export function nccAt(screen: Grey, template: Grey, x: number, y: number): number {
  return new Matcher(screen, template).at(x, y);
}

/** The best placement within `radius` pixels of (x, y). */
export function searchNear(screen: Grey, template: Grey, x: number, y: number, radius: number, matcher = new Matcher(screen, template)): TemplateHit {
  let best: TemplateHit = { x, y, score: -1 };
  for (let dy = -radius; dy <= radius; dy++) {
    for (let dx = -radius; dx <= radius; dx++) {
      const px = x + dx, py = y + dy;
      if (px < 0 || py < 0 || px + template.width > screen.width || py + template.height > screen.height) continue;
      const score = matcher.at(px, py);
      if (score > best.score) best = { x: px, y: py, score };
    }
  }
  return best;
}

function shrink(image: Grey, factor: number): Grey {
  const width = Math.floor(image.width / factor), height = Math.floor(image.height / factor);
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy++) for (let dx = 0; dx < factor; dx++) sum += image.data[(y * factor + dy) * image.width + x * factor + dx];
      data[y * width + x] = sum / (factor * factor);
    }
  }
  return { width, height, data };
}

/** A side of the shrunk template shorter than this is searched at every pixel. */
const NARROW = 12;

/**
 * The whole screen, coarse to fine: every placement on a 4x smaller copy,
 * then the best few refined at full size.
 */
export function searchScreen(screen: Grey, template: Grey): TemplateHit {
  const factor = template.width >= 24 && template.height >= 12 ? 4 : 2;
  const small = shrink(screen, factor);
  const smallTemplate = shrink(template, factor);
  const coarse = new Matcher(small, smallTemplate);
  const top: TemplateHit[] = [];
  // Every other placement of the small copy, then the best few looked at around: a peak is wider than one step.
  // Not along a side the small copy has few pixels on: there a shift of one pixel is a large part of it (a
  // button's edges), and the peak is one pixel wide.
  const stepX = smallTemplate.width < NARROW ? 1 : 2;
  const stepY = smallTemplate.height < NARROW ? 1 : 2;
  for (let y = 0; y + smallTemplate.height <= small.height; y += stepY) {
    for (let x = 0; x + smallTemplate.width <= small.width; x += stepX) {
      const score = coarse.at(x, y);
      if (top.length < 5 || score > top[top.length - 1].score) {
        top.push({ x, y, score });
        top.sort((a, b) => b.score - a.score);
        if (top.length > 5) top.pop();
      }
    }
  }
  for (const [i, hit] of top.entries()) top[i] = searchNear(small, smallTemplate, hit.x, hit.y, 1, coarse);
  let best: TemplateHit = { x: 0, y: 0, score: -1 };
  for (const hit of top) {
    // Refined on a piece of the screen around the hit: a matcher over the whole screen costs more than the search.
    const margin = factor + 1;
    const x = Math.max(0, hit.x * factor - margin), y = Math.max(0, hit.y * factor - margin);
    const piece = cropGrey(screen, {
      x, y, width: Math.min(screen.width, hit.x * factor + template.width + margin) - x, height: Math.min(screen.height, hit.y * factor + template.height + margin) - y,
    });
    const fine = searchNear(piece, template, hit.x * factor - x, hit.y * factor - y, margin);
    if (fine.score > best.score) best = { x: fine.x + x, y: fine.y + y, score: fine.score };
  }
  return best;
}

export function cropGrey(image: Grey, box: Box): Grey {
  const data = new Uint8Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) data.set(image.data.subarray((box.y + y) * image.width + box.x, (box.y + y) * image.width + box.x + box.width), y * box.width);
  return { width: box.width, height: box.height, data };
}
