import zlib from 'zlib';
import { bgrxToRgba, encodePng } from '../image/pixels';
import type { CacheRow, CacheStore } from './store';

/** A cache entry's crop, and the screen it was found on, as PNG files (`glance cache show`, the team console). */
export async function entryImages(store: CacheStore, row: CacheRow): Promise<{ crop: Buffer; screen: Buffer | null }> {
  const screen = store.screen(row.screen_hash);
  const rgba = (data: Buffer) => (screen?.format === 'bgrx' ? bgrxToRgba(data) : data);
  const crop = await encodePng({ width: row.width, height: row.height, data: rgba(row.crop) });
  if (!screen) return { crop, screen: null };
  return { crop, screen: await encodePng({ width: screen.width, height: screen.height, data: rgba(zlib.inflateSync(screen.data)) }) };
}
