import path from 'path';
import { Worker } from 'worker_threads';

/** What the models' thread is asked: load a model, run one on an input, or let every model go. */
export type ModelRequest =
  | { id: number; kind: 'load'; model: string; options: Record<string, unknown> }
  | { id: number; kind: 'run'; model: string; options: Record<string, unknown>; input: ArrayBuffer; dims: number[] }
  | { id: number; kind: 'release' };

type Answer = { id: number; result: { data: ArrayBuffer; dims: number[] } | null; error: string | null };
type Pending = { resolve: (answer: Answer['result']) => void; reject: (error: Error) => void };
type Ask = ModelRequest extends infer R ? (R extends ModelRequest ? Omit<R, 'id'> : never) : never;

const WORKER = path.join(__dirname, 'onnx-worker.js');

/**
 * ONNX models run on a thread of their own (onnx-worker), each model file
 * loaded there once. The thread starts with the first request and, idle,
 * never keeps the process alive.
 */
export class OnnxThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stopping = false;

  constructor(private readonly options: Record<string, unknown>) {}

  /** Loads the model ahead of its first run. */
  async load(model: string): Promise<void> {
    await this.ask({ kind: 'load', model, options: this.options });
  }

  /** Runs the model on one float32 input; the input's buffer moves to the thread. */
  async run(model: string, input: Float32Array, dims: number[]): Promise<{ data: Float32Array; dims: number[] }> {
    const own = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength;
    const buffer = (own ? input.buffer : input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength)) as ArrayBuffer;
    const result = await this.ask({ kind: 'run', model, options: this.options, input: buffer, dims }, [buffer]);
    return { data: new Float32Array(result!.data), dims: result!.dims };
  }

  /**
   * Frees every model and ends the thread. A read still under way (one a
   * find has left behind) runs no further model: the release waits only for
   * the run in hand. (A thread ended in the middle of a run aborts the process.)
   */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.stopping = true;
    try {
      await this.ask({ kind: 'release' }).catch(() => undefined);
      this.worker = null;
      await worker.terminate();
    } finally {
      this.stopping = false;
    }
  }

  private ask(request: Ask, transfer: ArrayBuffer[] = []): Promise<Answer['result']> {
    if (this.stopping && request.kind !== 'release') return Promise.reject(new Error('the models\' thread is stopping'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER);
    worker.on('message', ({ id, result, error }: Answer) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (!this.pending.size) worker.unref(); // idle: the process may end
      if (error) waiting?.reject(new Error(error));
      else waiting?.resolve(result);
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      if (this.worker === worker) this.worker = null;
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the models\' thread stopped')));
    this.worker = worker;
    return worker;
  }
}
