import fs from 'fs';
import path from 'path';
import type { AgentClient } from '../sandbox/agent-client';

/** A session's dashcam clip, kept under `.glance/recordings/`. */
export interface Recording {
  /** The MP4 file on this machine. */
  file: string;
  /** Wall-clock time (ms since the epoch) of the clip's first frame: a moment's place in the clip is its time minus this. */
  startedAt: number | null;
  durationMs: number;
  bytes: number;
}

interface AgentClip { file: string; startedAt: number | null; durationMs: number; bytes: number; warning: string | null }

/** Clip names this process has given: a test that connects twice gets `-2`, `-3`… rather than overwriting its first clip. */
const given = new Map<string, number>();

/**
 * The client's side of the dashcam (the `dashcam` option): asks the agent to
 * record from connect to disconnect, and keeps the clip in
 * `.glance/recordings/<test>.mp4`. A local sandbox writes it there itself, so
 * even a test process killed by Ctrl-C leaves a playable clip (the recorder
 * writes fragments that play at any moment, and stops when the sandbox does);
 * from a self-hosted agent the clip is fetched at disconnect. Nothing here
 * ever fails a test: problems are warnings.
 */
export class Dashcam {
  private name: string | null = null;
  last: Recording | null = null;

  constructor(private readonly stateDir: string, private readonly warn: (line: string) => void) {}

  get dir(): string {
    return path.join(this.stateDir, 'recordings');
  }

  async start(agent: AgentClient, test: string): Promise<void> {
    const count = (given.get(test) ?? 0) + 1;
    given.set(test, count);
    const name = count > 1 ? `${test}-${count}` : test;
    try {
      const { warning } = await agent.call<{ file: string; warning: string | null }>('POST', '/dashcam/start', { name }, 10_000);
      this.name = name;
      if (warning) this.warn(`dashcam: ${warning}`);
    } catch (error) {
      this.warn(`dashcam: the recording did not start (${(error as Error).message}); the test goes on without a clip.`);
    }
  }

  /** Ends the clip and makes sure it is in `.glance/recordings/`; null when there is none. */
  async stop(agent: AgentClient): Promise<Recording | null> {
    const name = this.name;
    this.name = null;
    if (!name) return null;
    try {
      const { clip } = await agent.call<{ clip: AgentClip | null }>('POST', '/dashcam/stop', {}, 15_000);
      if (!clip) return null;
      if (clip.warning) this.warn(`dashcam: ${clip.warning}`);
      const file = path.join(this.dir, `${name}.mp4`);
      if (path.resolve(clip.file) !== path.resolve(file) || !fs.existsSync(file)) {
        fs.mkdirSync(this.dir, { recursive: true });
        fs.writeFileSync(file, await agent.download(`/dashcam/clip?name=${encodeURIComponent(name)}`));
      }
      if (!clip.bytes) return null;
      this.last = { file, startedAt: clip.startedAt, durationMs: clip.durationMs, bytes: fs.statSync(file).size };
      return this.last;
    } catch (error) {
      this.warn(`dashcam: the clip could not be kept (${(error as Error).message}).`);
      return null;
    }
  }
}
