import { ProcessGroup, signalGroup } from './processes';
import { ProgramSpace } from './program-space';

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

/** The shell that runs exec()'s code: sh, or PowerShell on Windows. */
export function shellCommand(code: string, platform = process.platform): [string, string[]] {
  return platform === 'win32' ? ['powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', code]] : ['sh', ['-c', code]];
}

/** Runs shell code inside the sandbox, bounded by `timeoutMs`; the whole process group dies on timeout. */
export function runShell(processes: ProcessGroup, code: string, timeoutMs: number, space: ProgramSpace): Promise<ExecResult> {
  return new Promise((resolve) => {
    const [shell, args] = shellCommand(code);
    const child = space.spawn(processes, shell, args, ['ignore', 'pipe', 'pipe']);
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
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
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
