import { Box, bottom, centerX, centerY, contains, right } from '../geometry';
import type { Analysis } from './analysis';
import { COMPACT_RATIO, faceAround, fieldNear, inputLike } from './controls';

/**
 * A group box's title names the control the group holds: Qt and GTK give it
 * as the label of every control in the frame, and a fieldset's legend reads
 * the same way ("the Palette dropdown" for the one select under 'Palette').
 * The face under such a title is the group's frame, with rows of controls
 * in it, not an input.
 */

/** The most words inside a frame looked at for its first control: a frame holds a few rows of a form. */
const WORDS_LOOKED_AT = 16;

/** A face this many times taller than the words in it holds rows, not one line: an input round its value is under three. */
const FRAME_HEIGHT = 3.5;

/**
 * The frame of the group under `title`: the face under it (`under`, the face
 * already found there, else one looked for as tall as the screen) when words
 * show inside it and it stands several of their heights tall. Null for an
 * input, or a face beside the title.
 */
export function groupFrame(analysis: Analysis, title: Box, under: Box | null): Box | null {
  const frame = under ?? fieldNear(analysis.grey, title, 'below', analysis.grey.height);
  if (!frame || frame.y < bottom(title) - 2) return null;
  // The words' usual height: a glyph read in a ring is boxed as tall as its ring.
  const heights = wordsWithin(analysis, frame).map((w) => w.height).sort((a, b) => a - b);
  return heights.length && frame.height > FRAME_HEIGHT * heights[Math.floor(heights.length / 2)] ? frame : null;
}

/** The first input inside a group's frame, in reading order; null when none of the words read in it shows one. */
export function controlInGroup(analysis: Analysis, frame: Box): Box | null {
  for (const word of wordsWithin(analysis, frame).slice(0, WORDS_LOOKED_AT)) {
    // A value or an option shown in its own face (a select showing 'airy'), or a label's input beside it ('Color scheme: [ ]').
    const face = faceAround(analysis.grey, word);
    if (inputLike(face, COMPACT_RATIO) && nestedIn(face, frame) && showsValue(face, word)) return face;
    const beside = fieldNear(analysis.grey, word, 'right');
    if (beside && nestedIn(beside, frame)) return beside;
  }
  return null;
}

const wordsWithin = (analysis: Analysis, box: Box) => analysis.lines.flatMap((line) => line.words).filter((w) => contains(box, centerX(w), centerY(w)));
/** Inside the frame and much smaller: a control in it, not the frame itself nor another frame round it. */
function nestedIn(face: Box, frame: Box): boolean {
  const within = face.x > frame.x && face.y > frame.y && right(face) < right(frame) && bottom(face) < bottom(frame);
  return within && face.width * face.height < (frame.width * frame.height) / 2;
}

/**
 * An input shows its value from its left end; a button centres its label
 * (the first control in a group may be either).
 */
function showsValue(face: Box, word: Box): boolean {
  const before = word.x - face.x;
  return before <= face.height * 0.6 && right(face) - right(word) > before * 2;
}
