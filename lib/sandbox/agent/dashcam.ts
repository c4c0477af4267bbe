import fs from 'fs';
import path from 'path';
import { ChildProcess, execFile } from 'child_process';
import type { Box } from '../../types/screen';
import { ProcessGroup } from './processes';

/** What a finished (or failed) recording left. */
export interface Clip {
  /** The MP4 file, on the agent's machine. */
  file: string;
  /** Wall-clock time (ms since the epoch) of the clip's first frame; null when ffmpeg never produced one. */
  startedAt: number | null;
  /** Length of the clip in ms, as far as ffmpeg wrote it. */
  durationMs: number;
  bytes: number;
  /** Why the recording is short or missing (ffmpeg crashed, was not installed…); null when all went well. */
  warning: string | null;
}

const FPS = 10;
const STOP_GRACE_MS = 4000;
const STDERR_TAIL = 2000;
/** How long a stop waits for a recorder that has not written its first frame yet. */
const FIRST_FRAME_MS = 3000;
/** The bound on painting masks over a finished clip (a re-encode, about a tenth of the clip's length here). */
const MASK_BOUND_MS = 120_000;

/**
 * ffmpeg's arguments that paint boxes grey over a whole clip, into `out`: the
 * fields a secret was typed into. The clip keeps its frames and its timing.
 */
export function maskArgs(file: string, boxes: readonly Box[], out: string): string[] {
  // Out to even pixels on every side, so that the halved chroma of the clip's frames does not leave a tinted edge of the field.
  const span = (from: number, size: number) => {
    const start = Math.max(0, Math.floor(from / 2) * 2);
    return [start, Math.max(2, Math.ceil((from + size) / 2) * 2 - start)];
  };
  const filters = boxes.map((b) => {
    const [[x, w], [y, h]] = [span(b.x, b.width), span(b.y, b.height)];
    return `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=gray:t=fill`;
  });
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-vf', filters.join(','),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30', '-pix_fmt', 'yuv420p', '-g', String(FPS),
    '-movflags', '+frag_keyframe+empty_moov+default_base_moof', '-y', out,
  ];
}

/**
 * ffmpeg's arguments: x11grab at 10 fps into H.264 (ultrafast, crf 30, about
 * 9% of a core for a desktop). Fragmented MP4, one fragment a second, flushed
 * as written: the file plays at every moment, so a killed recorder still
 * leaves a playable clip. zerolatency keeps the encoder from holding frames
 * back, so the progress it reports is the wall clock's.
 */
export function ffmpegArgs(display: string, width: number, height: number, file: string, platform = process.platform): string[] {
  // Windows' desktop comes through GDI (gdigrab), whole; an X11 display through x11grab.
  const input = platform === 'win32'
    ? ['-f', 'gdigrab', '-framerate', String(FPS), '-i', 'desktop']
    : ['-f', 'x11grab', '-framerate', String(FPS), '-video_size', `${width}x${height}`, '-i', display];
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    ...input,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-crf', '30', '-pix_fmt', 'yuv420p', '-g', String(FPS),
    '-flush_packets', '1', '-movflags', '+frag_keyframe+empty_moov+default_base_moof',
    '-progress', 'pipe:1', '-stats_period', '0.2', '-y', file,
  ];
}

/**
 * The dashcam: records the sandbox's display with ffmpeg, one clip at a time.
 * A recorder that fails never fails the session: start and stop report a
 * warning instead, and the clip keeps what was written.
 */
export class Dashcam {
  private current: {
    child: ChildProcess; file: string; startedAt: number | null; outTimeMs: number; stderr: string;
    exited: Promise<void>; stopping: boolean; crash: string | null; masks: Box[];
  } | null = null;

  constructor(
    private readonly display: string,
    private readonly size: () => { width: number; height: number },
    private readonly processes: ProcessGroup,
    /** Where clips go: a local sandbox writes straight into the state folder's recordings/. */
    readonly dir: string,
  ) {}

  get recording(): boolean {
    return this.current !== null;
  }

  /** Starts a clip named `name` (letters, digits, `._-`), stopping any clip still running. */
  async start(name: string): Promise<{ file: string; warning: string | null }> {
    if (!/^[\w.-]{1,120}$/.test(name)) throw Object.assign(new Error(`a clip name is letters, digits, '.', '_' and '-' (at most 120), got '${name}'`), { status: 400 });
    if (this.current) await this.stop();
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, `${name}.mp4`);
    fs.rmSync(file, { force: true });
    const { width, height } = this.size();
    let child: ChildProcess;
    try {
      child = this.processes.spawn('ffmpeg', ffmpegArgs(this.display, width, height, file), { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      return { file, warning: `the dashcam could not start ffmpeg: ${(error as Error).message}` };
    }
    const clip = {
      child, file, startedAt: null as number | null, outTimeMs: 0, stderr: '', stopping: false, crash: null as string | null, masks: [] as Box[],
      exited: new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.once('error', () => resolve()); }),
    };
    this.current = clip;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      // `out_time_us` is how much video is written; now minus that is when its first frame was taken.
      for (const match of chunk.matchAll(/^out_time_us=(\d+)$/gm)) {
        const outMs = Number(match[1]) / 1000;
        if (outMs > 0) {
          clip.outTimeMs = outMs;
          clip.startedAt ??= Date.now() - outMs;
        }
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => { clip.stderr = (clip.stderr + chunk).slice(-STDERR_TAIL); });
    child.once('error', (error) => {
      clip.crash = (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? "ffmpeg is not installed (apt-get install ffmpeg), so there is no dashcam clip"
        : `ffmpeg could not run: ${error.message}`;
    });
    child.once('exit', (code, signal) => {
      if (!clip.stopping && !clip.crash) {
        const why = signal ? `was killed (${signal})` : `exited with code ${code}`;
        clip.crash = `ffmpeg ${why} during the recording; the clip keeps what was written before${clip.stderr.trim() ? `: ${clip.stderr.trim().split('\n').slice(-2).join(' ')}` : ''}`;
      }
    });
    // A spawn error comes on the next turn: report it with the start.
    await new Promise((resolve) => setImmediate(resolve));
    return { file, warning: clip.crash };
  }

  /**
   * Ends the clip: ffmpeg is asked to finish (SIGINT), and killed if it does
   * not within a few seconds. A session shorter than ffmpeg's start-up waits
   * for its first frame (briefly), so that it too leaves a clip.
   */
  async stop(): Promise<Clip | null> {
    const clip = this.current;
    if (!clip) return null;
    this.current = null;
    const running = () => clip.child.exitCode === null && clip.child.signalCode === null;
    const deadline = Date.now() + FIRST_FRAME_MS;
    while (clip.startedAt === null && running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    clip.stopping = !clip.crash;
    if (running()) {
      clip.child.kill('SIGINT');
      const timer = setTimeout(() => clip.child.kill('SIGKILL'), STOP_GRACE_MS);
      await clip.exited;
      clearTimeout(timer);
    }
    const masking = clip.masks.length && fs.existsSync(clip.file) ? await this.paintMasks(clip.file, clip.masks) : null;
    const bytes = fs.existsSync(clip.file) ? fs.statSync(clip.file).size : 0;
    return { file: clip.file, startedAt: clip.startedAt, durationMs: Math.round(clip.outTimeMs), bytes, warning: [clip.crash, masking].filter(Boolean).join('; ') || null };
  }

  /** A box of the screen (a field a secret was typed into) is painted grey over the current clip when it ends; false when no clip runs. */
  mask(box: Box): boolean {
    if (!this.current) return false;
    this.current.masks.push(box);
    return true;
  }

  /** Paints the masks over the finished clip; a clip that cannot be masked is removed rather than kept with a secret in it. Resolves to a warning, or null. */
  private async paintMasks(file: string, masks: readonly Box[]): Promise<string | null> {
    const out = `${file}.masked.mp4`;
    const failed = await new Promise<string | null>((resolve) => {
      execFile('ffmpeg', maskArgs(file, masks, out), { timeout: MASK_BOUND_MS }, (error, _stdout, stderr) => resolve(error ? (String(stderr).trim().split('\n').pop() || error.message) : null));
    });
    if (failed === null) {
      fs.renameSync(out, file);
      return null;
    }
    fs.rmSync(out, { force: true });
    fs.rmSync(file, { force: true });
    return `the clip was removed: the fields a secret was typed into could not be masked in it (${failed})`;
  }

  /** The pid of the running recorder (tests end it to see a crash handled). */
  get pid(): number | null {
    return this.current?.child.pid ?? null;
  }
}
