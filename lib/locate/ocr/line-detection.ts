import type { Screen } from '../../types/screen';

/**
 * The text detector's two ends, without the model: a screen turned into the
 * detector's input, and the detector's probability map turned into lines.
 * Both run on the models' thread (onnx-worker), beside the model's run: on a
 * whole screen they take 30 to 115 ms, and their buffers' collection more,
 * which the finder's thread spends listening for the screen's changes instead.
 */

export interface TextLine {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Mean probability of text over the line, 0-1. */
  score: number;
}

/** The detector's probability map is cut at this, as PaddleOCR does. */
const PIXEL_THRESHOLD = 0.3;
/** A line whose mean probability is lower is noise. */
const LINE_THRESHOLD = 0.6;
/** The detector marks the middle of a line; its box is grown by area × ratio / perimeter. */
const UNCLIP_RATIO = 1.6;
/** Lines narrower or lower than this (in pixels) are specks. */
const MIN_SIDE = 3;
const DET_MEAN = [0.485, 0.456, 0.406];
const DET_STD = [0.229, 0.224, 0.225];
/** PaddleOCR feeds blue, green, red, normalised with these means in that order: each channel's 256 levels, normalised once. */
const DET_LEVELS = [0, 1, 2].map((c) => Float32Array.from({ length: 256 }, (_, v) => (v / 255 - DET_MEAN[c]) / DET_STD[c]));

/** The detector's input: the screen at `scale`, padded to sides in multiples of 32, and the size that holds the screen. */
export interface DetectorInput {
  input: Float32Array;
  dims: number[];
  width: number;
  height: number;
}

/** The screen as the detector's input, at `scale` of its size. */
export function detectorInput(screen: Screen, scale: number): DetectorInput {
  const width = Math.round(screen.width * scale), height = Math.round(screen.height * scale);
  // The network wants sides in multiples of 32: the screen is padded, not stretched.
  const W = Math.ceil(width / 32) * 32, H = Math.ceil(height / 32) * 32;
  const input = new Float32Array(3 * W * H);
  const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
  const plane = W * H;
  for (let c = 0; c < 3; c++) {
    const fill = (0 - DET_MEAN[c]) / DET_STD[c];
    input.fill(fill, c * plane, (c + 1) * plane);
  }
  const [blue, green, red] = DET_LEVELS;
  const columns = Int32Array.from({ length: width }, (_, x) => Math.min(screen.width - 1, Math.floor(x / scale)) * 4);
  for (let y = 0; y < height; y++) {
    const row = Math.min(screen.height - 1, Math.floor(y / scale)) * screen.width * 4;
    for (let x = 0, o = y * W; x < width; x++, o++) {
      const i = row + columns[x];
      input[o] = blue[screen.data[i + b]];
      input[plane + o] = green[screen.data[i + 1]];
      input[2 * plane + o] = red[screen.data[i + r]];
    }
  }
  return { input, dims: [1, 3, H, W], width, height };
}

/** The lines of the detector's probability map, in the screen's pixels (`scale` as the input was made). */
export function linesOfMap(map: Float32Array, { dims, width, height }: DetectorInput, scale: number): TextLine[] {
  const [, , H, W] = dims;
  return linesFromMap(map, W, H, width, height).map((l) => ({
    x: l.x / scale, y: l.y / scale, width: l.width / scale, height: l.height / scale, score: l.score,
  }));
}

/** Connected regions of the probability map above the pixel threshold, as boxes in the detected image's pixels. */
function linesFromMap(map: Float32Array, W: number, H: number, width: number, height: number): TextLine[] {
  const label = new Int32Array(W * H);
  const lines: TextLine[] = [];
  const stack: number[] = [];
  let next = 0;
  for (let start = 0; start < W * H; start++) {
    if (label[start] || map[start] <= PIXEL_THRESHOLD) continue;
    next++;
    let x0 = W, y0 = H, x1 = 0, y1 = 0, sum = 0, count = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % W, y = (p - x) / W;
      sum += map[p];
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (x > 0 && !label[p - 1] && map[p - 1] > PIXEL_THRESHOLD) { label[p - 1] = next; stack.push(p - 1); }
      if (x < W - 1 && !label[p + 1] && map[p + 1] > PIXEL_THRESHOLD) { label[p + 1] = next; stack.push(p + 1); }
      if (y > 0 && !label[p - W] && map[p - W] > PIXEL_THRESHOLD) { label[p - W] = next; stack.push(p - W); }
      if (y < H - 1 && !label[p + W] && map[p + W] > PIXEL_THRESHOLD) { label[p + W] = next; stack.push(p + W); }
    }
    const w = x1 - x0 + 1, h = y1 - y0 + 1;
    if (Math.min(w, h) < MIN_SIDE || sum / count < LINE_THRESHOLD) continue;
    const grow = (w * h * UNCLIP_RATIO) / (2 * (w + h));
    const x = Math.max(0, x0 - grow), y = Math.max(0, y0 - grow);
    lines.push({ x, y, width: Math.min(width, x1 + 1 + grow) - x, height: Math.min(height, y1 + 1 + grow) - y, score: sum / count });
  }
  return lines;
}
