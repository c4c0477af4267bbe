import path from 'path';

/** The test file and line that called into Glance: the first stack frame outside Glance's own code. */
export interface CallSite {
  file: string;
  line: number;
}

const GLANCE_ROOT = path.resolve(__dirname, '..', '..');
const GLANCE_CODE = ['lib', 'steps', 'support'].map((dir) => path.join(GLANCE_ROOT, dir) + path.sep);

function isInternal(file: string): boolean {
  return file.startsWith('node:') || file.includes(`${path.sep}node_modules${path.sep}`) || GLANCE_CODE.some((dir) => file.startsWith(dir));
}

export function callSite(): CallSite | null {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const frame of stack) {
    // The path must open the location: 'node:internal/process/task_queues:95' holds a '/' too.
    const match = /(?:\(|^at )((?:\/|[A-Za-z]:\\|file:\/\/)[^():]+):(\d+):\d+\)?$/.exec(frame.trim());
    if (!match) continue;
    const file = match[1].replace(/^file:\/\//, '');
    if (isInternal(file)) continue;
    return { file, line: Number(match[2]) };
  }
  return null;
}
