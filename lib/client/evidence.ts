import type { Preview, ResolvedClientOptions } from '../config/options';
import type { AgentClient } from '../sandbox/agent-client';
import { CommandRunner } from './command-runner';
import { Dashcam, Recording } from './dashcam';
import { LivePreview } from './preview';

/**
 * What a session leaves behind and shows while it runs: the dashcam clip and
 * the live preview, started at connect and ended at disconnect.
 */
export class SessionEvidence {
  readonly dashcam: Dashcam;
  readonly preview: LivePreview;

  constructor(private readonly options: ResolvedClientOptions, private readonly runner: CommandRunner) {
    this.dashcam = new Dashcam(options.stateDir, (line) => runner.warn(line));
    this.preview = new LivePreview(options.stateDir, (line) => runner.log(line));
    runner.observers.push((command) => this.preview.observe(command));
  }

  /** After connect: the recording starts (named after the test) and the preview opens. */
  async begin(agent: AgentClient, sandbox: { host: string; previewPort: number | null }, preview: Preview, test: string): Promise<void> {
    if (this.options.dashcam) await this.dashcam.start(agent, test);
    this.preview.start(preview, { ...sandbox, token: agent.endpoint.token });
  }

  /** Before the sandbox is released: the screenshots are written, the clip finished and kept, the preview closed. */
  async end(agent: AgentClient): Promise<Recording | null> {
    await this.runner.flushScreenshots();
    const clip = await this.dashcam.stop(agent);
    if (clip) this.runner.emitter.emit('dashcam:saved', { ...clip });
    await this.preview.stop();
    return clip;
  }
}
