import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Screen } from '../../lib/types/screen';
import { analyse, ReadWords, rereadLine, SeenScreens } from '../../lib/locate/ocr/analysis';
import { endPreparation } from '../../lib/locate/ocr/prepare-thread';
import type { GreyImage } from '../../lib/locate/ocr/preprocess';
import type { OcrWord } from '../../lib/locate/ocr/tesseract';

/** A light screen with one dark bar at `y`: screens of the same `y` have the same pixels. */
function screenWithBar(y: number): Screen {
  const width = 160, height = 120;
  const data = Buffer.alloc(width * height * 4, 240);
  for (let row = y; row < y + 10; row++) data.fill(20, row * width * 4 + 40, row * width * 4 + 120 * 4);
  return { width, height, data, format: 'bgrx' };
}

/** A word reader that counts its reads; `unread` pieces are left by each read. */
function countingReader(unread = 0) {
  const reader = { reads: 0, read: (async () => { reader.reads++; return { words: [{ text: 'Saved', confidence: 90, x: 10, y: 10, width: 40, height: 12 }], unread }; }) as ReadWords };
  return reader;
}

test('a screen captured again with the same pixels is not read again, and starts from its first reading; another screen is read, and forget() forgets them all', async () => {
  try {
    const seen = new SeenScreens();
    const reader = countingReader();
    const first = await analyse(screenWithBar(30), reader.read, Infinity, seen);
    const firstLines = first.lines;
    // A find's closer look replaces the first's lines, and reads its gaps.
    first.lines = [];
    first.gapsRead = true;
    const again = await analyse(screenWithBar(30), reader.read, Infinity, seen); // a new capture, the same pixels
    assert.equal(reader.reads, 1);
    assert.notEqual(again, first, 'an analysis of its own');
    assert.equal(again.lines, firstLines, 'from the first reading, not from what a find looked at more closely');
    assert.equal(again.gapsRead, false);
    assert.equal(again.prepared, first.prepared, 'the same prepared screen: what is kept by it serves both');
    await analyse(screenWithBar(60), reader.read, Infinity, seen);
    assert.equal(reader.reads, 2, 'other pixels are read');
    seen.forget();
    await analyse(screenWithBar(30), reader.read, Infinity, seen);
    assert.equal(reader.reads, 3, 'after forget(), a screen seen before is read as never seen');
    // Without the memo, every new capture is read.
    await analyse(screenWithBar(30), reader.read);
    assert.equal(reader.reads, 4);
  } finally {
    await endPreparation();
  }
});

test('a screen read only in part is read again at its next capture, and only the last few screens are kept', async () => {
  try {
    const seen = new SeenScreens();
    const partly = countingReader(2);
    await analyse(screenWithBar(30), partly.read, Infinity, seen);
    await analyse(screenWithBar(30), partly.read, Infinity, seen);
    assert.equal(partly.reads, 2, 'a reading in part is not kept');
    const reader = countingReader();
    for (const y of [10, 20, 30, 40, 50]) await analyse(screenWithBar(y), reader.read, Infinity, seen);
    await analyse(screenWithBar(50), reader.read, Infinity, seen);
    assert.equal(reader.reads, 5, 'the last screen is kept');
    await analyse(screenWithBar(10), reader.read, Infinity, seen);
    assert.equal(reader.reads, 6, 'the oldest of five went');
  } finally {
    await endPreparation();
  }
});

test('a line read again on a prepared screen is not read a second time, unless its read came after the deadline', async () => {
  const prepared: GreyImage = { width: 100, height: 40, data: new Uint8Array(100 * 40).fill(255) };
  const box = { x: 10, y: 10, width: 60, height: 14 };
  let crops = 0;
  const word: OcrWord = { text: 'Total', confidence: 88, x: 24, y: 12, width: 80, height: 24 };
  const reader = { readCrop: async (_image: GreyImage, _psm: string, deadline = Infinity) => { crops++; return Date.now() < deadline ? [word] : []; } };
  const late = await rereadLine(prepared, box, reader, Date.now() - 1);
  assert.deepEqual(late, []);
  const first = await rereadLine(prepared, box, reader);
  const second = await rereadLine(prepared, box, reader);
  assert.equal(crops, 2, 'the late read was not kept; the first real read was');
  assert.deepEqual(second, first);
  assert.equal(first[0].x, 10 - 6 + 12, 'in screen coordinates');
  await rereadLine({ ...prepared, data: new Uint8Array(prepared.data) }, box, reader);
  assert.equal(crops, 3, 'another prepared screen is read');
});
