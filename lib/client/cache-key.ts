import fs from 'fs';
import { createHash } from 'crypto';
import type { CallSite } from '../util/call-site';

/**
 * The automatic cache key: the SHA-256 of the test file (a Cucumber run's
 * .feature file, or the script that called find()). Editing the file changes
 * the key, so entries made for the old version are no longer used.
 */
const hashes = new Map<string, { mtimeMs: number; hash: string }>();

export function fileCacheKey(file: string): string {
  const { mtimeMs } = fs.statSync(file);
  const known = hashes.get(file);
  if (known && known.mtimeMs === mtimeMs) return known.hash;
  const hash = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  hashes.set(file, { mtimeMs, hash });
  return hash;
}

export function defaultCacheKey(site: CallSite | null): string {
  if (site && fs.existsSync(site.file)) return fileCacheKey(site.file);
  const script = process.argv[1];
  return script && fs.existsSync(script) ? fileCacheKey(script) : 'session';
}
