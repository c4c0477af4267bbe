import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CaretBlinks, DrawnArea } from '../../lib/sandbox/agent/caret-blinks';
import { screenDifference } from '../../lib/image/screen-diff';

/** A screen of BGRX pixels, read area by area as the X server would give them. */
function screen(width: number, height: number) {
  const pixels = new Uint32Array(width * height).fill(0xffffff);
  let reads = 0;
  return {
    fill(area: DrawnArea, colour: number) {
      for (let y = area.y; y < area.y + area.height; y++) pixels.fill(colour, y * width + area.x, y * width + area.x + area.width);
    },
    read: async (area: DrawnArea) => {
      reads++;
      const out = new Uint32Array(area.width * area.height);
      for (let y = 0; y < area.height; y++) out.set(pixels.subarray((area.y + y) * width + area.x, (area.y + y) * width + area.x + area.width), y * area.width);
      return Buffer.from(out.buffer);
    },
    reads: () => reads,
  };
}

/** The judge, each judgement given once the area's reading has answered (an area seen first is judged before). */
function answered(blinks: CaretBlinks) {
  return { onlyCaret: async (area: DrawnArea) => { const caret = await blinks.onlyCaret(area); await new Promise((resolve) => setImmediate(resolve)); return caret; } };
}

test("a field's caret blinking inside a larger redrawn area is told from words drawn there", async () => {
  const desk = screen(400, 200);
  const blinks = answered(new CaretBlinks(desk.read));
  const entry = { x: 100, y: 50, width: 168, height: 34 }; // GTK redraws its whole entry at each blink
  const caret = { x: 110, y: 58, width: 1, height: 18 };
  assert.equal(await blinks.onlyCaret(entry), false, 'an area drawn for the first time counts');
  desk.fill(caret, 0);
  assert.equal(await blinks.onlyCaret(entry), true, 'the caret shown');
  desk.fill(caret, 0xffffff);
  assert.equal(await blinks.onlyCaret(entry), true, 'the caret hidden');
  assert.equal(await blinks.onlyCaret(entry), true, 'redrawn the same');
  desk.fill({ x: 112, y: 58, width: 7, height: 12 }, 0x202020); // a letter typed
  assert.equal(await blinks.onlyCaret(entry), false, 'a letter is more than a caret');
  desk.fill({ x: 300, y: 58, width: 2, height: 18 }, 0); // a line, elsewhere: only the area's own last showing counts
  assert.equal(await blinks.onlyCaret({ x: 290, y: 50, width: 20, height: 34 }), false, 'a new area');
  const reads = desk.reads();
  assert.equal(await blinks.onlyCaret(caret), true, "Chromium's report of its caret's line needs no reading");
  assert.equal(await blinks.onlyCaret({ x: 0, y: 0, width: 400, height: 200 }), false, 'an area that large is more than a caret');
  assert.equal(desk.reads(), reads, 'neither was read');
  const failing = new CaretBlinks(async () => { throw new Error('gone'); });
  assert.equal(await failing.onlyCaret(entry), false, 'an area that cannot be read counts');
});

test('the box around the pixels that differ, colour only (the comparison a blink is judged by)', () => {
  const changedBox = (a: Buffer, b: Buffer, width: number) => screenDifference(a, b, width, 0).box;
  const a = Buffer.from(new Uint32Array([1, 2, 3, 4, 5, 6]).buffer);
  const b = Buffer.from(new Uint32Array([1, 2, 3, 4, 9, 6]).buffer);
  assert.deepEqual(changedBox(a, b, 3), { x: 1, y: 1, width: 1, height: 1 });
  const padding = Buffer.from(new Uint32Array([1 | 0xff000000, 2, 3, 4, 5, 6]).buffer);
  assert.equal(changedBox(a, padding, 3), null, 'the unused fourth byte is not colour');
  const wide = Buffer.from(new Uint32Array([7, 2, 3, 4, 5, 8]).buffer);
  assert.deepEqual(changedBox(a, wide, 3), { x: 0, y: 0, width: 3, height: 2 });
});

test('words drawn again where a larger drawing wiped them count, and so does an area drawn over while it was read', async () => {
  const desk = screen(400, 200);
  const blinks = answered(new CaretBlinks(desk.read));
  const words = { x: 10, y: 90, width: 98, height: 17 };
  desk.fill(words, 0);
  assert.equal(await blinks.onlyCaret(words), false, 'the words drawn');
  desk.fill(words, 0xffffff);
  assert.equal(await blinks.onlyCaret({ x: 0, y: 0, width: 400, height: 200 }), false, 'a new page wipes them');
  desk.fill(words, 0);
  assert.equal(await blinks.onlyCaret(words), false, 'the same words, the same place, on the new page');

  // A read that answers after the area was drawn on again is not kept as what the area showed.
  const slow = screen(400, 200);
  const waiting: (() => void)[] = [];
  const release = async () => {
    while (!waiting.length) await new Promise((resolve) => setImmediate(resolve));
    waiting.shift()!();
  };
  const held = new CaretBlinks(async (area) => {
    const pixels = await slow.read(area); // read at once, answered later
    await new Promise<void>((resolve) => waiting.push(resolve));
    return pixels;
  });
  const entry = { x: 100, y: 50, width: 168, height: 34 };
  const letters = { x: 120, y: 55, width: 40, height: 20 };
  slow.fill(letters, 0);
  const first = held.onlyCaret(entry); // read with the letters
  slow.fill(letters, 0xffffff);
  const wiped = held.onlyCaret(letters); // reported before the first read answers
  await release();
  assert.equal(await first, false);
  await release();
  assert.equal(await wiped, false);
  slow.fill(letters, 0);
  const again = held.onlyCaret(entry);
  await release();
  assert.equal(await again, false, 'the letters drawn again count: the entry is not compared with a reading older than their wiping');
});

test('a drawing whose area the X server does not answer for within the bound counts as more than a caret', async () => {
  const desk = screen(400, 200);
  let stalled = false;
  const blinks = answered(new CaretBlinks(async (area) => (stalled ? new Promise<Buffer>(() => undefined) : desk.read(area))));
  const entry = { x: 100, y: 50, width: 168, height: 34 };
  await blinks.onlyCaret(entry);
  stalled = true;
  const started = Date.now();
  assert.equal(await blinks.onlyCaret(entry), false);
  assert.ok(Date.now() - started < 1000, `judged within the bound (${Date.now() - started} ms)`);
});
