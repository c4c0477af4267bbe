import fs from 'fs';
import path from 'path';
import { spawn } from 'child_process';
import { randomBytes } from 'crypto';
import { SandboxError } from '../config/errors';
import { AgentClient } from './agent-client';
import { processAlive, SandboxRecord, SandboxRegistry } from './registry';
import type { SupervisorConfig } from './agent/main';

export interface LocalSandboxSpec {
  width: number;
  height: number;
  keepAlive: number;
  environment: Record<string, string>;
  vnc: boolean;
}

const READY_TIMEOUT_MS = 20_000;
const REGISTER = path.resolve(__dirname, '../runtime/register.js');
const SUPERVISOR = path.resolve(__dirname, 'agent/main.ts');

/**
 * Local sandboxes: a detached supervisor process per sandbox (see
 * agent/main.ts), recorded in the registry so that later processes can rejoin.
 */
export class LocalProvider {
  constructor(private readonly registry: SandboxRegistry) {}

  async create(spec: LocalSandboxSpec): Promise<SandboxRecord> {
    this.registry.prune();
    const id = `sbx-${randomBytes(6).toString('hex')}`;
    const token = randomBytes(24).toString('base64url');
    const workDir = this.registry.workDir(id);
    fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
    const log = fs.openSync(path.join(workDir, 'agent.log'), 'a');
    const child = spawn(process.execPath, ['-r', REGISTER, SUPERVISOR], { detached: true, stdio: ['pipe', 'pipe', log] });
    fs.closeSync(log);
    const config: SupervisorConfig = {
      id, token, width: spec.width, height: spec.height, keepAlive: spec.keepAlive,
      stateDir: this.registry.stateDir, environment: spec.environment, vnc: spec.vnc,
    };
    child.stdin!.end(`${JSON.stringify(config)}\n`);

    const ready = await new Promise<{ ready: boolean; error?: string; pid: number; xvfbPid: number; port: number; display: string; vncPort: number | null }>((resolve, reject) => {
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
    this.registry.write(record);
    this.registry.setLast(id);
    return record;
  }

  /** Finds a running sandbox by id, or fails with what became of it. */
  async rejoin(id: string): Promise<SandboxRecord> {
    const record = this.registry.read(id);
    if (!record) {
      throw new SandboxError(`No sandbox with id '${id}' is known in ${this.registry.dir}. Check the id, or connect with newSandbox: true to start a new one.`);
    }
    const stoppedHint = 'It cannot be rejoined; start a new one (newSandbox: true), and raise keepAlive if you need to rejoin later.';
    if (record.state === 'stopped') {
      throw new SandboxError(`Sandbox '${id}' stopped at ${record.stoppedAt} (${record.stopReason}). ${stoppedHint}`);
    }
    const agent = new AgentClient({ host: '127.0.0.1', port: record.port, token: record.token });
    try {
      if (!processAlive(record.pid)) throw new Error('its agent process is gone');
      await agent.call('GET', '/health', undefined, 2_000);
    } catch (error) {
      reapLeftovers(record);
      this.registry.markStopped(id, `found dead: ${(error as Error).message}`);
      throw new SandboxError(`Sandbox '${id}' is gone (${(error as Error).message}). ${stoppedHint}`);
    } finally {
      agent.close();
    }
    this.registry.setLast(id);
    return record;
  }
}

/**
 * A supervisor that was killed outright leaves its X server behind; ending
 * the X server's process group closes every client of that display with it.
 */
export function reapLeftovers(record: SandboxRecord): void {
  for (const pid of [record.pid, record.xvfbPid]) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
