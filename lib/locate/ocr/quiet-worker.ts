/**
 * tesseract.js's worker with its console shut. Tesseract and Leptonica write
 * their own diagnostics ('Error in boxClipToRectangle: box outside
 * rectangle', 'Warning:guessing pitch as xheight…', 'Bottom=0, top=96 …') to
 * the worker's console, which node passes on to the user's console and so into
 * Cucumber's output. Glance keeps no log file they could go to, so they are
 * dropped; a failed job still reaches Glance as a rejected promise.
 */
import { runBelowOthers } from '../../util/thread-priority';

const drop = (): void => undefined;
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = drop;
for (const stream of [process.stdout, process.stderr]) stream.write = () => true;

// Reading yields the cores to the finder, the sandbox's programs and the X server.
runBelowOthers();

// The stock worker script, loaded only now: its core takes hold of the console as it loads.
require('tesseract.js/src/worker-script/node/index.js');

export {};
