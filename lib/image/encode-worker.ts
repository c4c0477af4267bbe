/**
 * The encoding worker: turns raw BGRX screens into image files on a thread of
 * its own, so that a test's commands never wait for PNG or JPEG encoding.
 */
import fs from 'fs';
import path from 'path';
import { parentPort } from 'worker_threads';
import sharp from 'sharp';
import type { EncodeJob } from './background-encoder';

/** BGRX → RGBA, four bytes at a time. */
function toRgba(bgrx: Uint8Array): Buffer {
  const input = new Uint32Array(bgrx.buffer, bgrx.byteOffset, bgrx.byteLength >> 2);
  const out = Buffer.allocUnsafe(bgrx.byteLength);
  const output = new Uint32Array(out.buffer, out.byteOffset, input.length);
  for (let i = 0; i < input.length; i++) {
    const v = input[i];
    output[i] = 0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | ((v >>> 16) & 0xff);
  }
  return out;
}

/** Draws the boxes onto the RGBA pixels, `thickness` px outside each edge. */
function drawBoxes(rgba: Buffer, width: number, height: number, job: EncodeJob): void {
  for (const { box, colour } of job.boxes ?? []) {
    const value = 0xff000000 | (colour[2] << 16) | (colour[1] << 8) | colour[0];
    const words = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
    const paint = (x: number, y: number) => { if (x >= 0 && y >= 0 && x < width && y < height) words[y * width + x] = value; };
    for (let t = 0; t < 4; t++) {
      for (let x = box.x - t; x <= box.x + box.width + t; x++) { paint(x, box.y - t); paint(x, box.y + box.height + t); }
      for (let y = box.y - t; y <= box.y + box.height + t; y++) { paint(box.x - t, y); paint(box.x + box.width + t, y); }
    }
  }
}

async function encode(job: EncodeJob): Promise<void> {
  const rgba = toRgba(new Uint8Array(job.data));
  drawBoxes(rgba, job.width, job.height, job);
  let image = sharp(rgba, { raw: { width: job.width, height: job.height, channels: 4 } });
  if (job.maxWidth && job.width > job.maxWidth) image = image.resize({ width: job.maxWidth });
  const bytes = job.format === 'jpeg' ? await image.jpeg({ quality: 80, mozjpeg: false }).toBuffer() : await image.png({ compressionLevel: 3 }).toBuffer();
  fs.mkdirSync(path.dirname(job.file), { recursive: true });
  fs.writeFileSync(job.file, bytes);
}

parentPort!.on('message', (job: EncodeJob) => {
  encode(job).then(
    () => parentPort!.postMessage({ id: job.id, error: null }),
    (error: Error) => parentPort!.postMessage({ id: job.id, error: error.message }),
  );
});
