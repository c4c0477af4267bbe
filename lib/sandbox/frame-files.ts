import fs from 'fs';
import path from 'path';
import { processAlive } from './registry';

/**
 * Frame files are screen captures in shared memory: files on the /dev/shm
 * tmpfs that the X server writes into over MIT-SHM (AttachFd, no SysV
 * segments). Each is named after the process that made it, because one that
 * dies without cleaning up leaves its file behind, holding a screen's worth of
 * RAM until someone removes it.
 */
export const FRAME_DIR = '/dev/shm';

const FRAME_NAME = /^glance-(?:client|agent)-(\d+)-[\da-f]+\.frame$/;

/** Where `owner` (this process) keeps a frame file; `tag` keeps several apart. */
export function frameFilePath(owner: 'client' | 'agent', tag: string, dir = FRAME_DIR): string {
  return path.join(dir, `glance-${owner}-${process.pid}-${tag}.frame`);
}

/**
 * Removes the frame files of Glance processes that are gone. A file is only
 * touched when its name is one Glance gives, it is a regular file of this
 * user, and no process has the pid in its name. A pid that was reused since
 * keeps its file until that process is gone too.
 */
export function removeStaleFrameFiles(dir = FRAME_DIR): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(FRAME_NAME.exec(name)?.[1]);
    if (!pid || processAlive(pid)) continue;
    const file = path.join(dir, name);
    try {
      const stat = fs.lstatSync(file);
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid)) continue;
      fs.unlinkSync(file);
      removed.push(file);
    } catch {
      /* removed by someone else meanwhile */
    }
  }
  return removed;
}

let swept = false;

/** Sweeps once per process, before its first frame file: the next start cleans up after a crash. */
export function removeStaleFrameFilesOnce(): void {
  if (swept) return;
  swept = true;
  removeStaleFrameFiles();
}
