import type { SandboxBackendName } from '../config/backends';
import fs from 'fs';
import path from 'path';
import type { ProcessIdentity } from './process-identity';

/**
 * What is running, on disk: `.glance/sandboxes/<id>.json` (mode 0600, it holds
 * the agent token) and `.glance/last-sandbox` with the id of the newest one.
 */
export interface SandboxRecord {
  id: string;
  pid: number;
  /** The X server: its process group is reaped if the supervisor died without cleaning up. */
  xvfbPid: number;
  /**
   * The supervisor and X server as they were at start, so that a reused pid is
   * never taken for them. Absent in records written by older versions.
   */
  identity?: { agent: ProcessIdentity; xvfb: ProcessIdentity };
  display: string;
  port: number;
  token: string;
  os: 'linux';
  width: number;
  height: number;
  vncPort: number | null;
  workDir: string;
  createdAt: string;
  state: 'running' | 'stopped';
  /** Where it runs: absent or 'local' for a supervisor process here, 'docker' for a container (its id in `container`), 'kubernetes' for a pod (its name in `pod`). */
  backend?: SandboxBackendName;
  container?: string;
  pod?: string;
  /** The address its agent answers on, when not this machine's loopback (a pod's IP). */
  host?: string;
  stoppedAt?: string;
  stopReason?: string;
}

const STOPPED_RECORD_TTL_MS = 24 * 60 * 60 * 1000;

export class SandboxRegistry {
  readonly dir: string;

  constructor(readonly stateDir: string) {
    this.dir = path.join(stateDir, 'sandboxes');
  }

  private file(id: string): string {
    if (!/^[\w-]+$/.test(id)) throw new Error(`'${id}' is not a sandbox id (ids are letters, digits and dashes)`);
    return path.join(this.dir, `${id}.json`);
  }

  workDir(id: string): string {
    return path.join(this.dir, id);
  }

  write(record: SandboxRecord): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const target = this.file(record.id);
    const temp = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(record, null, 2), { mode: 0o600 });
    fs.renameSync(temp, target);
  }

  read(id: string): SandboxRecord | null {
    try {
      return JSON.parse(fs.readFileSync(this.file(id), 'utf8')) as SandboxRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  markStopped(id: string, reason: string): void {
    const record = this.read(id);
    if (record && record.state !== 'stopped') this.write({ ...record, state: 'stopped', stoppedAt: new Date().toISOString(), stopReason: reason });
  }

  list(): SandboxRecord[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs.readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => this.read(f.slice(0, -5)))
      .filter((r): r is SandboxRecord => r !== null);
  }

  setLast(id: string): void {
    fs.mkdirSync(this.stateDir, { recursive: true });
    fs.writeFileSync(path.join(this.stateDir, 'last-sandbox'), `${id}\n`);
  }

  last(): string | null {
    try {
      return fs.readFileSync(path.join(this.stateDir, 'last-sandbox'), 'utf8').trim() || null;
    } catch {
      return null;
    }
  }

  /** Drops records of sandboxes that stopped more than a day ago. */
  prune(now = Date.now()): void {
    for (const record of this.list()) {
      if (record.state === 'stopped' && record.stoppedAt && now - Date.parse(record.stoppedAt) > STOPPED_RECORD_TTL_MS) {
        fs.rmSync(this.file(record.id), { force: true });
        fs.rmSync(this.workDir(record.id), { recursive: true, force: true });
      }
    }
  }
}

/** Whether a sandbox still runs: its supervisor process here, or (docker, kubernetes) its container or pod, whose end the engine's events record. */
export function sandboxAlive(record: SandboxRecord): boolean {
  if (record.state !== 'running') return false;
  return (record.backend ?? 'local') === 'local' ? processAlive(record.pid) : true;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A process that ended but was not yet reaped by its parent (a zombie) still answers signal 0.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: the signal's answer stands
  }
}
