import fs from 'fs';
import os from 'os';
import path from 'path';
import { procStat } from './process-identity';

/**
 * Folders in the system's temp folder that one Glance process owns: a local
 * sandbox's own folder, a self-hosted agent's work folder. The owner removes
 * its folder when it ends; one that is killed outright, or that Xlib ends
 * when its display goes away first, cannot, and its folder (a home, browser
 * profiles, clips: megabytes) would stay for good. So each folder holds a
 * note of its owner, and the next process of its kind removes the folders
 * whose owner is gone.
 */
const OWNER_NOTE = '.glance-owner';

/** Notes this process as the owner of `dir`. */
export function markOwned(dir: string): void {
  const stat = procStat(process.pid);
  if (!stat) return; // no /proc: nothing could tell the owner apart later either
  fs.writeFileSync(path.join(dir, OWNER_NOTE), `${process.pid} ${stat.startTime}\n`, { mode: 0o644 });
}

/** Whether the process noted in `dir` is gone; false for a folder with no readable note of this user's (not ours to judge). */
function ownerGone(dir: string, uid: number | undefined): boolean {
  let note: string;
  try {
    const file = path.join(dir, OWNER_NOTE);
    if (uid !== undefined && fs.lstatSync(file).uid !== uid) return false;
    note = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const [pid, startTime] = note.trim().split(' ').map(Number);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isFinite(startTime)) return false;
  // A pid now held by another process counts as gone: the start time is the owner's alone.
  return procStat(pid)?.startTime !== startTime;
}

/**
 * Removes the folders named `<prefix>…` in `parent` whose noted owner is
 * gone. Folders with no note, or one another user wrote, are left alone.
 * Returns the folders removed.
 */
export function removeOrphanedFolders(prefix: string, parent = os.tmpdir()): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(parent).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(parent, name);
    try {
      if (!fs.lstatSync(dir).isDirectory() || !ownerGone(dir, uid)) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      /* removed by someone else meanwhile, or not ours to remove */
    }
  }
  return removed;
}
