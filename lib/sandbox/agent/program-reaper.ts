import fs from 'fs';
import type { Driver } from './driver';
import { PROGRAM_MARK } from './program-env';
import { procStat } from '../process-identity';
import type { ProgramSessions } from './program-sessions';
import { sleep } from '../../util/wait';

/**
 * Ends the programs a sandbox started, however they were started: a launcher
 * that forked and exited, a shell's `server > log &`, a daemon that left its
 * session. /proc finds them all without the parents that are gone, by either
 * of two marks (see program-space.ts): the session a program was started in,
 * or the sandbox's variable in its environment. They are closed as a person
 * closes them: the window manager's close request first, then SIGTERM, then
 * SIGKILL, each after a bound.
 */
export interface ReapBounds {
  /** How long windows get to close after the close request. */
  closeMs: number;
  /** How long processes get after SIGTERM. */
  termMs: number;
}

export const DEFAULT_REAP_BOUNDS: ReapBounds = { closeMs: 1500, termMs: 1000 };
const LOOK_EVERY_MS = 25;

/** What marks a sandbox's programs: its variable's value, and the sessions they were started in. */
export interface ProgramMarks {
  mark: string;
  sessions: Pick<ProgramSessions, 'holds'>;
}

/** Pids of the live processes in one of `sessions`, or whose environment holds `PROGRAM_MARK=<mark>`. */
export function markedProcesses({ mark, sessions }: ProgramMarks): number[] {
  const wanted = Buffer.from(`\0${PROGRAM_MARK}=${mark}\0`);
  const first = Buffer.from(`${PROGRAM_MARK}=${mark}\0`);
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = procStat(entry);
      if (!stat) continue;
      if (sessions.holds(stat)) {
        pids.push(Number(entry));
        continue;
      }
      const environ = fs.readFileSync(`/proc/${entry}/environ`);
      if (environ.includes(wanted) || environ.subarray(0, first.length).equals(first)) pids.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

/**
 * `root` and every live process under it, children's children too, from one
 * pass over /proc: a pass per process walked costs 3 to 10 ms each on a
 * browser's dozen.
 */
export function processTree(root: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = procStat(entry)?.ppid;
    if (ppid === undefined) continue;
    const siblings = children.get(ppid);
    if (siblings) siblings.push(Number(entry));
    else children.set(ppid, [Number(entry)]);
  }
  const tree = new Set([root]);
  for (const pid of tree) for (const child of children.get(pid) ?? []) tree.add(child);
  return tree;
}

/** Pids of the live children of `parent` (a session bus's activated services). */
export function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && procStat(entry)?.ppid === parent) pids.push(Number(entry));
  }
  return pids;
}

/** Whether the pid still runs (a zombie has ended: it only waits for its parent to read its status). */
function running(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state !== undefined && state !== 'Z';
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      /* already gone */
    }
  }
}

async function until(deadline: number, done: () => boolean): Promise<boolean> {
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(LOOK_EVERY_MS);
  }
}

/**
 * Ends `pids` (and whatever `more()` finds later, for programs that started
 * children while closing): their windows are asked to close, then what is
 * left gets SIGTERM, then SIGKILL. Resolves to how many processes there were.
 */
export async function endProcesses(pids: number[], driver: Driver | null, bounds: ReapBounds = DEFAULT_REAP_BOUNDS, more: () => number[] = () => []): Promise<number> {
  const all = new Set(pids);
  const alive = () => {
    for (const pid of more()) all.add(pid);
    return [...all].filter(running);
  };
  if (!all.size) return 0;
  if (driver && bounds.closeMs > 0) {
    const windows = (await driver.windows().catch(() => [])).filter((w) => w.pid !== null && all.has(w.pid));
    for (const window of windows) await driver.closeWindow(window.id).catch(() => undefined);
    if (windows.length) await until(Date.now() + bounds.closeMs, () => alive().length === 0);
  }
  signal(alive(), 'SIGTERM');
  if (!(await until(Date.now() + bounds.termMs, () => alive().length === 0))) {
    signal(alive(), 'SIGKILL');
    await until(Date.now() + bounds.termMs, () => alive().length === 0);
  }
  return all.size;
}

/** Ends every program that carries the marks, as a person would close them; `spare` stays. */
export function endMarkedPrograms(marks: ProgramMarks, driver: Driver | null, bounds: ReapBounds = DEFAULT_REAP_BOUNDS, spare: ReadonlySet<number> = new Set()): Promise<number> {
  const marked = () => markedProcesses(marks).filter((pid) => !spare.has(pid));
  return endProcesses(marked(), driver, bounds, marked);
}
