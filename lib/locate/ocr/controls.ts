import { Box, bottom, centerX, centerY, contains, right } from '../geometry';
import { GreyImage } from './preprocess';
import { Analysis, phrases, TextMatch } from './analysis';
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

/** How far round a text a button's or an input's face is flooded, each way from the text. */
const FACE_REACH_X = 520;
const FACE_REACH_Y = 90;

/**
 * The uniformly coloured area that surrounds `text` (a button's or an
 * input's face), found by flooding from just beside the text. Null when the
 * area is not enclosed within `maxW` x `maxH` (the text sits on the page).
 */
export function enclosure(g: GreyImage, text: Box, maxW = FACE_REACH_X, maxH = FACE_REACH_Y): Box | null {
  return flooded(g, text, maxW, maxH, SAME) ?? flooded(g, text, maxW, maxH, SAME_STRICT);
}

/**
 * The face a read text stands on, flooded from beside it: from its left, else
 * from its right, else from just inside its top left corner. A reader may box
 * a value with the input's own left border (a sunken 3D frame read as '['),
 * and an icon may stand just left of a button's label: the face still shows
 * to the right of the text. A focused input's caret, just right of its value
 * and as tall as its face, cuts the face in two: the value's side of it still
 * shows inside the text's box, above its first letter. `maxW` bounds the
 * flood each way from the text.
 */
export function faceAround(g: GreyImage, text: Box, maxW = FACE_REACH_X): Box | null {
  const from = (side: Seed) => flooded(g, text, maxW, FACE_REACH_Y, SAME, side) ?? flooded(g, text, maxW, FACE_REACH_Y, SAME_STRICT, side);
  return from('left') ?? from('right') ?? from('inside');
}

/** Where a flood starts: just left of the text, just right of it, or just inside its top left corner. */
type Seed = 'left' | 'right' | 'inside';

function seedOf(text: Box, side: Seed): [number, number] {
  // Whole pixels: a re-read line's boxes come at half pixels, and a fractional index would never be marked seen.
  if (side === 'left') return [Math.max(0, Math.round(text.x) - 3), Math.round(centerY(text))];
  if (side === 'right') return [Math.round(right(text)) + 3, Math.round(centerY(text))];
  return [Math.round(text.x) + 2, Math.round(text.y) + 1];
}

function flooded(g: GreyImage, text: Box, maxW: number, maxH: number, same: number, side: Seed = 'left'): Box | null {
  const [seedX, seedY] = seedOf(text, side);
  if (!inside(g, seedX, seedY)) return null;
  const colour = at(g, seedX, seedY);
  const wx0 = Math.max(0, Math.round(right(text) - maxW));
  const wx1 = Math.min(g.width - 1, Math.round(text.x + maxW));
  const wy0 = Math.max(0, Math.round(bottom(text) - maxH));
  const wy1 = Math.min(g.height - 1, Math.round(text.y + maxH));
  const w = wx1 - wx0 + 1;
  const h = wy1 - wy0 + 1;
  // Text larger than the reach (a word 300 px high) has no face around it within the reach.
  if (w <= 0 || h <= 0) return null;
  const seen = new Uint8Array(w * h);
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
  // The area must actually surround the text, not be a sliver beside it (flooded from the right, the text's box may hold the face's left border).
  if (box.x > text.x + (side === 'left' ? 0 : 3) || right(box) < right(text) - 2 || box.y > text.y + 2 || bottom(box) < bottom(text) - 2) return null;
  return box;
}

/**
 * A box shaped like a text input or a select: wider than tall, between 16 and
 * 80 px high (`tallest`: a text area asked for may be taller), and at least
 * 40 px wide. A compact one (`minRatio` under 1.8: a face a value is read in,
 * a face on its label's line) may be as small as a spin box's entry, its
 * steppers beside it: '10' in a face 25 px wide.
 */
export function inputLike(box: Box | null, minRatio = 1.8, tallest = INPUT_HEIGHT): box is Box {
  const narrowest = minRatio < 1.8 ? COMPACT_WIDTH : 40;
  // Taller than any one-line input, a face is a text area, whose width need only pass its height by a little.
  const ratio = box && box.height > INPUT_HEIGHT ? Math.min(minRatio, TEXT_AREA_RATIO) : minRatio;
  return !!box && box.height >= 16 && box.height <= tallest && box.width >= narrowest && box.width >= box.height * ratio;
}

/** The least width to height of a compact input: beside its label on its line (a select showing '25'), or holding its value. */
export const COMPACT_RATIO = 1.1;
/** The narrowest a compact input is, in pixels: a spin box's entry for two digits. */
const COMPACT_WIDTH = 24;
/** The tallest a one-line input or a select is, in pixels. */
const INPUT_HEIGHT = 80;
/** The tallest a text area is looked for, in pixels: a comment box of a dozen lines. */
export const TEXT_AREA_HEIGHT = 360;
/** A text area is at least this many times as wide as it is high (a desktop form's comment box is nearly square). */
const TEXT_AREA_RATIO = 1.2;

/**
 * A fainter edge, looked for on a dark page when no input starts at a plain
 * one: a dark theme's input border may stand only ten grey levels off its
 * card. (On a light page an edge that faint is a card's, round a whole form.)
 */
const FAINT_EDGE = 7;
const DARK_PAGE = 100;

/** The first edge (a change of more than `edge` grey levels) along a ray, as a distance, or -1. */
function firstEdge(g: GreyImage, x: number, y: number, dx: number, dy: number, limit: number, edge = EDGE): number {
  if (!inside(g, x, y)) return -1;
  const start = at(g, x, y);
  if (edge < EDGE && start > DARK_PAGE) return -1;
  for (let d = 1; d <= limit; d++) {
    const px = x + dx * d;
    const py = y + dy * d;
    if (!inside(g, px, py)) return -1;
    if (Math.abs(at(g, px, py) - start) > edge) return d;
  }
  return -1;
}

/**
 * The face of an input that starts at an edge found from a label: flood from
 * just past the edge, as wide as the screen (a full-width form's input on a
 * 1920 px screen is over 1,000 px wide).
 */
function inputAt(g: GreyImage, edgeX: number, edgeY: number, dx: number, dy: number, tallest: number, minRatio: number): Box | null {
  for (let step = 1; step <= 4; step++) {
    const probe = { x: edgeX + dx * step + 3, y: edgeY + dy * step - 4, width: 2, height: 8 };
    const face = enclosure(g, probe, g.width, tallest + 40);
    if (inputLike(face, minRatio, tallest)) return face;
  }
  return null;
}

/**
 * The input a label belongs to: to its right on the same line, or just below
 * it (a bordered face, or a line drawn under the label); up to `tallest`
 * pixels high (TEXT_AREA_HEIGHT for a text area). For a text that is no label
 * (`notLabel`: a value shown in a control, a value under a label) only a
 * bordered face of an input's proportions counts, and not one far along its
 * line (the next column's): what reads a label's layout (a compact select on
 * its line, an underline) does not apply.
 */
export function fieldNear(g: GreyImage, label: Box, direction: 'right' | 'below' | 'auto' = 'auto', tallest = INPUT_HEIGHT, notLabel = false): Box | null {
  const beside = direction !== 'below' ? faceBeside(g, label, tallest, notLabel ? 1.8 : COMPACT_RATIO) : null;
  // An input far along the label's line may be the next column's: one just under the label is nearer.
  if (beside && beside.x - right(label) <= Math.max(NEAR_BESIDE, label.height * 3)) return beside;
  const underline = () => (notLabel ? null : underlineBelow(g, label, tallest > INPUT_HEIGHT ? TEXT_AREA_UNDERLINE : INPUT_UNDERLINE));
  const under = direction !== 'right' ? faceBelow(g, label, tallest) ?? underline() : null;
  if (notLabel || !beside) return under;
  // But an input on the label's own row beats one a row further down (a wide label column: "Phone ....... [input]").
  // Two inputs never overlap: a band that reaches into the input beside (above a group box's bottom line) is no input under the label.
  return under && !overlapping(under, beside) && under.y - bottom(label) <= Math.max(JUST_UNDER, label.height * 1.5) ? under : beside;
}

/** Two faces that share more than a border (2 px) both ways: one reaches round or into the other. */
const overlapping = (a: Box, b: Box) =>
  Math.min(right(a), right(b)) - Math.max(a.x, b.x) > 2 && Math.min(bottom(a), bottom(b)) - Math.max(a.y, b.y) > 2;

/** The gap between a label and an input beside it that is surely its own, in pixels. */
const NEAR_BESIDE = 40;
/** The gap between a label and an input just under it, as forms set a label over its input, in pixels. */
const JUST_UNDER = 20;

/** A face found from the plain edges first, then from the faint ones. */
const plainThenFaint = (find: (edge: number) => Box | null): Box | null => find(EDGE) ?? find(FAINT_EDGE);

function faceBeside(g: GreyImage, label: Box, tallest: number, minRatio: number): Box | null {
  return plainThenFaint((edge) => faceBesideAt(g, label, tallest, minRatio, edge));
}

function faceBesideAt(g: GreyImage, label: Box, tallest: number, minRatio: number, edge: number): Box | null {
  const y = Math.round(centerY(label));
  const start = flatFrom(g, Math.round(right(label)) + 2, y, label.height);
  const d = firstEdge(g, start, y, 1, 0, 320, edge);
  if (d <= 0) return null;
  // On the label's own line a compact face counts too: a select showing '25' in "Show [25] entries".
  const besideLabel = (face: Box | null) => !!face && face.x >= right(label) - 2 && Math.abs(centerY(face) - y) < face.height * (inputLike(face, 1.8, tallest) ? 1 : 0.25);
  const face = inputAt(g, start + d, y, 1, 0, tallest, minRatio);
  if (besideLabel(face)) return face;
  // The first ink may be the label's own tail, left out of its box: a colon, a required mark, a letter cut off.
  const tail = inkRun(g, start + d, y, at(g, start, y), edge);
  if (!tail || start + d - right(label) > label.height || tail.width > label.height) return null;
  const next = firstEdge(g, tail.end, y, 1, 0, 320, edge);
  const after = next > 0 ? inputAt(g, tail.end + next, y, 1, 0, tallest, minRatio) : null;
  return besideLabel(after) ? after : null;
}

/**
 * The first point along a row, from x and at most `reach` px on, where three
 * pixels in a row are one grey: past the soft edge of a glyph the label's box
 * cut through (the dot of its colon), so that a ray starts on the page.
 */
function flatFrom(g: GreyImage, x: number, y: number, reach: number): number {
  const flat = (px: number) => inside(g, px + 2, y) && Math.abs(at(g, px, y) - at(g, px + 1, y)) <= 4 && Math.abs(at(g, px, y) - at(g, px + 2, y)) <= 4;
  for (let px = x; px <= x + reach; px++) if (flat(px)) return px;
  return x;
}

/** The run of ink starting at x along a row, up to where the background comes back: its width and the first background pixel after it. */
function inkRun(g: GreyImage, x: number, y: number, background: number, edge: number): { width: number; end: number } | null {
  for (let end = x + 1; end <= x + 40 && inside(g, end, y); end++) {
    if (Math.abs(at(g, end, y) - background) <= edge) return { width: end - x, end };
  }
  return null;
}

function faceBelow(g: GreyImage, label: Box, tallest: number): Box | null {
  return plainThenFaint((edge) => faceBelowAt(g, label, tallest, edge));
}

function faceBelowAt(g: GreyImage, label: Box, tallest: number, edge: number): Box | null {
  // A short label stands over a pill-shaped input's rounded corner: a third ray starts past it.
  const rayStart = Math.round(bottom(label)) + 2;
  for (const x of [Math.round(label.x) + 6, Math.round(label.x + label.width / 2), Math.round(label.x) + 30]) {
    const d = firstEdge(g, x, rayStart, 0, 1, 60, edge);
    if (d <= 0) continue;
    const edgeY = rayStart + d;
    const face = enclosure(g, { x: x + 4, y: edgeY + 4, width: 2, height: 2 }, g.width, tallest + 40);
    if (!face || face.y < bottom(label) - 2) continue;
    const joined = inputAfterAddon(g, face, tallest);
    if (joined) return joined;
    if (inputLike(face, 1.8, tallest)) return face;
  }
  return null;
}

/** The least length of an underline that makes an input, against the label's width. */
const UNDERLINE_MIN = 100;
/** How far below its label an input's underline is looked for; a text area's, further. */
const INPUT_UNDERLINE = 50;
const TEXT_AREA_UNDERLINE = 120;

/**
 * An input drawn as nothing but a line under its label (Material's, and
 * other flat forms'): an unbroken thin line within `reach` px below the label
 * (past any value written on it), starting at most a little left of the
 * label and running well past it, with no sides going down (the top of a
 * box). The field is the band above the line, at least 24 px high.
 */
function underlineBelow(g: GreyImage, label: Box, reach: number): Box | null {
  const x = Math.round(label.x + Math.min(label.width / 2, 20));
  const top = Math.round(bottom(label)) + 2;
  if (!inside(g, x, top)) return null;
  const background = at(g, x, top);
  const onLine = (px: number, py: number) => inside(g, px, py) && Math.abs(at(g, px, py) - background) > EDGE;
  for (let lineY = top; lineY <= top + reach; lineY++) {
    if (!onLine(x, lineY)) continue;
    let [x0, x1] = [x, x];
    while (onLine(x0 - 1, lineY)) x0--;
    while (onLine(x1 + 1, lineY)) x1++;
    const length = x1 - x0 + 1;
    // A row through a value's letters breaks at every gap between them.
    if (length < Math.max(UNDERLINE_MIN, label.width * 1.5)) continue;
    if (x0 < label.x - 40 || x0 > label.x + 10) return null;
    const thin = [x0 + 2, x, x1 - 2].every((px) => !onLine(px, lineY + 3));
    // A box's side stands within a few pixels of where its rounded top line fades out.
    const side = (end: number) => Array.from({ length: 13 }, (_, k) => end - 6 + k).some((px) => onLine(px, lineY + 6) && onLine(px, lineY + 10));
    const sides = side(x0) || side(x1);
    if (!thin || sides) return null;
    const height = Math.max(24, lineY - Math.round(bottom(label)));
    return { x: x0, y: lineY - height, width: length, height };
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
  const input = enclosure(g, { x: Math.round(right(addon)) + 6, y: Math.round(centerY(addon)) - 1, width: 2, height: 2 }, g.width, tallest + 40);
  const joined = input && input.x <= right(addon) + 3 && Math.abs(input.y - addon.y) <= 6 && Math.abs(bottom(input) - bottom(addon)) <= 6;
  return joined && input.width >= addon.width * 1.5 && inputLike(input, 1.8, tallest) ? input : null;
}

/**
 * A toggle's outline may be this faint against the page: Bootstrap's
 * unchecked box (#dee2e6 on white) is 29, a radio ring on a light grey page 22
 * at its darkest.
 */
const TOGGLE_INK = 12;
/** The widest toggle looked for: a switch's track is about twice its height. */
const TOGGLE_WIDEST = 40;

/**
 * The small square, circle or switch just left of a checkbox or radio label:
 * the rows of ink that run unbroken through the label's middle, so that the
 * boxes of the rows above and below (a stack of checkboxes 19 px apart) are
 * not taken for part of it.
 */
export function toggleNear(g: GreyImage, label: Box): Box | null {
  const cy = Math.round(centerY(label));
  const background = at(g, Math.max(0, label.x - 2), cy);
  const [left, top] = [Math.round(label.x) - TOGGLE_WIDEST - 6, cy - 14];
  const [width, height] = [Math.round(label.x) - 2 - left, 29];
  const ink = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (inside(g, left + x, top + y) && Math.abs(at(g, left + x, top + y) - background) > TOGGLE_INK) ink[y * width + x] = 1;
    }
  }
  // Columns of ink, in runs split by gaps, nearest the label first: the end of the words before an inline
  // radio is not part of it, and a letter the reader left out of the label ('I' of 'I agree') stands before it.
  const inkedColumn = (x: number) => { for (let y = 0; y < height; y++) if (ink[y * width + x]) return true; return false; };
  for (let c1 = width - 1; c1 >= 0; c1--) {
    if (!inkedColumn(c1)) continue;
    let c0 = c1;
    for (let gap = 0, x = c1 - 1; x >= 0 && gap <= 2; x--) {
      if (inkedColumn(x)) { c0 = x; gap = 0; } else gap++;
    }
    const toggle = toggleIn(ink, width, height, c0, c1, cy - top);
    if (toggle) return { ...toggle, x: left + toggle.x, y: top + toggle.y };
    c1 = c0;
  }
  return null;
}

/** Within columns c0 to c1 of an ink mask, the unbroken run of inked rows through `middle`, if it is toggle-sized. */
function toggleIn(ink: Uint8Array, width: number, height: number, c0: number, c1: number, middle: number): Box | null {
  const span = (y: number): [number, number] | null => {
    let [from, to] = [-1, -1];
    for (let x = c0; x <= c1; x++) if (ink[y * width + x]) { if (from < 0) from = x; to = x; }
    return from < 0 ? null : [from, to];
  };
  const start = [0, 1, -1, 2, -2, 3, -3].map((d) => middle + d).find((y) => y >= 0 && y < height && span(y));
  if (start === undefined) return null;
  let [y0, y1] = [start, start];
  while (y0 > 0 && span(y0 - 1)) y0--;
  while (y1 < height - 1 && span(y1 + 1)) y1++;
  const spans = Array.from({ length: y1 - y0 + 1 }, (_, i) => span(y0 + i)!);
  const x0 = Math.min(...spans.map(([from]) => from));
  const x1 = Math.max(...spans.map(([, to]) => to));
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  return w >= 8 && h >= 8 && w <= TOGGLE_WIDEST && h <= 28 && w <= h * 2.4 ? { x: x0, y: y0, width: w, height: h } : null;
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

/*
 * The words around a control: what a face holds besides its label, where
 * the label sits on it, the value shown under a label. These read the
 * analysis's lines as well as the pixels.
 */

/** A face hugging its text, as a badge's or a pill's does: at most three times its height, and a few heights wider. */
export function badgeLike(face: Box, text: Box): boolean {
  return face.height <= text.height * 3 && face.width <= text.width + face.height * 3;
}

/**
 * The phrase that stands right under a label, starting where it starts: the
 * value of a field drawn without a border. Null when the next line is further
 * than three text heights below, starts elsewhere, or a border runs
 * between them (then it belongs to another control).
 */
export function valueBelow(analysis: Analysis, match: TextMatch): TextMatch | null {
  // A label stands alone (or with a letter OCR split off: 'A bout Me'); words inside a sentence have the sentence's next line under them.
  const label = match.box;
  const all = phrases(analysis.lines);
  const phrase = all.find((p) => contains(p.box, centerX(label), centerY(label)));
  if (phrase && phrase.text.length > match.text.length + 4) return null;
  const near = (p: TextMatch, heights: number) => heights * Math.max(label.height, p.box.height);
  const under = all.filter((p) => p.box.y >= bottom(label) && p.box.y - bottom(label) <= near(p, 3) &&
    Math.abs(p.box.x - label.x) <= near(p, 2.5) && /[\p{L}\p{N}]{2}/u.test(p.text));
  const value = under.sort((a, b) => a.box.y - b.box.y)[0];
  // A text with an input under it is the next field's label, not this one's value.
  return value && openBetween(analysis.grey, label, value.box) && !fieldNear(analysis.grey, value.box, 'below', undefined, true) ? value : null;
}

/** Whether a word of three or more characters, outside `own`, covers part of `box`. */
export function overWord(analysis: Analysis, box: Box, own: Box): boolean {
  return analysis.lines.some(({ words }) => words.some((w) => w.text.length >= 3 && !contains(own, centerX(w), centerY(w)) &&
    Math.min(right(w), right(box)) > Math.max(w.x, box.x) && Math.min(bottom(w), bottom(box)) > Math.max(w.y, box.y)));
}

/** Pieces of a label closer than this many of its heights are OCR's fragments of it, not other words. */
const FRAGMENT_GAP = 0.5;

/**
 * The part of a face that belongs to its label. A face that holds other
 * words beside the label (an input joined to its button, 'Search | Submit';
 * a code chip, 'width: 100%;'; a button group, '1 2 3') is cut halfway
 * between them, so that a click lands on the label's part of it.
 */
export function labelsShare(analysis: Analysis, face: Box, own: Box): Box {
  let [left, end] = [face.x, right(face)];
  const gap = own.height * FRAGMENT_GAP;
  for (const { words } of analysis.lines) {
    for (const w of words) {
      if (!contains(face, centerX(w), centerY(w)) || centerY(w) < own.y || centerY(w) > bottom(own)) continue;
      if (right(w) <= own.x - gap) left = Math.max(left, (right(w) + own.x) / 2);
      else if (w.x >= right(own) + gap) end = Math.min(end, (w.x + right(own)) / 2);
    }
  }
  return { x: left, y: face.y, width: end - left, height: face.height };
}

/**
 * Whether a label sits far off the middle of its face: its margins either
 * side differ by more than its own width. A button centres its label; a
 * bar's brand or a wide row's first words sit at one end, and what the
 * description names is the label, not the middle of the bar.
 */
export function offCentre(face: Box, label: Box): boolean {
  return Math.abs(label.x - face.x - (right(face) - right(label))) > label.width;
}

/** Whether a face holds a word beside this text: the count on a button labelled 'Alerts 3' is no badge, however snug the button. */
export function holdsWordsBeside(analysis: Analysis, face: Box, own: Box): boolean {
  return analysis.lines.some(({ words }) => words.some((w) => contains(face, centerX(w), centerY(w)) && !contains(own, centerX(w), centerY(w)) && w.text.replace(/[^\p{L}\p{N}]/gu, '').length >= 2));
}

/**
 * Whether `outer` holds words on another line than `own`'s: a control's label
 * is one line, a menu or a card has several. Beside it on the same line, one
 * more word is part of the control ('Sans Regular' and its size '12'), and
 * short pieces may be OCR's fragments of the label itself ('inv' 'e' for
 * 'invoice'); two more words make a bar of controls (a tab strip, a menu bar).
 */
export function holdsOtherWords(analysis: Analysis, outer: Box, own: Box): boolean {
  const within = (w: Box) => contains(outer, centerX(w), centerY(w));
  let beside = 0;
  for (const { words } of analysis.lines) {
    for (const w of words) {
      if (!within(w) || contains(own, centerX(w), centerY(w))) continue;
      if (centerY(w) < own.y || centerY(w) > bottom(own)) return true;
      if (w.text.replace(/[^\p{L}\p{N}]/gu, '').length >= 3 && ++beside >= 2) return true;
    }
  }
  return false;
}
