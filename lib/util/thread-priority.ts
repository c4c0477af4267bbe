import fs from 'fs';
import os from 'os';

/**
 * How far below the process's other threads a reading thread runs (the
 * niceness added): on a machine of few cores, a screen read that no one
 * waits for any more (its screen has moved) must not slow the finder's
 * thread, and a read that is waited for takes the cores nobody else wants.
 * Where the kernel schedules processes in groups by session (autogroups,
 * Debian's default), that is all it ranks: the sandbox's programs, each
 * started in a session of its own, share the cores with this process as
 * equal groups, whatever the niceness of the threads inside them.
 */
const BELOW_OTHERS = 10;

/**
 * Lowers the calling thread's scheduling priority (Linux: a thread's nice
 * value is its own, and threads it starts inherit it). Elsewhere, or where
 * it is refused, the thread runs as it was.
 */
export function runBelowOthers(): void {
  try {
    const thread = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(thread) && thread > 0) os.setPriority(thread, Math.min(19, os.getPriority(thread) + BELOW_OTHERS));
  } catch {
    // No /proc (not Linux), or not allowed: the same priority as the rest.
  }
}
