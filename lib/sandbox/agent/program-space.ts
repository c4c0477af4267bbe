import type { ChildProcess, StdioOptions } from 'child_process';
import type { ProcessGroup } from './processes';
import type { SandboxUser } from './sandbox-user';
import { PROGRAM_MARK } from './program-env';
import { ProgramSessions } from './program-sessions';

/**
 * Where and as whom the programs of a sandbox run: what `I launch …`,
 * `I open … in the browser` and `I run …` start. Every one of them runs as
 * the sandbox's user, starts in its home, and is known by two marks (see
 * program-reaper.ts): the session it starts in, which its children share
 * unless they leave it, and a variable in its environment, which they
 * inherit unless they overwrite it (Chromium rewrites its environment's
 * memory for its process titles, but stays in its session).
 */
export class ProgramSpace {
  readonly env: NodeJS.ProcessEnv;
  /** The sessions of the programs started since the last reset: each program starts one of its own. */
  readonly sessions = new ProgramSessions();

  constructor(
    env: NodeJS.ProcessEnv,
    /** The programs' working folder: the sandbox's home (a temp folder for a self-hosted agent). */
    readonly home: string,
    /** Who runs them; null for the agent's own user. */
    readonly user: SandboxUser | null,
    /** Marks every process they start, so that reset and stop find them all. */
    readonly mark: string,
    /** Where browser profiles go: a folder of the programs' user that a reset leaves alone. */
    readonly browsers: string = home,
  ) {
    this.env = { ...env, [PROGRAM_MARK]: mark };
  }

  spawn(processes: ProcessGroup, file: string, args: string[], stdio: StdioOptions): ChildProcess {
    const child = processes.spawn(file, args, { env: this.env, cwd: this.home, stdio, ...asUser(this.user) });
    if (child.pid) this.sessions.add(child.pid);
    return child;
  }
}

/** Spawn options that run a child as `user` (the agent itself stays who it is). */
export function asUser(user: SandboxUser | null): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}
