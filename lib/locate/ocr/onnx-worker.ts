/**
 * The ONNX models' thread: onnxruntime-node loads and runs a model on the
 * thread that calls it, and a detector's run takes about 400 ms on two cores.
 * Here, the finder's own thread stays free to see the screen change meanwhile.
 */
import type { InferenceSession } from 'onnxruntime-node';
import type { ModelRequest, ModelResult } from './onnx-thread';
import { answerCalls, copyToMove } from '../../util/thread-calls';
import { runBelowOthers } from '../../util/thread-priority';
import { detectorInput, linesOfMap } from './line-detection';

runBelowOthers(); // the models' own threads, started from here, inherit it

const ort = require('onnxruntime-node') as typeof import('onnxruntime-node');
const sessions = new Map<string, Promise<InferenceSession>>();

async function answer(request: ModelRequest): Promise<ModelResult> {
  if (request.kind === 'release') {
    await Promise.all([...sessions.values()].map(async (session) => (await session).release()));
    sessions.clear();
    return null;
  }
  let session = sessions.get(request.model);
  if (!session) {
    session = ort.InferenceSession.create(request.model, request.options);
    sessions.set(request.model, session);
    session.catch(() => sessions.delete(request.model));
  }
  const ready = await session;
  if (request.kind === 'load') return null;
  const run = async (input: Float32Array, dims: number[]) => {
    const output = await ready.run({ [ready.inputNames[0]]: new ort.Tensor('float32', input, dims) });
    const result = output[ready.outputNames[0]];
    return { data: result.data as Float32Array, dims: [...result.dims] };
  };
  if (request.kind === 'detect') {
    const { scale } = request;
    const screen = { ...request.screen, data: Buffer.from(request.screen.data) };
    const input = detectorInput(screen, scale);
    return { lines: linesOfMap((await run(input.input, input.dims)).data, input, scale) };
  }
  const { data, dims } = await run(new Float32Array(request.input), request.dims);
  return { data: copyToMove(data), dims };
}

// One request at a time: a model must not be released while a run of it is under way (onnxruntime runs it
// a tick after it is asked), which ends the whole process rather than the run.
answerCalls(answer, (result) => (result && 'data' in result ? [result.data] : []));
