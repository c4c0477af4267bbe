import { ChildProcess, spawn } from 'child_process';
import path from 'path';
import { REPO_ROOT } from './glance';

/**
 * `glance serve` as its own process, as a team runs it: the URL it prints,
 * and ways to end it (SIGTERM, or SIGKILL for a crash).
 */
export async function serveProcess(stateDir: string, listen = '127.0.0.1:0', extra: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; child: ChildProcess; output: () => string; stop(signal?: NodeJS.Signals): Promise<void> }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'glance.js'), 'serve', '--listen', listen, '--state', stateDir, ...extra], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => { output += c; });
  child.stderr!.on('data', (c: Buffer) => { output += c; });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`glance serve did not start within 20 s: ${output}`)), 20_000);
    child.stdout!.on('data', () => {
      const match = /team server on (\S+) /.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`glance serve ended (${code}): ${output}`));
    });
  });
  return {
    url, child, output: () => output,
    stop: (signal = 'SIGTERM') => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    }),
  };
}
