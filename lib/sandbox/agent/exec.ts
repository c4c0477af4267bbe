import { ProcessGroup } from './processes';
import { ProgramSpace } from './program-space';

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

/** Runs shell code inside the sandbox, bounded by `timeoutMs`; the whole process group dies on timeout. */
export function runShell(processes: ProcessGroup, code: string, timeoutMs: number, space: ProgramSpace): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = space.spawn(processes, 'sh', ['-c', code], ['ignore', 'pipe', 'pipe']);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT) into.push(chunk);
    };
    child.stdout!.on('data', collect(out));
    child.stderr!.on('data', collect(err));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), exitCode: code, timedOut });
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ stdout: '', stderr: e.message, exitCode: null, timedOut: false });
    });
  });
}
