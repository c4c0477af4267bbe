import fs from 'fs';
import path from 'path';
import { createHash } from 'crypto';

/** Pictures wider than this are scaled down for the page (clicking one opens the stored file). */
export const PAGE_PICTURE_WIDTH = 1024;
/** Clips up to this size are copied into the report; larger ones are linked where they are kept. */
export const MAX_CLIP_COPY = 16 * 1024 * 1024;

/**
 * The report's media folder: every picture and clip stored once, named by
 * its content, pictures scaled to PAGE_PICTURE_WIDTH as JPEG. Paths it hands
 * out are relative to the folder of the report's pages.
 */
export class MediaStore {
  readonly dir: string;
  private readonly stored = new Map<string, string>();

  constructor(reportPath: string, private readonly fromPages = '../media') {
    this.dir = path.join(reportPath, 'media');
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(this.dir, { recursive: true });
  }

  /** Stores a picture (a file, or its bytes); null when the file is gone. */
  async picture(source: string | Buffer): Promise<string | null> {
    let bytes: Buffer;
    try {
      bytes = typeof source === 'string' ? fs.readFileSync(source) : source;
    } catch {
      return null;
    }
    const hash = createHash('sha1').update(bytes).digest('hex').slice(0, 20);
    const known = this.stored.get(hash);
    if (known) return known;
    const sharp = (await import('sharp')).default;
    const image = sharp(bytes);
    const { format, width = 0 } = await image.metadata();
    const name = `${hash}.jpg`;
    if (format === 'jpeg' && width <= PAGE_PICTURE_WIDTH) fs.writeFileSync(path.join(this.dir, name), bytes);
    else await image.resize({ width: Math.min(width, PAGE_PICTURE_WIDTH) }).flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toFile(path.join(this.dir, name));
    const relative = `${this.fromPages}/${name}`;
    this.stored.set(hash, relative);
    return relative;
  }

  /** Stores a clip, or links it where it is kept when it is large; null when it is gone. */
  clip(file: string): string | null {
    if (!fs.existsSync(file)) return null;
    const key = `clip:${path.resolve(file)}`;
    const known = this.stored.get(key);
    if (known) return known;
    let link: string;
    if (fs.statSync(file).size > MAX_CLIP_COPY) {
      link = `file://${path.resolve(file)}`;
    } else {
      const name = `${createHash('sha1').update(path.resolve(file)).digest('hex').slice(0, 20)}.mp4`;
      fs.copyFileSync(file, path.join(this.dir, name));
      link = `${this.fromPages}/${name}`;
    }
    this.stored.set(key, link);
    return link;
  }
}
