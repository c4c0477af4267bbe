import fs from 'fs';
import { ChildProcess, spawn, spawnSync, SpawnOptions } from 'child_process';
import { readProcess } from '../process-identity';

const SETPRIV = '/usr/bin/setpriv';

/**
 * The command line that runs `file` so that it ends with the supervisor,
 * even one killed outright or aborted: the kernel sends it SIGTERM
 * (util-linux's setpriv sets the parent-death signal, and execs in place,
 * so the pid stays the program's). For the X server, whose clients (the
 * window manager, the programs) end with it, and for the buses, which are
 * no X clients: ending the session bus ends the rest (the launcher leaves
 * with it, and its accessibility bus and registry leave with the launcher).
 */
export function endingWithSupervisor(file: string, args: string[]): [string, string[]] {
  return fs.existsSync(SETPRIV) ? [SETPRIV, ['--pdeathsig', 'TERM', '--', file, ...args]] : [file, args];
}

/**
 * Every process the agent starts (X server, window manager, apps, exec
 * commands) runs in its own process group and is registered here, so that
 * terminating the sandbox ends all of them and nothing is orphaned.
 */
export class ProcessGroup {
  private readonly children = new Set<ChildProcess>();

  spawn(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const child = spawn(command, args, { stdio: 'ignore', ...options, detached: true });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    child.once('error', () => this.children.delete(child));
    return child;
  }

  /** The running children's pids; each leads its own session, which its descendants share. */
  pids(): number[] {
    return [...this.children].filter((c) => !exited(c) && c.pid).map((c) => c.pid!);
  }

  /** Sends SIGTERM to every group, then SIGKILL to what is still there after `graceMs`. */
  async killAll(graceMs = 1500): Promise<void> {
    const alive = [...this.children].filter((c) => !exited(c) && c.pid);
    for (const child of alive) signalGroup(child.pid!, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && alive.some((c) => !exited(c))) {
      await new Promise((r) => setTimeout(r, 25));
    }
    for (const child of alive) {
      // The kernel keeps a pid while any process of its group lives; a leader
      // that exited and whose pid someone holds again left no group to end.
      if (exited(child) && readProcess(child.pid!)) continue;
      signalGroup(child.pid!, 'SIGKILL');
    }
    this.children.clear();
  }
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Signals a child's whole process group; on Windows, which has no groups, ends its process tree. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (process.platform === 'win32') {
    spawnSync('taskkill', ['/T', ...(signal === 'SIGKILL' ? ['/F'] : []), '/PID', String(pid)], { stdio: 'ignore', timeout: 5_000 });
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is already gone */
  }
}
