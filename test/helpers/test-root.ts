import fs from 'fs';
import os from 'os';
import path from 'path';

let own: string | null = null;

/**
 * Where tests put their temporary folders: the suite's root, which `npm test`
 * removes whole, or, for a file run on its own, a root of this process's own,
 * removed when the process exits. Readable by the sandbox's user, whose
 * programs open pages from it.
 */
export function testRoot(): string {
  const suite = process.env.GLANCE_TEST_ROOT;
  if (suite) {
    fs.mkdirSync(suite, { recursive: true });
    return suite;
  }
  if (!own) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-test-'));
    fs.chmodSync(root, 0o755);
    process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
    own = root;
  }
  return own;
}

/** A fresh folder under testRoot(), its name starting with `prefix`. */
export function testFolder(prefix: string): string {
  return fs.mkdtempSync(path.join(testRoot(), prefix));
}
