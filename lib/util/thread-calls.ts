import { parentPort, Worker } from 'worker_threads';

/**
 * Work that would hold the finder's thread (a model's run, a whole screen's
 * preparation for OCR) goes to a worker thread, so that the finder's thread
 * stays free to hear that the screen changed meanwhile. One mechanism for
 * every such thread: calls carry an id, and the buffers named go across
 * without a copy.
 */

/** A copy of the bytes in a buffer of their own, to move to a thread while the caller keeps using its own. */
export function copyToMove(bytes: ArrayBufferView): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The bytes' own buffer when they fill it, else a copy: either way, one to move to a thread (the caller's view is unusable after a move). */
export function bufferToMove(bytes: ArrayBufferView): ArrayBuffer {
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return own ? bytes.buffer as ArrayBuffer : copyToMove(bytes);
}

type Message<Request> = { id: number; request: Request };
type Answer<Result> = { id: number; result: Result | null; error: string | null };
type Pending<Result> = { resolve: (result: Result) => void; reject: (error: Error) => void };

/**
 * The caller's side: one thread, started with the first call. Idle, it never
 * keeps the process alive. A thread that fails or ends rejects every call in
 * hand, and the next call starts it again.
 */
export class ThreadCalls<Request, Result> {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending<Result>>();

  /** `script`: the worker's compiled file; `name`: how errors speak of the thread. */
  constructor(private readonly script: string, private readonly name: string) {}

  /** Whether the thread runs (a call started it, and it has not ended). */
  get started(): boolean {
    return this.worker !== null;
  }

  /** Asks the thread; the buffers in `transfer` move to it and are unusable here after. */
  call(request: Request, transfer: ArrayBuffer[] = []): Promise<Result> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, request } satisfies Message<Request>, transfer);
    });
  }

  /** Ends the thread at once; calls in hand are rejected. */
  async end(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    worker.on('message', ({ id, result, error }: Answer<Result>) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (!this.pending.size) worker.unref(); // idle: the process may end
      if (error !== null) waiting?.reject(new Error(error));
      else waiting?.resolve(result as Result);
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      if (this.worker === worker) this.worker = null;
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error(`${this.name} stopped`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * The thread's side: answers each call with `answer`, one at a time, in the
 * order asked. `moves` names the result's buffers that go back without a copy.
 */
export function answerCalls<Request, Result>(answer: (request: Request) => Promise<Result> | Result, moves: (result: Result) => ArrayBuffer[] = () => []): void {
  let queue: Promise<void> = Promise.resolve();
  parentPort!.on('message', ({ id, request }: Message<Request>) => {
    queue = queue.then(async () => {
      try {
        const result = await answer(request);
        parentPort!.postMessage({ id, result, error: null } satisfies Answer<Result>, moves(result));
      } catch (error) {
        parentPort!.postMessage({ id, result: null, error: (error as Error).message } satisfies Answer<Result>);
      }
    });
  });
}
