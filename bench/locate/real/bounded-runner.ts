import { ChildProcess, fork } from 'child_process';

/**
 * Runs jobs one at a time in a child process, each within a time bound. A job
 * that throws, a child that dies (a fatal V8 error, out of memory) or a job
 * that overruns its bound costs that job alone: it comes back as an error,
 * the child is replaced, and the next job goes on. The child's heap is capped,
 * so runaway growth ends the child instead of the machine's memory.
 */
export type JobResult<R> = { ok: true; value: R } | { ok: false; error: string };

export interface RunnerOptions {
  timeoutMs: number;
  maxHeapMb?: number;
  /** Extra node options for the child (a TypeScript loader). */
  execArgv?: string[];
}

export class BoundedRunner<J, R> {
  private child: ChildProcess | null = null;
  private stderr = '';
  private next = 0;
  /** How many children were replaced after a crash or an overrun. */
  restarts = 0;

  constructor(private readonly script: string, private readonly options: RunnerOptions) {}

  private spawn(): ChildProcess {
    this.stderr = '';
    const child = fork(this.script, [], {
      execArgv: [...(this.options.execArgv ?? []), `--max-old-space-size=${this.options.maxHeapMb ?? 2048}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    child.stderr!.on('data', (chunk: Buffer) => { this.stderr = (this.stderr + chunk.toString()).slice(-2000); });
    return child;
  }

  run(job: J): Promise<JobResult<R>> {
    const child = this.child ?? (this.child = this.spawn());
    const id = ++this.next;
    return new Promise((resolve) => {
      const finish = (result: JobResult<R>, replace: boolean) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (replace) {
          this.restarts++;
          if (this.child === child) this.child = null;
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }
        resolve(result);
      };
      const onMessage = (message: { id: number; value?: R; error?: string }) => {
        if (message.id !== id) return;
        finish(message.error === undefined ? { ok: true, value: message.value as R } : { ok: false, error: message.error }, false);
      };
      const onExit = (code: number | null, signal: string | null) => {
        const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
        finish({ ok: false, error: `the locate process died (${signal ?? `exit ${code}`})${tail ? `: ${tail}` : ''}` }, true);
      };
      const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${this.options.timeoutMs} ms` }, true), this.options.timeoutMs);
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send({ id, job });
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send({ stop: true });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** The child's side: answers each job with `handle`, an error as a message, and stops when asked. */
export function serveJobs<J, R>(handle: (job: J) => Promise<R>, onStop: () => Promise<void> = async () => undefined): void {
  process.on('message', async (message: { id?: number; job?: J; stop?: boolean }) => {
    if (message.stop) {
      await onStop().catch(() => undefined);
      process.exit(0);
    }
    try {
      const value = await handle(message.job as J);
      process.send!({ id: message.id, value });
    } catch (error) {
      process.send!({ id: message.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  });
}
