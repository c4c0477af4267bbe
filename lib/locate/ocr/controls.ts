import { Box, bottom, centerY, right } from '../geometry';
import { GreyImage } from './preprocess';
import { median } from '../../util/median';

/**
 * Finding the control a text belongs to, in the pixels: the button around a
 * label, the input beside or below a label, the box beside a checkbox label.
 */
const SAME = 14;
/**
 * A light face with a faint rounded border (a pill-shaped input) leaks
 * through the corners' anti-aliased pixels at SAME: it is flooded again,
 * strictly.
 */
const SAME_STRICT = 4;
/** A change of grey this large along a ray is an edge: a light input's faint border (#e3e3e3 on white) is 28. */
const EDGE = 18;

const at = (g: GreyImage, x: number, y: number) => g.data[Math.round(y) * g.width + Math.round(x)];
const inside = (g: GreyImage, x: number, y: number) => x >= 0 && y >= 0 && x < g.width && y < g.height;

/**
 * The uniformly coloured area that surrounds `text` (a button's or an
 * input's face), found by flooding from just beside the text. Null when the
 * area is not enclosed within `maxW` x `maxH` (the text sits on the page).
 */
export function enclosure(g: GreyImage, text: Box, maxW = 520, maxH = 90): Box | null {
  return flooded(g, text, maxW, maxH, SAME) ?? flooded(g, text, maxW, maxH, SAME_STRICT);
}

function flooded(g: GreyImage, text: Box, maxW: number, maxH: number, same: number): Box | null {
  // Whole pixels: a re-read line's boxes come at half pixels, and a fractional index would never be marked seen.
  const seedX = Math.max(0, Math.round(text.x) - 3);
  const seedY = Math.round(centerY(text));
  if (!inside(g, seedX, seedY)) return null;
  const colour = at(g, seedX, seedY);
  const wx0 = Math.max(0, Math.round(right(text) - maxW));
  const wx1 = Math.min(g.width - 1, Math.round(text.x + maxW));
  const wy0 = Math.max(0, Math.round(bottom(text) - maxH));
  const wy1 = Math.min(g.height - 1, Math.round(text.y + maxH));
  const w = wx1 - wx0 + 1;
  const seen = new Uint8Array(w * (wy1 - wy0 + 1));
  const stack = [seedX, seedY];
  let [x0, y0, x1, y1] = [seedX, seedY, seedX, seedY];
  while (stack.length) {
    const y = stack.pop()!;
    const x = stack.pop()!;
    if (x < wx0 || x > wx1 || y < wy0 || y > wy1) continue;
    const k = (y - wy0) * w + (x - wx0);
    if (seen[k] || Math.abs(at(g, x, y) - colour) > same) continue;
    seen[k] = 1;
    // Reaching the window's edge means the area is the page, not a control.
    if (x === wx0 || x === wx1 || y === wy0 || y === wy1) return null;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    stack.push(x - 1, y, x + 1, y, x, y - 1, x, y + 1);
  }
  const box = { x: x0 - 1, y: y0 - 1, width: x1 - x0 + 3, height: y1 - y0 + 3 };
  // The area must actually surround the text, not be a sliver beside it.
  if (box.x > text.x || right(box) < right(text) - 2 || box.y > text.y + 2 || bottom(box) < bottom(text) - 2) return null;
  return box;
}

/**
 * A box shaped like a text input or a select: wider than tall, between 16 and
 * 80 px high (`tallest`: a text area asked for may be taller). A face a value
 * is read in may be as compact as a spin button's entry (its steppers beside
 * it): `minRatio` 1.25.
 */
export function inputLike(box: Box | null, minRatio = 1.8, tallest = INPUT_HEIGHT): box is Box {
  return !!box && box.height >= 16 && box.height <= tallest && box.width >= 40 && box.width >= box.height * minRatio;
}

/** The least width to height of an input beside its label, centred on the label's line (a select showing '25'). */
const COMPACT_RATIO = 1.1;
/** The tallest a one-line input or a select is, in pixels. */
const INPUT_HEIGHT = 80;
/** The tallest a text area is looked for, in pixels: a few lines more than an input. */
export const TEXT_AREA_HEIGHT = 240;

/** The first edge (a change of more than EDGE grey levels) along a ray, as a distance, or -1. */
function firstEdge(g: GreyImage, x: number, y: number, dx: number, dy: number, limit: number): number {
  if (!inside(g, x, y)) return -1;
  const start = at(g, x, y);
  for (let d = 1; d <= limit; d++) {
    const px = x + dx * d;
    const py = y + dy * d;
    if (!inside(g, px, py)) return -1;
    if (Math.abs(at(g, px, py) - start) > EDGE) return d;
  }
  return -1;
}

/** The face of an input that starts at an edge found from a label: flood from just past the edge. */
function inputAt(g: GreyImage, edgeX: number, edgeY: number, dx: number, dy: number, tallest: number, minRatio: number): Box | null {
  for (let step = 1; step <= 4; step++) {
    const probe = { x: edgeX + dx * step + 3, y: edgeY + dy * step - 4, width: 2, height: 8 };
    const face = enclosure(g, probe, 1000, tallest + 40);
    if (inputLike(face, minRatio, tallest)) return face;
  }
  return null;
}

/**
 * The input a label belongs to: to its right on the same line, or just below
 * it; up to `tallest` pixels high (TEXT_AREA_HEIGHT for a text area).
 */
export function fieldNear(g: GreyImage, label: Box, direction: 'right' | 'below' | 'auto' = 'auto', tallest = INPUT_HEIGHT): Box | null {
  const y = Math.round(centerY(label));
  if (direction !== 'below') {
    const d = firstEdge(g, Math.round(right(label)) + 2, y, 1, 0, 320);
    if (d > 0) {
      // On the label's own line a compact face counts too: a select showing '25' in "Show [25] entries".
      const face = inputAt(g, Math.round(right(label)) + 2 + d, y, 1, 0, tallest, COMPACT_RATIO);
      const onLine = face && face.x >= right(label) - 2 && Math.abs(centerY(face) - y) < face.height * (inputLike(face, 1.8, tallest) ? 1 : 0.25);
      if (onLine) return face;
    }
  }
  if (direction !== 'right') {
    // A short label stands over a pill-shaped input's rounded corner: a third ray starts past it.
    for (const x of [Math.round(label.x) + 6, Math.round(label.x + label.width / 2), Math.round(label.x) + 30]) {
      const d = firstEdge(g, x, Math.round(bottom(label)) + 2, 0, 1, 60);
      if (d <= 0) continue;
      const edgeY = Math.round(bottom(label)) + 2 + d;
      const face = enclosure(g, { x: x + 4, y: edgeY + 4, width: 2, height: 2 }, 1000, tallest + 40);
      if (!face || face.y < bottom(label) - 2) continue;
      const joined = inputAfterAddon(g, face, tallest);
      if (joined) return joined;
      if (inputLike(face, 1.8, tallest)) return face;
    }
  }
  return null;
}

/**
 * The input joined to the right of a smaller box ('https://', '+1', '@'), as
 * input groups draw a prefix: about the same top and bottom, sharing a
 * border, and much wider (a search input's joined button is narrower than it).
 */
function inputAfterAddon(g: GreyImage, addon: Box, tallest: number): Box | null {
  if (addon.height < 16 || addon.height > tallest || addon.width > addon.height * 4) return null;
  // enclosure() floods from 3 px left of the box it is given: the seed falls 3 px inside the input.
  const input = enclosure(g, { x: Math.round(right(addon)) + 6, y: Math.round(centerY(addon)) - 1, width: 2, height: 2 }, 1000, tallest + 40);
  const joined = input && input.x <= right(addon) + 3 && Math.abs(input.y - addon.y) <= 6 && Math.abs(bottom(input) - bottom(addon)) <= 6;
  return joined && input.width >= addon.width * 1.5 && inputLike(input, 1.8, tallest) ? input : null;
}

/**
 * The small square or circle just left of a checkbox or radio label: the
 * rows of ink that run unbroken through the label's middle, so that the boxes
 * of the rows above and below (a stack of checkboxes 19 px apart) are not
 * taken for part of it.
 */
export function toggleNear(g: GreyImage, label: Box): Box | null {
  const cy = Math.round(centerY(label));
  const background = at(g, Math.max(0, label.x - 2), cy);
  const rows = new Map<number, [number, number]>();
  for (let y = cy - 14; y <= cy + 14; y++) {
    for (let x = Math.round(label.x) - 34; x < label.x - 2; x++) {
      if (!inside(g, x, y) || Math.abs(at(g, x, y) - background) <= 40) continue;
      const [from, to] = rows.get(y) ?? [x, x];
      rows.set(y, [Math.min(from, x), Math.max(to, x)]);
    }
  }
  // The inked row nearest the label's middle, then the unbroken run of inked rows through it.
  const start = [0, 1, -1, 2, -2, 3, -3].map((d) => cy + d).find((y) => rows.has(y));
  if (start === undefined) return null;
  let [y0, y1] = [start, start];
  while (rows.has(y0 - 1)) y0--;
  while (rows.has(y1 + 1)) y1++;
  const spans = [...rows].filter(([y]) => y >= y0 && y <= y1).map(([, span]) => span);
  const x0 = Math.min(...spans.map(([from]) => from));
  const x1 = Math.max(...spans.map(([, to]) => to));
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  return w >= 8 && h >= 8 && w <= 28 && h <= 28 ? { x: x0, y: y0, width: w, height: h } : null;
}

/**
 * Whether nothing but background lies between a text and the text under it:
 * no border of an input or a box runs across the gap (a label and the value
 * of its underlined field, not a field's value and the next field).
 */
export function openBetween(g: GreyImage, upper: Box, lower: Box): boolean {
  // Under the upper text: a field's border spans its whole value.
  const x0 = Math.max(0, Math.round(upper.x));
  const x1 = Math.min(g.width - 1, Math.round(right(upper)));
  const y0 = Math.round(bottom(upper)) + 1;
  const y1 = Math.round(lower.y) - 1;
  if (y1 < y0 || x1 <= x0 || !inside(g, x0, y0)) return y1 < y0;
  const background = at(g, x0, y0);
  for (let y = y0; y <= y1; y++) {
    let across = 0;
    for (let x = x0; x <= x1; x++) if (Math.abs(at(g, x, y) - background) > EDGE) across++;
    if (across > (x1 - x0 + 1) * 0.6) return false;
  }
  return true;
}

/** Grey levels this far apart are two colours: a badge's face and the page round it. */
const OWN_FACE_CONTRAST = 25;

/**
 * Whether a text's box is a face of its own colour: its inside, mostly the
 * face, stands apart from a ring just outside it. The recogniser boxes white
 * words on a coloured pill by the pill they stand on.
 */
export function ownFace(g: GreyImage, box: Box): boolean {
  const [x0, y0, x1, y1] = [Math.round(box.x), Math.round(box.y), Math.round(box.x + box.width) - 1, Math.round(box.y + box.height) - 1];
  if (x0 < 3 || y0 < 3 || x1 >= g.width - 3 || y1 >= g.height - 3 || x1 <= x0 || y1 <= y0) return false;
  const inside: number[] = [];
  for (let y = y0; y <= y1; y += 2) for (let x = x0; x <= x1; x += 2) inside.push(at(g, x, y));
  const outside: number[] = [];
  for (let x = x0 - 2; x <= x1 + 2; x += 2) outside.push(at(g, x, y0 - 3), at(g, x, y1 + 3));
  for (let y = y0; y <= y1; y += 2) outside.push(at(g, x0 - 3, y), at(g, x1 + 3, y));
  return Math.abs(median(inside) - median(outside)) > OWN_FACE_CONTRAST;
}
