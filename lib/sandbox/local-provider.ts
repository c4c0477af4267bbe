import fs from 'fs';
import path from 'path';
import { spawn } from 'child_process';
import { SandboxError } from '../config/errors';
import { processAlive, sandboxAlive, SandboxRecord, SandboxRegistry } from './registry';
import { newSandboxIdentity, rejoinRecord, supervisorConfig, SandboxBackend } from './backend';
import { ProcessIdentity, readProcess, sameProcess } from './process-identity';
import { sandboxRuntimeDir } from './runtime-dir';
import { sleep } from '../util/wait';

export interface LocalSandboxSpec {
  width: number;
  height: number;
  keepAlive: number;
  environment: Record<string, string>;
  vnc: boolean;
  /** Start the buses that carry the accessibility tree (default true); without them the tree is empty. */
  accessibility?: boolean;
  /** A folder whose contents every new home starts with; null or absent for an empty home. */
  homeSeed?: string | null;
  /** Run programs as root rather than as the sandbox's user. */
  runAsRoot?: boolean;
}

const READY_TIMEOUT_MS = 20_000;
// Glance runs compiled (dist/), so the supervisor is the JavaScript next to this file.
const SUPERVISOR = path.resolve(__dirname, 'agent/main.js');

/**
 * Local sandboxes: a detached supervisor process per sandbox (see
 * agent/main.ts), recorded in the registry so that later processes can rejoin.
 */
export class LocalProvider implements SandboxBackend {
  constructor(private readonly registry: SandboxRegistry) {}

  async create(spec: LocalSandboxSpec): Promise<SandboxRecord> {
    this.registry.prune();
    const { id, token } = newSandboxIdentity();
    const workDir = this.registry.workDir(id);
    fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
    const log = fs.openSync(path.join(workDir, 'agent.log'), 'a');
    const child = spawn(process.execPath, [SUPERVISOR], { detached: true, stdio: ['pipe', 'pipe', log] });
    fs.closeSync(log);
    const config = supervisorConfig(id, token, spec, this.registry.stateDir);
    child.stdin!.end(`${JSON.stringify(config)}\n`);

    const ready = await new Promise<{
      ready: boolean; error?: string; pid: number; xvfbPid: number; port: number; display: string; vncPort: number | null;
      identity?: { agent: ProcessIdentity | null; xvfb: ProcessIdentity | null };
    }>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new SandboxError(`Sandbox ${id} did not become ready within ${READY_TIMEOUT_MS / 1000} s. See ${path.join(workDir, 'agent.log')}.`)), READY_TIMEOUT_MS);
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        output += chunk;
        if (!output.includes('\n')) return;
        clearTimeout(timer);
        try { resolve(JSON.parse(output.slice(0, output.indexOf('\n')))); } catch (e) { reject(e); }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new SandboxError(`Sandbox ${id} failed to start (exit code ${code}). See ${path.join(workDir, 'agent.log')}.`));
      });
    }).catch((error) => {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
      throw error;
    });
    child.stdout!.destroy();
    child.removeAllListeners('exit');
    child.unref();
    if (!ready.ready) throw new SandboxError(`Sandbox ${id} failed to start: ${ready.error}`);

    const record: SandboxRecord = {
      id, pid: ready.pid, xvfbPid: ready.xvfbPid, display: ready.display, port: ready.port, token, os: 'linux',
      width: spec.width, height: spec.height, vncPort: ready.vncPort, workDir,
      createdAt: new Date().toISOString(), state: 'running',
    };
    const { agent, xvfb } = ready.identity ?? {};
    if (agent && xvfb) record.identity = { agent, xvfb };
    this.registry.write(record);
    this.registry.setLast(id);
    return record;
  }

  /** Whether its supervisor still runs; one that died is cleaned up (its X server ended) and recorded as stopped. */
  async confirmAlive(id: string): Promise<boolean> {
    return localSandboxAlive(this.registry, id);
  }

  /** Waits until a sandbox told to stop has ended itself (see localSandboxEnded). */
  async removed(id: string): Promise<void> {
    await localSandboxEnded(this.registry, id);
  }

  /** The registry's running records whose supervisor is gone are cleaned up and recorded as stopped; the rest are returned. */
  async reconcile(): Promise<string[]> {
    return this.registry.list().filter((r) => (r.backend ?? 'local') === 'local' && localSandboxAlive(this.registry, r.id)).map((r) => r.id);
  }

  close(): void {}

  /** Finds a running sandbox by id, or fails with what became of it. */
  async rejoin(id: string): Promise<SandboxRecord> {
    return rejoinRecord(this.registry, id, 'local', async (record, agent) => {
      if (!processAlive(record.pid)) throw new Error('its agent process is gone');
      await agent.call('GET', '/health', undefined, 2_000);
    }, reapLeftovers);
  }

}

/** Whether a local sandbox still runs; one whose supervisor died is cleaned up (its X server ended) and recorded as stopped. */
export function localSandboxAlive(registry: SandboxRegistry, id: string): boolean {
  const record = registry.read(id);
  if (!record || record.state !== 'running') return false;
  if (sandboxAlive(record)) return true;
  reapLeftovers(record);
  registry.markStopped(id, 'found dead: its agent process is gone');
  return false;
}

/** How long a supervisor told to stop may take to end its desktop: its programs get 0.5 s, the dashcam's clip the rest. */
const END_BOUND_MS = 10_000;
/** A supervisor gives no sign of its end to a process that is not its parent: its pid is looked at this often. */
const END_POLL_MS = 10;

/**
 * Waits until a local sandbox told to stop has ended: its supervisor takes
 * every program and its X server down, records the end and exits. Until then
 * it still writes to the state folder, so a caller that returned sooner would
 * leave a process behind it. One that is not gone within `boundMs` is killed
 * with what it left, and recorded as stopped.
 */
export async function localSandboxEnded(registry: SandboxRegistry, id: string, boundMs = END_BOUND_MS): Promise<void> {
  const record = registry.read(id);
  if (!record || (record.backend ?? 'local') !== 'local') return;
  const running = () => (['agent', 'xvfb'] as const).some((role) => pidOf(record, role) > 0 && processAlive(pidOf(record, role)) && isSandboxProcess(record, role));
  const deadline = Date.now() + boundMs;
  while (running() && Date.now() < deadline) await sleep(END_POLL_MS);
  if (!running()) return;
  reapLeftovers(record);
  registry.markStopped(id, `did not end within ${boundMs / 1000} s of being told to stop, so it was killed`);
}

type Role = 'agent' | 'xvfb';
const pidOf = (record: SandboxRecord, role: Role) => (role === 'agent' ? record.pid : record.xvfbPid);

/**
 * A supervisor that was killed outright leaves its X server behind; ending
 * the X server's process group closes every client of that display with it.
 * Only groups still led by this sandbox's own processes are signalled: the
 * pids in the record may since have gone to someone else.
 */
export function reapLeftovers(record: SandboxRecord): void {
  for (const role of ['agent', 'xvfb'] as const) {
    if (!isSandboxProcess(record, role)) continue;
    try {
      process.kill(-pidOf(record, role), 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  // Its buses end with the supervisor (they run with a parent-death signal); its folder (home, sockets) is left.
  fs.rmSync(sandboxRuntimeDir(record.id), { recursive: true, force: true });
}

/** True when `record`'s supervisor or X server pid still belongs to that process and leads its process group. */
export function isSandboxProcess(record: SandboxRecord, role: Role): boolean {
  const pid = pidOf(record, role);
  const now = readProcess(pid);
  // Both were started detached, so each leads a group named by its pid; we signal that group.
  if (!now || now.pgrp !== pid) return false;
  const recorded = record.identity?.[role];
  return recorded ? sameProcess(now, recorded) : isLegacySandboxProcess(record, role, now.cmdline);
}

/**
 * A record from before identities were kept: the process is ours only if it
 * clearly is. Neither command line names the display (Xvfb picks it with
 * -displayfd, and then writes no lock file), but both send their stderr to
 * this sandbox's own agent.log, which names the sandbox more surely than a
 * display number that the next sandbox may reuse.
 */
function isLegacySandboxProcess(record: SandboxRecord, role: Role, cmdline: string[]): boolean {
  let stderr: string;
  try {
    stderr = fs.readlinkSync(`/proc/${pidOf(record, role)}/fd/2`);
  } catch {
    return false;
  }
  if (!stderr.endsWith(`/sandboxes/${record.id}/agent.log`)) return false;
  if (role === 'agent') return cmdline.some((arg) => /(^|\/)sandbox\/agent\/main\.[jt]s$/.test(arg));
  return path.basename(cmdline[0] ?? '') === 'Xvfb' && cmdline.join(' ').includes(`-screen 0 ${record.width}x${record.height}x24`);
}
