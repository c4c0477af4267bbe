import fs from 'fs';
import { spawnSync } from 'child_process';
import { SandboxError } from '../config/errors';

/**
 * A sandboxHome seed for a sandbox that does not share this machine's files
 * (a pod): the folder travels in the supervisor's config as a gzipped tar.
 * The pod's whole object is stored by the API server, which refuses objects
 * over about 1.5 MB, so the seed has a bound of its own.
 */
export const MAX_SEED_ARCHIVE_BYTES = 512 * 1024;

/** The seed folder as a base64 tar.gz, or an error naming the folder and the bound. */
export function packHomeSeed(dir: string): string {
  const packed = spawnSync('tar', ['-czf', '-', '-C', dir, '.'], { maxBuffer: 64 * 1024 * 1024 });
  if (packed.status !== 0) throw new SandboxError(`Could not pack the sandboxHome folder '${dir}': ${packed.stderr?.toString().trim() || packed.error?.message}.`);
  if (packed.stdout.length > MAX_SEED_ARCHIVE_BYTES) {
    throw new SandboxError(`The sandboxHome folder '${dir}' packs to ${Math.round(packed.stdout.length / 1024)} KB, over the ${MAX_SEED_ARCHIVE_BYTES / 1024} KB a pod's sandbox can carry. Keep the seed to dotfiles and settings, and put large files in the image or fetch them with exec().`);
  }
  return packed.stdout.toString('base64');
}

/** Unpacks a packed seed into `dir` (made if need be); returns `dir`. */
export function unpackHomeSeed(archive: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const unpacked = spawnSync('tar', ['-xzf', '-', '-C', dir, '--no-same-owner'], { input: Buffer.from(archive, 'base64') });
  if (unpacked.status !== 0) throw new Error(`the sandboxHome seed did not unpack: ${unpacked.stderr.toString().trim()}`);
  return dir;
}
