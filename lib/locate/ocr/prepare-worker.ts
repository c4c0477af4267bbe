/**
 * The thread that prepares whole screens for OCR (prepare-thread): the
 * preparation takes 50 to 250 ms of a core, and cutting the screen into
 * pieces 10 to 25 ms more, which the finder's thread spends listening for
 * the screen's changes instead.
 */
import { answerCalls } from '../../util/thread-calls';
import { runBelowOthers } from '../../util/thread-priority';
import { prepareGrey, toGrey } from './preprocess';
import { keyedPiecesOf } from './bands';
import type { Preparation, PrepareRequest } from './prepare-thread';

runBelowOthers();

answerCalls(
  ({ width, height, data, format }: PrepareRequest): Preparation => {
    const grey = toGrey({ width, height, data: Buffer.from(data) }, format);
    const prepared = prepareGrey(grey);
    return { grey: grey.data.buffer as ArrayBuffer, prepared: prepared.data.buffer as ArrayBuffer, pieces: keyedPiecesOf(prepared) };
  },
  (done) => [done.grey, done.prepared],
);
