import { Box, centerX, centerY, contains } from '../geometry';
import type { GreyImage } from './preprocess';
import type { OcrReader, OcrWord } from './tesseract';
import { median } from '../../util/median';

/**
 * Glyphs in rings: a pagination's page numbers, a badge's digits in a circle,
 * a symbol on a round button. Tesseract takes a ring drawn tight around one
 * character for part of it ('④', 'OOOOO', '(5') or passes over a light digit
 * in a faint ring, and the text detector often sees neither. Here each ring
 * or filled disc is found from the screen's edges (a disc's rim is a ring of
 * edges too), the glyph inside is lifted onto a clean background, and all of
 * them are read together.
 */
export interface RingGlyph {
  /** The ring's or disc's box: what a click on the glyph means. */
  ring: Box;
  /** How much ink each pixel of the glyph's box holds, 0 to 1 (its edges are anti-aliased), with a pixel's margin. */
  glyph: { width: number; height: number; ink: Float32Array };
}

/** A change of grey between neighbours this large is an edge: a light ring (#dee2e6 on white) is about 25. */
const EDGE = 14;
/** How far apart two edge pixels may be and still be one edge. */
const REACH = 2;
/** The sizes a ring around a few characters comes in, in pixels, and its width against its height. */
const RING_HEIGHT = [14, 80];
const RING_WIDTH = [0.6, 2.5];
/** A ring's edges fill less than this share of its box (a thin loop); a glyph's or a picture's, more. */
const HOLLOW = 0.45;
/** An edge inside a ring wider and taller than this share of it is the ring's own inner edge. */
const CONCENTRIC = 0.7;
/** A glyph is between these shares of its ring's height. */
const GLYPH_HEIGHT = [0.15, 0.85];
/** The glyphs are drawn this high, in pixels, for reading. */
const READ_HEIGHT = 28;
/** A screen with more than this share of its pixels on edges is a picture, not a UI. */
const BUSY = 0.25;
/** At most this many rings are read on one screen (checkboxes and icons in circles are rings too). */
const MOST_RINGS = 80;

/** Rings and discs with a glyph inside, anywhere on the screen. */
export function ringsOn(grey: GreyImage): RingGlyph[] {
  const { width: w, height: h, data } = grey;
  const edge = new Uint8Array(w * h);
  let edges = 0;
  for (let y = 1; y < h; y++) {
    for (let x = 1; x < w; x++) {
      const k = y * w + x;
      if (Math.abs(data[k] - data[k - 1]) > EDGE || Math.abs(data[k] - data[k - w]) > EDGE) {
        edge[k] = 1;
        edges++;
      }
    }
  }
  // A screen of noise or a photograph is edges everywhere: no rings to read there, and no time spent on them.
  if (edges > w * h * BUSY) return [];
  const { labels, list } = components(w, h, edge);
  const found: RingGlyph[] = [];
  list.forEach((shape, index) => {
    if (found.length >= MOST_RINGS) return;
    const sw = shape.x1 - shape.x0 + 1, sh = shape.y1 - shape.y0 + 1;
    if (sh < RING_HEIGHT[0] || sh > RING_HEIGHT[1] || sw < sh * RING_WIDTH[0]) return;
    const around = (x: number, y: number) => surrounds(shape, index + 1, labels, w, Math.round(x), Math.round(y));
    if (sw > sh * RING_WIDTH[1]) {
      if (shape.count / (sw * sh) < HOLLOW) found.push(...segments(grey, shape, [...componentsInside(shape, index, labels, list, w)]).filter((s) => around(centerX(s.ring), centerY(s.ring))));
      return;
    }
    const ring = { x: shape.x0, y: shape.y0, width: sw, height: sh };
    const parts = [...componentsInside(shape, index, labels, list, w)];
    if (shape.count / (sw * sh) >= HOLLOW || !parts.length) {
      // A glyph drawn close to a filled pill's rim joins the rim's edges ('10' in a badge): it is peeled off the rim,
      // when what is left is a thin loop and the glyph sits in its middle, as a badge centres its text.
      const own = peeled(shape, index + 1, labels, w);
      if (own.rim / (sw * sh) >= HOLLOW || !own.glyph || !centred(own.glyph, shape) || !evenFace(grey, shape, own.glyph, labels, index + 1)) return;
      parts.push(own.glyph);
    }
    const span: Component = { x0: Math.min(...parts.map((c) => c.x0)), y0: Math.min(...parts.map((c) => c.y0)), x1: Math.max(...parts.map((c) => c.x1)), y1: Math.max(...parts.map((c) => c.y1)), count: 0 };
    const glyphBox = { x: span.x0, y: span.y0, width: span.x1 - span.x0 + 1, height: span.y1 - span.y0 + 1 };
    if (glyphBox.height < sh * GLYPH_HEIGHT[0] || glyphBox.height > sh * GLYPH_HEIGHT[1]) return;
    // A ring centres its glyph; a glyph off to one side is a badge's, whose rim joined a word's or an icon's edges (found by its face below).
    if (!centred(span, shape)) return;
    if (!around(glyphBox.x + glyphBox.width / 2, glyphBox.y + glyphBox.height / 2)) return;
    if (found.some((f) => contains(f.ring, centerX(ring), centerY(ring)))) return;
    found.push({ ring, glyph: glyphOf(grey, ring, glyphBox) });
  });
  // A badge drawn over an icon or the end of a word shares its rim's edges with them: no loop of its own, but its face still is.
  for (const shape of list) {
    const sh = shape.y1 - shape.y0 + 1;
    if (found.length >= MOST_RINGS) break;
    if (sh < RING_HEIGHT[0] || sh > RING_HEIGHT[1] || shape.x1 - shape.x0 + 1 > sh * JOINED_WIDTH) continue;
    for (const disc of facesWithin(grey, edge, shape)) {
      // A ring found already is the same one; a far larger one round it is an icon the badge sits on (an envelope's outline).
      const same = (f: RingGlyph) => contains(f.ring, centerX(disc.ring), centerY(disc.ring)) && area(f.ring) <= area(disc.ring) * SAME_RING_AREA;
      if (found.length < MOST_RINGS && !found.some(same)) found.push(disc);
    }
  }
  return found;
}

/** A ring round a disc's middle is the disc's own when its box is at most this many times the disc's. */
const SAME_RING_AREA = 1.5;
const area = (box: Box) => box.width * box.height;
/** A shape this many times wider than high may be a word or an icon with a badge on its corner. */
const JOINED_WIDTH = 8;
/** A disc's or a pill's face, round its glyph, fills at least this share of its box (a disc's corners are outside it). */
const FACE_FILL = 0.4;

/**
 * Filled discs and pills inside a shape's box, found by their faces: regions
 * of one grey (no edge pixel) that stay inside the box, of a ring's size,
 * holding a glyph in their middle. A region that reaches the box's border
 * is the background round the shape; a letter's counter holds no glyph.
 */
function facesWithin(grey: GreyImage, edge: Uint8Array, shape: Component): RingGlyph[] {
  const w = grey.width;
  const [bx, by, bw, bh] = [shape.x0, shape.y0, shape.x1 - shape.x0 + 1, shape.y1 - shape.y0 + 1];
  const flat = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) flat[y * bw + x] = edge[(by + y) * w + bx + x] ? 0 : 1;
  // Side by side only: a diagonal step would leak through an anti-aliased rim.
  const { labels, list } = components(bw, bh, flat, 1, true);
  const discs: RingGlyph[] = [];
  list.forEach((face, index) => {
    if (face.x0 === 0 || face.y0 === 0 || face.x1 === bw - 1 || face.y1 === bh - 1) return;
    const disc = discOf(grey, edge, labels, index + 1, face, { x: bx, y: by, width: bw });
    if (disc) discs.push(disc);
  });
  return discs;
}

/**
 * The ring a closed face makes, with the glyph it holds: the edge pixels
 * that the face surrounds both along their row and along their column.
 * Null when the face is not shaped and filled like a badge's.
 */
function discOf(grey: GreyImage, edge: Uint8Array, region: Int32Array, id: number, face: Component, box: { x: number; y: number; width: number }): RingGlyph | null {
  // The rim's anti-aliased edge lies round the face: the ring is a pixel larger each way.
  const [fw, fh] = [face.x1 - face.x0 + 3, face.y1 - face.y0 + 3];
  if (fh < RING_HEIGHT[0] || fh > RING_HEIGHT[1] || fw < fh * RING_WIDTH[0] || fw > fh * RING_WIDTH[1]) return null;
  if (face.count < (fw - 2) * (fh - 2) * FACE_FILL) return null;
  const mine = (x: number, y: number) => region[y * box.width + x] === id;
  const { left, right, top, bottom } = outline(face, id, region, box.width);
  const glyph: Component = { x0: Infinity, y0: Infinity, x1: -1, y1: -1, count: 0 };
  for (let y = face.y0; y <= face.y1; y++) {
    for (let x = face.x0; x <= face.x1; x++) {
      const [r, c] = [y - face.y0, x - face.x0];
      const enclosed = x > left[r] && x < right[r] && y > top[c] && y < bottom[c];
      if (!enclosed || mine(x, y) || !edge[(box.y + y) * grey.width + box.x + x]) continue;
      glyph.count++;
      glyph.x0 = Math.min(glyph.x0, x); glyph.x1 = Math.max(glyph.x1, x);
      glyph.y0 = Math.min(glyph.y0, y); glyph.y1 = Math.max(glyph.y1, y);
    }
  }
  if (!glyph.count || !centred(glyph, face)) return null;
  const glyphHeight = glyph.y1 - glyph.y0 + 1;
  if (glyphHeight < fh * GLYPH_HEIGHT[0] || glyphHeight > fh * GLYPH_HEIGHT[1]) return null;
  const ring = { x: box.x + face.x0 - 1, y: box.y + face.y0 - 1, width: fw, height: fh };
  const glyphBox = { x: box.x + glyph.x0, y: box.y + glyph.y0, width: glyph.x1 - glyph.x0 + 1, height: glyphHeight };
  return { ring, glyph: glyphOf(grey, ring, glyphBox) };
}

interface Component { x0: number; y0: number; x1: number; y1: number; count: number }

/**
 * Whether a shape closes round a point: looking left, right, up and down from
 * it, each way meets the shape. Table lines meeting in an 'L' or a 'T' box
 * in a badge as a ring would, without surrounding it.
 */
function surrounds(shape: Component, label: number, labels: Int32Array, w: number, x: number, y: number): boolean {
  const meets = (dx: number, dy: number) => {
    for (let [px, py] = [x, y]; px >= shape.x0 && px <= shape.x1 && py >= shape.y0 && py <= shape.y1; px += dx, py += dy) if (labels[py * w + px] === label) return true;
    return false;
  };
  return meets(-1, 0) && meets(1, 0) && meets(0, -1) && meets(0, 1);
}

/** Glyphs closer than this many of their heights are one text: the letters and words of a label. */
const ONE_TEXT_GAP = 1;
/** A short text (a page number, a count) is at most this many times as wide as it is high. */
const SHORT_TEXT = 2.2;
/** A face holds at most this many short texts to be read one by one. */
const MOST_SEGMENTS = 12;

/**
 * A face wider than a ring (a button group, a pager's strip) holding short
 * texts spread across it ('1 2 3 4' on one grey bar, 'PREV 1 2 3 NEXT'):
 * each short one is read on its own, boxed by its share of the face.
 * Neither tesseract nor the text detector sees single glyphs that far apart.
 */
function segments(grey: GreyImage, shape: Component, parts: Component[]): RingGlyph[] {
  const texts: Component[] = [];
  for (const part of [...parts].sort((a, b) => a.x0 - b.x0)) {
    const last = texts[texts.length - 1];
    const height = last ? Math.max(last.y1 - last.y0, part.y1 - part.y0) + 1 : 0;
    if (last && part.x0 - last.x1 <= height * ONE_TEXT_GAP && part.y0 <= last.y1 && part.y1 >= last.y0) {
      Object.assign(last, { x1: Math.max(last.x1, part.x1), y0: Math.min(last.y0, part.y0), y1: Math.max(last.y1, part.y1), count: last.count + part.count });
    } else texts.push({ ...part });
  }
  const sh = shape.y1 - shape.y0 + 1;
  const short = (t: Component) => {
    const [tw, th] = [t.x1 - t.x0 + 1, t.y1 - t.y0 + 1];
    return th >= sh * GLYPH_HEIGHT[0] && th <= sh * GLYPH_HEIGHT[1] && tw <= th * SHORT_TEXT;
  };
  // One row of texts, each centred on the face's height: stacked rows (a list group's items) are not one face.
  const faceMiddle = (shape.y0 + shape.y1) / 2;
  // Texts side by side, none over another: two rows' texts overlap across (a group box's radios over its select).
  const overlapping = texts.some((t, i) => i > 0 && t.x0 <= texts[i - 1].x1);
  if (texts.length < 2 || texts.length > MOST_SEGMENTS || overlapping || texts.some((t) => Math.abs((t.y0 + t.y1) / 2 - faceMiddle) > sh / 4)) return [];
  // A pager's words ('PREV', 'NEXT') are left to the line readers; they only bound their neighbours' shares.
  return texts.flatMap((t, i) => {
    if (!short(t)) return [];
    // Its share reaches halfway to its neighbours (or the face's end), as far on both sides: a click on it lands on it.
    const [from, to] = [i ? (texts[i - 1].x1 + t.x0) / 2 : shape.x0, i < texts.length - 1 ? (t.x1 + texts[i + 1].x0) / 2 : shape.x1];
    const middle = (t.x0 + t.x1) / 2;
    const half = Math.min(middle - from, to - middle);
    const ring = { x: Math.round(middle - half), y: shape.y0, width: Math.round(2 * half) + 1, height: sh };
    return [{ ring, glyph: glyphOf(grey, ring, { x: t.x0, y: t.y0, width: t.x1 - t.x0 + 1, height: t.y1 - t.y0 + 1 }) }];
  });
}

/** The other edges wholly inside a ring's box: its glyph. A loop nearly as large as the ring is the inner edge of its stroke. */
function componentsInside(shape: Component, index: number, labels: Int32Array, list: Component[], width: number): Set<Component> {
  const sw = shape.x1 - shape.x0 + 1, sh = shape.y1 - shape.y0 + 1;
  const inner = new Set<Component>();
  for (let y = shape.y0 + 1; y < shape.y1; y++) {
    for (let x = shape.x0 + 1; x < shape.x1; x++) {
      const label = labels[y * width + x];
      if (!label || label === index + 1) continue;
      const c = list[label - 1];
      if (inner.has(c)) continue;
      const loop = c.x1 - c.x0 + 1 > sw * CONCENTRIC && c.y1 - c.y0 + 1 > sh * CONCENTRIC;
      if (c.x0 > shape.x0 && c.y0 > shape.y0 && c.x1 < shape.x1 && c.y1 < shape.y1 && !loop) inner.add(c);
    }
  }
  return inner;
}

/** Whether a glyph's middle lies in the middle half of its shape, across and down. */
function centred(glyph: Component, shape: Component): boolean {
  const middle = (a: number, b: number) => (a + b) / 2;
  return Math.abs(middle(glyph.x0, glyph.x1) - middle(shape.x0, shape.x1)) <= (shape.x1 - shape.x0) / 4 &&
    Math.abs(middle(glyph.y0, glyph.y1) - middle(shape.y0, shape.y1)) <= (shape.y1 - shape.y0) / 4;
}

/** Share of a disc's face, round its glyph, that must be one grey: a badge's fill is; a letter's strokes and counters are not. */
const EVEN_FACE = 0.85;

/**
 * Whether the inside of a shape, away from its rim and its glyph, is one
 * grey: the face of a filled pill or disc.
 */
function evenFace(grey: GreyImage, shape: Component, glyph: Component, labels: Int32Array, label: number): boolean {
  const w = grey.width;
  const values: number[] = [];
  for (let y = shape.y0 + RIM; y <= shape.y1 - RIM; y++) {
    let first = -1, last = -1;
    for (let x = shape.x0; x <= shape.x1; x++) if (labels[y * w + x] === label) { if (first < 0) first = x; last = x; }
    for (let x = first + RIM; first >= 0 && x <= last - RIM; x++) {
      if (x >= glyph.x0 - 1 && x <= glyph.x1 + 1 && y >= glyph.y0 - 1 && y <= glyph.y1 + 1) continue;
      values.push(grey.data[y * w + x]);
    }
  }
  if (values.length < 10) return false;
  const face = median(values);
  return values.filter((v) => Math.abs(v - face) <= EDGE).length >= values.length * EVEN_FACE;
}

/** How far in from a shape's outline, row by row and column by column, its edge pixels are its rim. */
const RIM = 3;

/**
 * Where a labelled shape's pixels start and end on each of its rows (left,
 * right) and columns (top, bottom), indexed from its box's corner; a row or
 * column it misses has left and top past any pixel and right and bottom -1.
 */
function outline(shape: Component, label: number, labels: Int32Array, w: number): { left: Int32Array; right: Int32Array; top: Int32Array; bottom: Int32Array } {
  const sw = shape.x1 - shape.x0 + 1, sh = shape.y1 - shape.y0 + 1;
  const [left, right, top, bottom] = [new Int32Array(sh).fill(1 << 30), new Int32Array(sh).fill(-1), new Int32Array(sw).fill(1 << 30), new Int32Array(sw).fill(-1)];
  for (let y = shape.y0; y <= shape.y1; y++) {
    for (let x = shape.x0; x <= shape.x1; x++) {
      if (labels[y * w + x] !== label) continue;
      const [r, c] = [y - shape.y0, x - shape.x0];
      left[r] = Math.min(left[r], x); right[r] = Math.max(right[r], x);
      top[c] = Math.min(top[c], y); bottom[c] = Math.max(bottom[c], y);
    }
  }
  return { left, right, top, bottom };
}

/**
 * A shape's own pixels split into its rim (within RIM of its outline across
 * or down) and what lies further in: the glyph that touched it.
 */
function peeled(shape: Component, label: number, labels: Int32Array, w: number): { rim: number; glyph: Component | null } {
  const mine = (x: number, y: number) => labels[y * w + x] === label;
  const { left, right, top, bottom } = outline(shape, label, labels, w);
  let rim = 0;
  const glyph: Component = { x0: Infinity, y0: Infinity, x1: -1, y1: -1, count: 0 };
  for (let y = shape.y0; y <= shape.y1; y++) {
    for (let x = shape.x0; x <= shape.x1; x++) {
      if (!mine(x, y)) continue;
      const [r, c] = [y - shape.y0, x - shape.x0];
      if (x - left[r] < RIM || right[r] - x < RIM || y - top[c] < RIM || bottom[c] - y < RIM) {
        rim++;
        continue;
      }
      glyph.count++;
      glyph.x0 = Math.min(glyph.x0, x); glyph.x1 = Math.max(glyph.x1, x);
      glyph.y0 = Math.min(glyph.y0, y); glyph.y1 = Math.max(glyph.y1, y);
    }
  }
  return { rim, glyph: glyph.count ? glyph : null };
}

/**
 * Components of the set pixels of a w x h map, pixels `reach` apart or closer
 * counting as touching (an anti-aliased circle's edge skips a pixel here and
 * there), or with `sideBySide`, only pixels next to each other across or
 * down. Labels are 1-based.
 */
function components(w: number, h: number, set: Uint8Array, reach = REACH, sideBySide = false): { labels: Int32Array; list: Component[] } {
  const labels = new Int32Array(w * h);
  const list: Component[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (labels[start] || !set[start]) continue;
    const id = list.length + 1;
    const c: Component = { x0: w, y0: h, x1: -1, y1: -1, count: 0 };
    labels[start] = id;
    stack.push(start);
    while (stack.length) {
      const k = stack.pop()!;
      const x = k % w, y = (k - x) / w;
      c.count++;
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      for (let dy = -reach; dy <= reach; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -reach; dx <= reach; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= w || (sideBySide && dx && dy)) continue;
          const n = ny * w + nx;
          if (!labels[n] && set[n]) {
            labels[n] = id;
            stack.push(n);
          }
        }
      }
    }
    list.push(c);
  }
  return { labels, list };
}

/**
 * The glyph's ink: how far each pixel of its box (and a pixel round it)
 * stands from the ring's face, against the glyph's strongest ink.
 */
function glyphOf(grey: GreyImage, ring: Box, box: Box): RingGlyph['glyph'] {
  const at = (x: number, y: number) => grey.data[y * grey.width + x];
  const beside = besideGlyph(ring, box, at);
  const face = median(beside.length >= 8 ? beside : sampleOf(ring, at));
  const [x0, y0, width, height] = [box.x - 1, box.y - 1, box.width + 2, box.height + 2];
  const away = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) away[y * width + x] = Math.abs(at(x0 + x, y0 + y) - face);
  const full = Math.max(1, ...away);
  return { width, height, ink: away.map((v) => Math.min(1, v / (full * 0.8))) };
}

/**
 * The glyphs one under another, dark on white, each scaled to READ_HEIGHT
 * with a glyph's height between them, as a block of one-word lines for the
 * reader (side by side, evenly spaced digits read as one number); with where
 * each one went.
 */
export function glyphColumn(rings: RingGlyph[]): { image: GreyImage; slots: { y0: number; y1: number }[] } {
  const margin = READ_HEIGHT, gap = READ_HEIGHT;
  const scaled = rings.map(({ glyph }) => {
    const scale = READ_HEIGHT / glyph.height;
    return { glyph, scale, width: Math.max(1, Math.round(glyph.width * scale)) };
  });
  const width = margin * 2 + Math.max(0, ...scaled.map((s) => s.width));
  const height = margin * 2 + rings.length * READ_HEIGHT + gap * Math.max(0, rings.length - 1);
  const data = new Uint8Array(width * height).fill(255);
  const slots: { y0: number; y1: number }[] = [];
  let top = margin;
  for (const { glyph, scale, width: gw } of scaled) {
    for (let y = 0; y < READ_HEIGHT; y++) {
      for (let x = 0; x < gw; x++) data[(top + y) * width + margin + x] = Math.round(255 * (1 - crisp(sampled(glyph, (x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5))));
    }
    slots.push({ y0: top - gap / 2, y1: top + READ_HEIGHT + gap / 2 });
    top += READ_HEIGHT + gap;
  }
  return { image: { width, height, data }, slots };
}

/** Reads the glyphs in rings on the given lines: one word per ring, boxed by its ring. */
export async function readRinged(grey: GreyImage, reader: Pick<OcrReader, 'readCrop'>, deadline: number): Promise<OcrWord[]> {
  const rings = ringsOn(grey);
  if (!rings.length) return [];
  const { image, slots } = glyphColumn(rings);
  const words = await reader.readCrop(image, '6', deadline);
  const read: OcrWord[] = [];
  slots.forEach((slot, i) => {
    const own = words.filter((w) => w.y + w.height / 2 >= slot.y0 && w.y + w.height / 2 < slot.y1);
    if (!own.length) return;
    read.push({ text: own.map((w) => w.text).join(' '), confidence: Math.min(...own.map((w) => w.confidence)), ...rings[i].ring, enclosed: true });
  });
  return read;
}

/** The glyph's ink at a point between its pixels, weighed from the four around it. */
function sampled(glyph: RingGlyph['glyph'], x: number, y: number): number {
  const clampX = (v: number) => Math.min(glyph.width - 1, Math.max(0, v)), clampY = (v: number) => Math.min(glyph.height - 1, Math.max(0, v));
  const [x0, y0] = [Math.floor(x), Math.floor(y)];
  const [fx, fy] = [x - x0, y - y0];
  const ink = (px: number, py: number) => glyph.ink[clampY(py) * glyph.width + clampX(px)];
  return (ink(x0, y0) * (1 - fx) + ink(x0 + 1, y0) * fx) * (1 - fy) + (ink(x0, y0 + 1) * (1 - fx) + ink(x0 + 1, y0 + 1) * fx) * fy;
}

/**
 * Grey levels of a ring's face round its glyph: left and right of it at its
 * height, and above and below it across its width, clear of the rim. A word
 * that fills a badge ('Info') leaves little face in the ring's middle.
 */
function besideGlyph(ring: Box, glyph: Box, at: (x: number, y: number) => number): number[] {
  const values: number[] = [];
  const [left, right, top, bottom] = [ring.x + FACE_INSET, ring.x + ring.width - 1 - FACE_INSET, ring.y + FACE_INSET, ring.y + ring.height - 1 - FACE_INSET];
  const [gx0, gx1, gy0, gy1] = [glyph.x - 1, glyph.x + glyph.width, glyph.y - 1, glyph.y + glyph.height];
  for (let y = Math.max(top, gy0 + 1); y < Math.min(bottom + 1, gy1); y++) {
    for (let x = left; x < gx0; x++) values.push(at(x, y));
    for (let x = gx1 + 1; x <= right; x++) values.push(at(x, y));
  }
  for (let x = Math.max(left, gx0 + 1); x < Math.min(right + 1, gx1); x++) {
    for (let y = top; y < gy0; y++) values.push(at(x, y));
    for (let y = gy1 + 1; y <= bottom; y++) values.push(at(x, y));
  }
  return values;
}

/** How far in from a ring's box its face is sampled: past the rim's anti-aliased edge. */
const FACE_INSET = 2;

/** Grey levels over the middle of a ring's box, every other pixel: mostly its face, a little of its glyph. */
function sampleOf(ring: Box, at: (x: number, y: number) => number): number[] {
  const values: number[] = [];
  const [mx, my] = [Math.round(ring.width * 0.2), Math.round(ring.height * 0.2)];
  for (let y = ring.y + my; y < ring.y + ring.height - my; y += 2) for (let x = ring.x + mx; x < ring.x + ring.width - mx; x += 2) values.push(at(x, y));
  return values;
}

/**
 * A scaled glyph's ink with its blurred edge pulled in: a thin '+' drawn up
 * with soft sides reads as 'te' on its own, crisp as '+'.
 */
function crisp(ink: number): number {
  return Math.min(1, Math.max(0, (ink - 0.25) / 0.5));
}
