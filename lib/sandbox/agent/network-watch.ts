import { execFile } from 'child_process';
import { sleep } from '../../util/wait';
import { procStat } from '../process-identity';

/** Quiet: no socket of the sandbox's programs has sent or received anything for this long (as browsers' "network idle"). */
export const NETWORK_QUIET_MS = 500;
const POLL_MS = 100;

/** One TCP socket as `ss -tainp` shows it. */
export interface SocketActivity {
  pids: number[];
  state: string;
  localPort: number;
  /** ms since it last sent data. */
  lastSend: number;
  /** ms since it last received data. */
  lastReceive: number;
}

/** Parses `ss -tainpH`: a line per socket, then an indented line of its TCP details. */
export function parseSs(output: string): SocketActivity[] {
  const sockets: SocketActivity[] = [];
  let current: SocketActivity | null = null;
  for (const line of output.split('\n')) {
    if (!line.trim()) continue;
    if (!/^\s/.test(line)) {
      const [state, , , local] = line.split(/\s+/);
      const localPort = Number(/:(\d+)$/.exec(local ?? '')?.[1] ?? 0);
      current = { pids: [...line.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])), state, localPort, lastSend: Infinity, lastReceive: Infinity };
      sockets.push(current);
    } else if (current) {
      const send = /\blastsnd:(\d+)/.exec(line);
      const receive = /\blastrcv:(\d+)/.exec(line);
      if (send) current.lastSend = Number(send[1]);
      if (receive) current.lastReceive = Number(receive[1]);
    }
  }
  return sockets;
}

/**
 * A connection is busy while it is being opened, while data moved on it
 * within the quiet period, or, on the side that opened it, while it waits for
 * an answer: it sent more recently than it received, as a request does until
 * its response comes. (A server's side of a kept-alive connection answered
 * last, which is not waiting.) `listening` are the ports servers listen on.
 */
export function busy(socket: SocketActivity, listening: Set<number>, quietMs = NETWORK_QUIET_MS): boolean {
  if (socket.state === 'LISTEN') return false;
  if (socket.state === 'SYN-SENT') return true;
  if (Math.min(socket.lastSend, socket.lastReceive) < quietMs) return true;
  return !listening.has(socket.localPort) && socket.lastSend < socket.lastReceive;
}

/** The session a process belongs to (field 6 of /proc/PID/stat); null when it is gone. */
function sessionOf(pid: number): number | null {
  return procStat(pid)?.session ?? null;
}

function ss(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('ss', ['-tainpH'], { timeout: 2000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

/**
 * Watches the network traffic of the programs started in the sandbox (each
 * runs in a session of its own, which its children share), through the
 * kernel's per-socket TCP statistics. `apps` names those sessions.
 */
export class NetworkWatch {
  constructor(private readonly apps: () => number[]) {}

  async busySockets(): Promise<number> {
    const sessions = new Set(this.apps());
    if (!sessions.size) return 0;
    const sockets = parseSs(await ss());
    const listening = new Set(sockets.filter((s) => s.state === 'LISTEN').map((s) => s.localPort));
    return sockets.filter((s) => s.pids.some((pid) => sessions.has(sessionOf(pid) ?? -1)) && busy(s, listening)).length;
  }

  /** Resolves true once no program's connection is busy, false if the deadline comes first (or ss is missing). */
  async quiet(deadline: number): Promise<boolean> {
    for (;;) {
      try {
        if ((await this.busySockets()) === 0) return true;
      } catch {
        return false; // no ss (iproute2): nothing to watch with
      }
      if (Date.now() + POLL_MS > deadline) return false;
      await sleep(POLL_MS);
    }
  }
}
