import { procStat, ProcessStat } from '../process-identity';

/**
 * The sessions a sandbox's programs were started in, each known by its
 * leader's start time. A session's id is its leader's pid, and pids are
 * reused: once a program has ended, another process (another sandbox's
 * program, say) can get its pid and start a session of the same id. A
 * reset must not take that one for the sandbox's.
 */
export class ProgramSessions {
  /** Session id → its leader's start time (clock ticks after boot); null when the leader was gone before it was read. */
  private readonly leaders = new Map<number, number | null>();

  /** Notes the session that the just-spawned process `pid` leads, with its start time (read now unless given). */
  add(pid: number, startTime: number | null = procStat(pid)?.startTime ?? null): void {
    this.leaders.set(pid, startTime);
  }

  /** Forgets every session but `kept` (a program that outlives the reset). */
  keepOnly(kept: number | null): void {
    for (const id of [...this.leaders.keys()]) if (id !== kept) this.leaders.delete(id);
  }

  /**
   * Whether the process of `stat` belongs to one of the sessions. Every
   * member of a session started no earlier than its leader; and while the
   * session's id is a live process, that process must be the leader noted.
   */
  holds(stat: ProcessStat): boolean {
    const leaderStart = this.leaders.get(stat.session);
    if (leaderStart === undefined) return false;
    if (leaderStart === null) return true;
    if (stat.startTime < leaderStart) return false;
    const leaderNow = procStat(stat.session);
    return !leaderNow || leaderNow.startTime === leaderStart;
  }
}
