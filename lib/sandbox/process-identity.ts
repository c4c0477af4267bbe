import fs from 'fs';

/**
 * Who a pid is, not just that it exists. Pids are reused, so a pid read back
 * from a record is only trusted when its start time and command line are the
 * ones recorded when the sandbox started.
 */
export interface ProcessIdentity {
  /** Clock ticks after boot (field 22 of /proc/<pid>/stat): differs for every process that ever held the pid. */
  startTime: number;
  cmdline: string[];
}

export interface ProcessInfo extends ProcessIdentity {
  pid: number;
  /** The process group it is in. */
  pgrp: number;
}

/** The fields of /proc/<pid>/stat that Glance reads. */
export interface ProcessStat {
  /** R, S, D, Z (a zombie: ended, waiting for its parent to read its status), … */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  startTime: number;
}

/** /proc/<pid>/stat, read; null when the process is gone (or there is no /proc). */
export function procStat(pid: number | string): ProcessStat | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may itself hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]), startTime: Number(fields[19]) };
  } catch {
    return null;
  }
}

/** What /proc says about `pid` now, or null when there is no such process (or no /proc). */
export function readProcess(pid: number): ProcessInfo | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const stat = procStat(pid);
  if (!stat) return null;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (cmdline[cmdline.length - 1] === '') cmdline.pop();
    return { pid, pgrp: stat.pgrp, startTime: stat.startTime, cmdline };
  } catch {
    return null;
  }
}

export function processIdentity(pid: number): ProcessIdentity | null {
  const info = readProcess(pid);
  return info && { startTime: info.startTime, cmdline: info.cmdline };
}

export function sameProcess(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.startTime === b.startTime && a.cmdline.length === b.cmdline.length && a.cmdline.every((arg, i) => arg === b.cmdline[i]);
}
