import { ChildProcess, spawn } from 'child_process';
import path from 'path';
import readline from 'readline';
import type { Box } from '../../lib/types/screen';

/** The wall clock, in the observer's own terms (epoch ms, sub-millisecond). */
export const now = (): number => performance.timeOrigin + performance.now();

/**
 * A watcher of paints independent of Glance (observer.js): a process with its
 * own X connection that reads one region of a display as fast as the X server
 * answers, and notes when its pixels change.
 */
export class Observer {
  private readonly lines: AsyncIterator<string>;

  private constructor(private readonly child: ChildProcess) {
    this.lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }

  static async start(display: string, box: Box): Promise<Observer> {
    const child = spawn(process.execPath, [path.join(__dirname, 'observer.js'), display, ...[box.x, box.y, box.width, box.height].map(String)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const observer = new Observer(child);
    await observer.answer(); // ready
    return observer;
  }

  private async answer(): Promise<string> {
    const next = await this.lines.next();
    if (next.done) throw new Error('the paint observer ended early');
    return next.value;
  }

  /** The region's changes since the last report: when, and to what. */
  async report(): Promise<{ at: number; hash: string }[]> {
    this.child.stdin!.write('report\n');
    return JSON.parse(await this.answer());
  }

  stop(): void {
    this.child.stdin!.end();
    this.child.kill();
  }
}
