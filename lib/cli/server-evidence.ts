import fs from 'fs';
import path from 'path';
import { RemoteService } from '../service/remote-service';
import type { ResultRow } from '../types/runs';
import type { EvidenceRef, EvidenceSource } from '../report/shards';

const EXTENSIONS: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'video/mp4': '.mp4' };

/**
 * Evidence files a run's shards uploaded to the team server (each failure's
 * screenshot and each scenario's clip), fetched into `into` when the merge
 * asks for one it found nowhere else. Signs in on the first ask.
 */
export class TeamServerEvidence {
  private readonly service: RemoteService;
  private results: Promise<{ token: string; byScenario: Map<string, ResultRow> }> | null = null;

  constructor(apiRoot: string, stateDir: string, private readonly apiKey: string, private readonly runId: string, private readonly into: string) {
    this.service = new RemoteService(apiRoot, stateDir);
  }

  readonly source: EvidenceSource = async (ref: EvidenceRef) => {
    if (ref.kind === 'picture') return null; // only failures' screenshots and clips are uploaded
    const { token, byScenario } = await (this.results ??= this.load());
    const kept = byScenario.get(ref.scenario)?.evidence.find((e) => e.kind === ref.kind);
    if (!kept) return null;
    const file = path.join(this.into, `${kept.id}${EXTENSIONS[kept.contentType] ?? path.extname(ref.file)}`);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(this.into, { recursive: true });
      fs.writeFileSync(file, await this.service.evidenceBytes(token, kept.id));
    }
    return file;
  };

  close(): void {
    this.service.close();
  }

  /** Each scenario's last attempt in the run: the one the shard's report shows. */
  private async load(): Promise<{ token: string; byScenario: Map<string, ResultRow> }> {
    const { token } = await this.service.auth(this.apiKey);
    const byScenario = new Map<string, ResultRow>();
    for (const result of await this.service.runResults(token, this.runId)) {
      const known = byScenario.get(result.scenario);
      if (!known || result.attempt >= known.attempt) byScenario.set(result.scenario, result);
    }
    return { token, byScenario };
  }
}
