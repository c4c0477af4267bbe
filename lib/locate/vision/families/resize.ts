import type { Size } from './family';

/**
 * Qwen2.5-VL's image processor (and UI-TARS, built on it) resizes every
 * image so that both sides are multiples of 28 and the pixel count lies
 * within bounds, then answers in pixels of that resized image.
 */
export const FACTOR = 28;
export const MIN_PIXELS = 56 * 56;
/** The processor's default ceiling (vLLM and Transformers use it unless told otherwise). */
export const MAX_PIXELS = 12_845_056;
/**
 * A ceiling at or below any deployment's: an image Glance sends within it,
 * with sides already multiples of 28, passes the model's resize unchanged.
 */
export const SAFE_MAX_PIXELS = 1280 * FACTOR * FACTOR;

export function smartResize({ width, height }: Size, maxPixels = MAX_PIXELS, minPixels = MIN_PIXELS): Size {
  let h = Math.max(FACTOR, Math.round(height / FACTOR) * FACTOR);
  let w = Math.max(FACTOR, Math.round(width / FACTOR) * FACTOR);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.max(FACTOR, Math.floor(height / beta / FACTOR) * FACTOR);
    w = Math.max(FACTOR, Math.floor(width / beta / FACTOR) * FACTOR);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / FACTOR) * FACTOR;
    w = Math.ceil((width * beta) / FACTOR) * FACTOR;
  }
  return { width: w, height: h };
}
