import path from 'path';
import type { Screen } from '../../types/screen';
import { bufferToMove, copyToMove, ThreadCalls } from '../../util/thread-calls';
import type { TextLine } from './line-detection';

/**
 * What the models' thread is asked: load a model, run one on an input, find
 * a screen's lines of text with the detector, or let every model go.
 */
export type ModelRequest =
  | { kind: 'load'; model: string; options: Record<string, unknown> }
  | { kind: 'run'; model: string; options: Record<string, unknown>; input: ArrayBuffer; dims: number[] }
  | { kind: 'detect'; model: string; options: Record<string, unknown>; screen: { width: number; height: number; format: Screen['format']; data: ArrayBuffer }; scale: number }
  | { kind: 'release' };

export type ModelResult = { data: ArrayBuffer; dims: number[] } | { lines: TextLine[] } | null;

const WORKER = path.join(__dirname, 'onnx-worker.js');

/**
 * onnxruntime-node (1.30, on Linux) records usage events unless this is set:
 * in a database under the home's .cache, in a log file per process in /tmp,
 * and by upload to Microsoft's collector. Glance reads screens offline and
 * keeps nothing of the user's runs outside its state folder, so it sets it,
 * in the process's own environment where the library looks, before the
 * models' thread loads the library. A value the user set stays.
 */
process.env.ORT_DISABLE_TELEMETRY ??= '1';

/**
 * ONNX models run on a thread of their own (onnx-worker), each model file
 * loaded there once. The thread starts with the first request and, idle,
 * never keeps the process alive.
 */
export class OnnxThread {
  private readonly calls = new ThreadCalls<ModelRequest, ModelResult>(WORKER, 'the models\' thread');
  private stopping = false;

  constructor(private readonly options: Record<string, unknown>) {}

  /** Loads the model ahead of its first run. */
  async load(model: string): Promise<void> {
    await this.ask({ kind: 'load', model, options: this.options });
  }

  /** Runs the model on one float32 input; the input's buffer moves to the thread. */
  async run(model: string, input: Float32Array, dims: number[]): Promise<{ data: Float32Array; dims: number[] }> {
    const buffer = bufferToMove(input);
    const result = await this.ask({ kind: 'run', model, options: this.options, input: buffer, dims }, [buffer]) as { data: ArrayBuffer; dims: number[] };
    return { data: new Float32Array(result.data), dims: result.dims };
  }

  /**
   * The screen's lines of text, by the detector `model` run on the screen at
   * `scale`, in screen pixels. The screen's input and the lines of the
   * detector's map are worked out on the thread too (see line-detection).
   */
  async detect(model: string, screen: Screen, scale: number): Promise<TextLine[]> {
    // A copy to move: the screen stays in use here.
    const data = copyToMove(screen.data);
    const request = { kind: 'detect' as const, model, options: this.options, screen: { width: screen.width, height: screen.height, format: screen.format, data }, scale };
    return (await this.ask(request, [data]) as { lines: TextLine[] }).lines;
  }

  /**
   * Frees every model and ends the thread. A read still under way (one a
   * find has left behind) runs no further model: the release waits only for
   * the run in hand. (A thread ended in the middle of a run aborts the process.)
   */
  async stop(): Promise<void> {
    if (!this.calls.started) return;
    this.stopping = true;
    try {
      await this.calls.call({ kind: 'release' }).catch(() => undefined);
      await this.calls.end();
    } finally {
      this.stopping = false;
    }
  }

  private ask(request: ModelRequest, transfer: ArrayBuffer[] = []): Promise<ModelResult> {
    if (this.stopping) return Promise.reject(new Error('the models\' thread is stopping'));
    return this.calls.call(request, transfer);
  }
}
