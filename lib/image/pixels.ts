/**
 * Raw pixel helpers. Screens travel as BGRX (X11's native order) on the hot
 * path; conversion happens only where an RGBA consumer needs it.
 */
export interface RawImage {
  width: number;
  height: number;
  /** 4 bytes a pixel. */
  data: Buffer;
}

/** BGRX → RGBA in a new buffer (alpha set opaque). */
export function bgrxToRgba(data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(data.length);
  for (let i = 0; i < data.length; i += 4) {
    out[i] = data[i + 2];
    out[i + 1] = data[i + 1];
    out[i + 2] = data[i];
    out[i + 3] = 255;
  }
  return out;
}

/** Encodes an RGBA image as PNG. sharp is loaded on first use: it is not needed on the hot path. */
export async function encodePng(image: RawImage): Promise<Buffer> {
  const sharp = (await import('sharp')).default;
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .png({ compressionLevel: 3 })
    .toBuffer();
}
