import path from 'path';
import { Worker } from 'worker_threads';
import type { Box } from '../types/screen';
import type { RawImage } from './pixels';
import { bufferToMove } from '../util/thread-calls';

/** One screen to write: its pixels (BGRX) move to the worker, which owns them from then on. */
export interface EncodeJob {
  id: number;
  file: string;
  width: number;
  height: number;
  data: ArrayBuffer;
  format: 'png' | 'jpeg';
  /** Scaled down to this width (keeping the aspect) when wider. */
  maxWidth?: number;
  /** Rectangles drawn on the picture, in screen pixels; colour is RGB. */
  boxes?: { box: Box; colour: [number, number, number] }[];
}

/** Jobs waiting beyond this make the next one wait: memory stays bounded when the disk is slow. */
const MAX_PENDING = 12;
const WORKER = path.join(__dirname, 'encode-worker.js');

/**
 * Encodes screens to files on a worker thread. `write` returns as soon as the
 * pixels are handed over; `flush` waits until every file is on disk. The
 * worker starts with the first job and ends when idle, so it never keeps a
 * process alive.
 */
export class BackgroundEncoder {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { file: string; done: Promise<void>; resolve: () => void }>();
  private readonly failures: string[] = [];

  /** Hands a screen over for encoding into `file`; waits only when too many are already queued. */
  async write(file: string, screen: RawImage, options: Pick<EncodeJob, 'format' | 'maxWidth' | 'boxes'> = { format: 'png' }): Promise<void> {
    if (this.pending.size >= MAX_PENDING) await Promise.race([...this.pending.values()].map((p) => p.done));
    // The pixels are transferred, not copied: the caller's buffer is the worker's from here on.
    const data = bufferToMove(screen.data);
    const job: EncodeJob = { id: this.nextId++, file, width: screen.width, height: screen.height, data, ...options };
    const worker = this.start();
    let resolve!: () => void;
    const done = new Promise<void>((r) => { resolve = r; });
    this.pending.set(job.id, { file, done, resolve });
    worker.ref();
    worker.postMessage(job, [data]);
  }

  /** Resolves when every file handed over is written; returns the ones that could not be (with why). */
  async flush(): Promise<string[]> {
    await Promise.all([...this.pending.values()].map((p) => p.done));
    return this.failures.splice(0);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER);
    worker.on('message', ({ id, error }: { id: number; error: string | null }) => this.settle(id, error));
    worker.on('error', (error) => {
      for (const id of [...this.pending.keys()]) this.settle(id, error.message);
      this.worker = null;
    });
    worker.on('exit', () => {
      for (const id of [...this.pending.keys()]) this.settle(id, 'the encoding worker stopped');
      this.worker = null;
    });
    this.worker = worker;
    return worker;
  }

  private settle(id: number, error: string | null): void {
    const job = this.pending.get(id);
    if (!job) return;
    this.pending.delete(id);
    if (error) this.failures.push(`${job.file}: ${error}`);
    job.resolve();
    // Idle: let the process end when it has nothing else to do.
    if (!this.pending.size) this.worker?.unref();
  }

  /** Ends the worker (after flush(), when the files matter). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
