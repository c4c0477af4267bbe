import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enclosure, faceAround, fieldNear, inputLike, ownFace, TEXT_AREA_HEIGHT, toggleNear } from '../../lib/locate/ocr/controls';
import { GreyImage } from '../../lib/locate/ocr/preprocess';

/** A small synthetic screen: white page, shapes drawn as filled or outlined rectangles. */
function canvas(width = 400, height = 200): GreyImage & { fill(x: number, y: number, w: number, h: number, v: number): void; outline(x: number, y: number, w: number, h: number, v: number): void } {
  const data = new Uint8Array(width * height).fill(250);
  const fill = (x: number, y: number, w: number, h: number, v: number) => {
    for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < x + w; xx++) data[yy * width + xx] = v;
  };
  return {
    width, height, data, fill,
    outline: (x, y, w, h, v) => { fill(x, y, w, 1, v); fill(x, y + h - 1, w, 1, v); fill(x, y, 1, h, v); fill(x + w - 1, y, 1, h, v); },
  };
}

test('a button grows from its label to its face', () => {
  const g = canvas();
  g.fill(50, 40, 120, 36, 90); // a filled button
  g.fill(80, 52, 60, 12, 250); // its label
  assert.deepEqual(enclosure(g, { x: 80, y: 52, width: 60, height: 12 }), { x: 49, y: 39, width: 122, height: 38 });
});

test('text on the page itself has no enclosure', () => {
  const g = canvas();
  g.fill(80, 52, 60, 12, 20);
  assert.equal(enclosure(g, { x: 80, y: 52, width: 60, height: 12 }), null);
});

test('a field is found right of its label, or below it', () => {
  const g = canvas(500, 200);
  g.fill(10, 30, 60, 12, 20); // label "Email"
  g.outline(150, 20, 300, 34, 120); // input box
  const right = fieldNear(g, { x: 10, y: 30, width: 60, height: 12 });
  assert.ok(inputLike(right));
  assert.deepEqual(right, { x: 150, y: 20, width: 300, height: 34 });

  const h = canvas(500, 200);
  h.fill(10, 30, 60, 12, 20); // label above
  h.outline(10, 52, 300, 34, 120);
  assert.deepEqual(fieldNear(h, { x: 10, y: 30, width: 60, height: 12 }, 'below'), { x: 10, y: 52, width: 300, height: 34 });
});

test('a checkbox is the small box left of its label', () => {
  const g = canvas();
  g.outline(20, 50, 13, 13, 100);
  g.fill(40, 51, 120, 11, 30);
  assert.deepEqual(toggleNear(g, { x: 40, y: 51, width: 120, height: 11 }), { x: 20, y: 50, width: 13, height: 13 });
  assert.equal(toggleNear(g, { x: 200, y: 120, width: 60, height: 11 }), null);
});

test('a checkbox in a stack 19 px apart is its own box, not the stack', () => {
  const g = canvas();
  for (const y of [40, 59, 78]) {
    g.outline(20, y, 13, 13, 100);
    g.fill(40, y + 1, 80, 11, 30);
  }
  assert.deepEqual(toggleNear(g, { x: 40, y: 60, width: 80, height: 11 }), { x: 20, y: 59, width: 13, height: 13 });
});

test('a label box at half pixels (a line read again at twice the size) still floods to an end', () => {
  const g = canvas();
  g.fill(50, 40, 120, 36, 90);
  g.fill(80, 52, 60, 12, 250);
  assert.deepEqual(enclosure(g, { x: 80.5, y: 52.5, width: 59.5, height: 11.5 }), { x: 49, y: 39, width: 122, height: 38 });
  assert.equal(enclosure(g, { x: 200.5, y: 150.5, width: 30, height: 10 }), null, 'on the page: no enclosure, and no runaway fill');
});

test('a light input with a faint border that fades at its corners still encloses its text', () => {
  const g = canvas();
  g.outline(40, 60, 200, 36, 227); // a border 28 levels below the white face and page
  for (const [x, y] of [[40, 60], [239, 60], [40, 95], [239, 95]]) g.data[y * g.width + x] = 244; // anti-aliased corners
  g.data[60 * g.width + 41] = 244;
  g.fill(60, 72, 50, 12, 120); // its value
  const face = enclosure(g, { x: 60, y: 72, width: 50, height: 12 });
  assert.ok(inputLike(face), JSON.stringify(face));
  assert.deepEqual(face, { x: 40, y: 60, width: 200, height: 36 });
});

test('a field with a faint border is found below its label', () => {
  const g = canvas();
  g.fill(40, 20, 60, 10, 120); // the label 'Address'
  g.outline(40, 40, 300, 36, 227); // the input, its border 23 levels below the page
  assert.deepEqual(fieldNear(g, { x: 40, y: 20, width: 60, height: 10 }), { x: 40, y: 40, width: 300, height: 36 });
});

test('a text boxed by the coloured pill it stands on is on a face of its own; dark words on the page are not', () => {
  const g = canvas();
  g.fill(100, 50, 60, 20, 200); // a yellow pill on the white page, grey 200
  g.fill(106, 55, 48, 10, 255); // its white word
  assert.ok(ownFace(g, { x: 101, y: 51, width: 58, height: 18 }));
  for (let x = 20; x < 70; x += 5) g.fill(x, 120, 2, 10, 40); // a dark word's strokes on the page
  assert.ok(!ownFace(g, { x: 20, y: 120, width: 50, height: 10 }));
  assert.ok(!ownFace(g, { x: 0, y: 0, width: 10, height: 10 }), 'at the screen edge: no ring outside to compare');
});

test('a text area under its label is found when one is asked for; an input is never that tall', () => {
  const g = canvas(600, 300);
  g.fill(20, 20, 60, 12, 40); // the label 'Address'
  g.outline(20, 40, 480, 100, 180); // the text area below it, 100 px high
  assert.equal(fieldNear(g, { x: 20, y: 20, width: 60, height: 12 }), null);
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 60, height: 12 }, 'auto', TEXT_AREA_HEIGHT), { x: 20, y: 40, width: 480, height: 100 });
});

test('a compact select on its label\'s line is the label\'s field; one as compact off the line is not', () => {
  const g = canvas(400, 200);
  g.fill(20, 44, 40, 12, 40); // the label 'Show'
  g.outline(70, 34, 52, 32, 150); // a select showing '25': barely wider than tall
  assert.deepEqual(fieldNear(g, { x: 20, y: 44, width: 40, height: 12 }), { x: 70, y: 34, width: 52, height: 32 });
  const h = canvas(400, 200);
  h.fill(20, 44, 40, 12, 40);
  h.outline(70, 46, 52, 32, 150); // the same face, its middle 12 px below the label's
  assert.equal(fieldNear(h, { x: 20, y: 44, width: 40, height: 12 }, 'right'), null);
});

test('an input joined to a prefix box under its label is the field, not the prefix; an input joined to a narrower button stays the field', () => {
  const g = canvas(500, 200);
  g.fill(20, 20, 60, 12, 40); // the label 'Website'
  g.outline(20, 40, 70, 34, 150); // the prefix 'https://'
  g.fill(30, 50, 50, 12, 60);
  g.outline(89, 40, 300, 34, 150); // the input joined to it
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 60, height: 12 }), { x: 89, y: 40, width: 300, height: 34 });
  const h = canvas(500, 200);
  h.fill(20, 20, 60, 12, 40); // the label 'Search'
  h.outline(20, 40, 300, 34, 150); // the input
  h.outline(319, 40, 70, 34, 150); // its joined 'Go' button
  assert.deepEqual(fieldNear(h, { x: 20, y: 20, width: 60, height: 12 }), { x: 20, y: 40, width: 300, height: 34 });
});

test('a faint radio ring after the words of the radio before it is its own toggle; so is a switch\'s track', () => {
  const g = canvas(400, 200);
  g.fill(0, 0, 400, 200, 245); // a light grey page
  g.fill(10, 44, 30, 12, 60); // the end of the label 'Small'
  g.outline(62, 41, 18, 18, 223); // the faint ring of the 'Medium' radio, 22 grey levels off the page
  g.fill(86, 44, 50, 12, 60); // 'Medium'
  assert.deepEqual(toggleNear(g, { x: 86, y: 44, width: 50, height: 12 }), { x: 62, y: 41, width: 18, height: 18 });
  const h = canvas(400, 200);
  h.fill(40, 43, 30, 16, 120); // a switch's track, twice as wide as tall
  h.fill(78, 45, 80, 12, 40); // 'Email notifications'
  assert.deepEqual(toggleNear(h, { x: 78, y: 45, width: 80, height: 12 }), { x: 40, y: 43, width: 30, height: 16 });
});

test('a field drawn as a line under its label is found, past a value written on it; a box\'s top edge is no such line', () => {
  const g = canvas(500, 200);
  g.fill(20, 20, 70, 12, 80); // the label 'Short bio'
  for (let x = 20; x < 140; x += 9) g.fill(x, 44, 6, 14, 40); // its value, letter by letter
  g.fill(20, 66, 300, 1, 180); // the line
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 70, height: 12 }), { x: 20, y: 32, width: 300, height: 34 });
  const h = canvas(500, 300);
  h.fill(20, 20, 70, 12, 80); // a label over a text area taller than an input
  h.outline(20, 40, 300, 120, 180);
  assert.equal(fieldNear(h, { x: 20, y: 20, width: 70, height: 12 }), null);
});

test('a dark theme\'s input, bordered only ten grey levels off its card, is found under its label and beside it', () => {
  const g = canvas(900, 200);
  g.fill(0, 0, 900, 200, 40); // a dark card
  g.fill(20, 20, 70, 12, 200); // a light label
  g.outline(20, 40, 300, 34, 50); // its input, a faint border
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 70, height: 12 }), { x: 20, y: 40, width: 300, height: 34 });
  g.fill(400, 130, 60, 12, 200); // a label left of its input
  g.outline(480, 119, 300, 34, 50);
  assert.deepEqual(fieldNear(g, { x: 400, y: 130, width: 60, height: 12 }), { x: 480, y: 119, width: 300, height: 34 });
  // On a light page an edge that faint is a card's round a whole form, not an input.
  const light = canvas(900, 200);
  light.fill(20, 20, 70, 12, 80); // a heading over a card
  light.outline(20, 40, 300, 34, 242);
  assert.equal(fieldNear(light, { x: 20, y: 20, width: 70, height: 12 }), null);
});

test('an input far along its label\'s line gives way to one just under the label', () => {
  const g = canvas(900, 200);
  g.fill(20, 20, 70, 12, 80); // 'Username', over its own input
  g.outline(20, 40, 300, 34, 150);
  g.outline(380, 14, 300, 34, 150); // the next column's input, level with the label
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 70, height: 12 }), { x: 20, y: 40, width: 300, height: 34 });
});

test('an input on the label\'s own row, far along a wide label column, beats the next row\'s input under the label', () => {
  const g = canvas(900, 200);
  g.fill(20, 26, 50, 12, 80); // 'Phone', top-aligned with its input in the next grid column
  g.outline(300, 20, 300, 40, 150);
  g.outline(20, 80, 250, 40, 150); // the next row's input, under the label but a row further down
  assert.deepEqual(fieldNear(g, { x: 20, y: 26, width: 50, height: 12 }), { x: 300, y: 20, width: 300, height: 40 });
});

test('a value shown in a control is no label: the next column\'s input far along its line, or a line under it, is not its field', () => {
  const g = canvas(900, 200);
  g.fill(20, 20, 120, 12, 60); // 'Engineer at Acme', written on an underlined input
  g.fill(16, 40, 300, 1, 180); // the input's line
  g.outline(380, 10, 300, 34, 150); // the next column's input, level with it
  assert.equal(fieldNear(g, { x: 20, y: 20, width: 120, height: 12 }, 'auto', undefined, true), null);
  // As a label, the line under it is its field.
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 120, height: 12 }), { x: 16, y: 16, width: 300, height: 24 });
});

/** An input drawn as a sunken 3D frame (Windows-style): dark top and left lines, light bottom and right ones. */
function sunken(g: ReturnType<typeof canvas>, x: number, y: number, w: number, h: number): void {
  g.fill(x, y, w, h, 255);
  g.fill(x, y, w, 1, 159); g.fill(x, y, 1, h, 159);
  g.fill(x + 1, y + 1, w - 2, 1, 118); g.fill(x + 1, y + 1, 1, h - 2, 118);
  g.fill(x + 1, y + h - 2, w - 2, 1, 227); g.fill(x + w - 2, y + 1, 1, h - 2, 227);
}

test('a value boxed with its input\'s left border (a sunken frame read as \'[\') stands on the face right of it', () => {
  const g = canvas(500, 120);
  g.fill(0, 0, 500, 120, 239);
  sunken(g, 150, 40, 300, 23);
  g.fill(155, 45, 40, 13, 30); // the value 'alice'
  const read = { x: 150, y: 40, width: 45, height: 23 }; // the reader's box, frame included
  assert.equal(enclosure(g, read), null);
  assert.deepEqual(faceAround(g, read), { x: 151, y: 41, width: 298, height: 21 });
});

test('a label\'s box that leaves out its colon still finds the input beside it, and a required mark after it is skipped', () => {
  for (const tail of [{ gap: 1, width: 2 }, { gap: 6, width: 7 }]) {
    const g = canvas(500, 120);
    g.fill(0, 0, 500, 120, 239);
    g.fill(20, 44, 36, 13, 30); // 'Delay'
    g.fill(56 + tail.gap, 47, tail.width, 8, 30); // ':' or ' *', outside the label's box
    g.fill(56 + tail.gap + tail.width, 47, 1, 8, 200); // its soft edge
    sunken(g, 150, 38, 300, 23);
    const field = fieldNear(g, { x: 20, y: 44, width: 36, height: 13 });
    assert.ok(field && Math.abs(field.x - 150) <= 1 && Math.abs(field.y - 38) <= 1 && field.width >= 298 && field.height >= 21, `tail ${JSON.stringify(tail)}: ${JSON.stringify(field)}`);
  }
});

test('a group box\'s bottom line under the last label is no underlined input: the input beside the label is its field', () => {
  const g = canvas(600, 160);
  g.fill(0, 0, 600, 160, 239);
  g.outline(10, 10, 540, 120, 160); // the group box
  g.fill(22, 94, 76, 12, 30); // 'Home page:'
  g.outline(140, 88, 390, 25, 120); // its input, far along the line
  assert.deepEqual(fieldNear(g, { x: 22, y: 94, width: 76, height: 12 }), { x: 140, y: 88, width: 390, height: 25 });
});

test('a full-width input on a wide screen (1,400 px) is found under and beside its label', () => {
  const g = canvas(1900, 200);
  g.fill(40, 30, 70, 13, 30); // 'Country' over its input
  g.outline(40, 52, 1400, 38, 200);
  assert.deepEqual(fieldNear(g, { x: 40, y: 30, width: 70, height: 13 }), { x: 40, y: 52, width: 1400, height: 38 });
  g.fill(40, 130, 70, 13, 30); // 'Postcode' beside its input
  g.outline(300, 118, 1500, 38, 200);
  assert.deepEqual(fieldNear(g, { x: 40, y: 130, width: 70, height: 13 }), { x: 300, y: 118, width: 1500, height: 38 });
});

test('a focused input\'s caret, just right of its value and as tall as its face, does not hide the face round the value', () => {
  const g = canvas(500, 120);
  g.fill(0, 0, 500, 120, 239);
  sunken(g, 150, 40, 300, 23);
  g.fill(155, 45, 80, 13, 30); // the value '%{artist}'
  g.fill(237, 42, 1, 19, 20); // the caret, from the face's top to its bottom
  const read = { x: 152, y: 42, width: 86, height: 19 }; // boxed from the face's edge to the caret
  assert.deepEqual(faceAround(g, read), { x: 151, y: 41, width: 87, height: 21 });
});

test('a text area nearly as high as it is wide (a desktop form\'s comment box) is found under its label', () => {
  const g = canvas(600, 400);
  g.fill(20, 20, 40, 12, 40); // the label 'Text:'
  g.outline(20, 40, 444, 270, 150);
  assert.deepEqual(fieldNear(g, { x: 20, y: 20, width: 40, height: 12 }, 'auto', TEXT_AREA_HEIGHT), { x: 20, y: 40, width: 444, height: 270 });
  // As square a box of an input's height is no input.
  const h = canvas(600, 200);
  h.fill(20, 20, 40, 12, 40);
  h.outline(20, 40, 60, 45, 150);
  assert.equal(fieldNear(h, { x: 20, y: 20, width: 40, height: 12 }, 'auto', TEXT_AREA_HEIGHT), null);
});

test('looked for beside it only (as the OCR engine does for a value shown in a control), the input under a value is not taken: it is the next row\'s', () => {
  const g = canvas(600, 200);
  g.fill(0, 0, 600, 200, 239);
  g.fill(150, 40, 120, 13, 30); // the value, whose own face was not seen round it
  sunken(g, 140, 70, 300, 23); // the next row's input
  assert.equal(fieldNear(g, { x: 150, y: 40, width: 120, height: 13 }, 'right', undefined, true), null);
  assert.deepEqual(fieldNear(g, { x: 150, y: 40, width: 120, height: 13 }, 'auto', undefined, true), { x: 141, y: 71, width: 298, height: 21 }, 'looked for anywhere, it would be taken');
});

test('a word taller than the reach of a face (a 300 px \'OK\' on a huge button) has none, and does not throw', () => {
  const g = canvas(1366, 768);
  g.fill(0, 0, 1366, 768, 255);
  g.fill(60, 60, 1240, 640, 90); // the button
  const read = { x: 420, y: 250, width: 520, height: 300 };
  g.fill(read.x, read.y, read.width, read.height, 250); // the word
  assert.equal(faceAround(g, read), null);
});
