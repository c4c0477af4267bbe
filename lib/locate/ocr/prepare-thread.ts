import path from 'path';
import type { Screen } from '../engine';
import { copyToMove, ThreadCalls } from '../../util/thread-calls';
import type { GreyImage } from './preprocess';
import type { KeyedPiece } from './bands';

/** A screen to prepare: its pixels move to the thread. */
export type PrepareRequest = { width: number; height: number; data: ArrayBuffer; format: Screen['format'] };
/** The screen in grey, prepared for tesseract (see preprocess.ts), and cut into the pieces tesseract reads (see bands.ts). */
export type Preparation = { grey: ArrayBuffer; prepared: ArrayBuffer; pieces: KeyedPiece[] };

const thread = new ThreadCalls<PrepareRequest, Preparation>(path.join(__dirname, 'prepare-worker.js'), 'the OCR preparation thread');

/**
 * A whole screen in grey, prepared for OCR and cut into pieces, worked out on
 * a thread of its own (prepare-worker): the finder's thread stays free to
 * hear that the screen changed meanwhile, and leaves a look whose screen is
 * gone at once.
 */
export async function prepareScreen(screen: Screen): Promise<{ grey: GreyImage; prepared: GreyImage; pieces: KeyedPiece[] }> {
  const { width, height } = screen;
  // A copy to move: the screen stays in use here.
  const data = copyToMove(screen.data);
  const done = await thread.call({ width, height, data, format: screen.format }, [data]);
  return { grey: { width, height, data: new Uint8Array(done.grey) }, prepared: { width, height, data: new Uint8Array(done.prepared) }, pieces: done.pieces };
}

/** Ends the preparation thread; the next screen starts it again. */
export function endPreparation(): Promise<void> {
  return thread.end();
}
