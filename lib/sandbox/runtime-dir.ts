import os from 'os';
import path from 'path';
import { removeOrphanedFolders } from './owned-folders';

/**
 * A local sandbox's own folder: its home, temp folder and the runtime folder
 * its buses listen in (see agent/sandbox-folder.ts). In the system's temp
 * folder rather than the state folder, because a socket's path must stay
 * short and the sandbox's user must reach it.
 */
export function sandboxRuntimeDir(id: string): string {
  return path.join(os.tmpdir(), `glance-${id}`);
}

/** Removes the folders of local sandboxes whose supervisor died without removing its own (owned-folders.ts). */
export function removeOrphanedSandboxDirs(): string[] {
  return removeOrphanedFolders(path.basename(sandboxRuntimeDir('sbx-')));
}
