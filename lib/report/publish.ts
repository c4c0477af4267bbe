import { STEP_EVIDENCE, StepEvidence } from './step-evidence';
import type { ScenarioReport } from '../types/runs';

/** A scenario of a Cucumber JSON report, as much of it as publishing reads. */
interface JsonStep {
  keyword?: string;
  name?: string;
  result?: { status: string; duration?: number; error_message?: string };
  embeddings?: { mime_type: string; data: string }[];
}
interface JsonScenario {
  name: string;
  keyword?: string;
  type?: string;
  before?: JsonStep[];
  steps?: JsonStep[];
  after?: JsonStep[];
}
export interface JsonFeature {
  uri: string;
  elements?: JsonScenario[];
}

export interface PublishedScenario {
  report: Omit<ScenarioReport, 'runId'>;
  files: { kind: 'failure' | 'clip'; file: string }[];
}

const OUTCOMES = ['passed', 'failed', 'skipped', 'pending', 'undefined', 'ambiguous'];

/**
 * The scenarios of an existing Cucumber JSON report, as the hooks would have
 * reported them to the team server: outcome, duration, failing step and
 * error, and the evidence files Glance attached (failure screenshot, clip).
 */
export function scenariosOfReport(features: JsonFeature[]): PublishedScenario[] {
  const scenarios: PublishedScenario[] = [];
  for (const feature of features) {
    for (const scenario of (feature.elements ?? []).filter((e) => e.type !== 'background')) {
      const all = [...(scenario.before ?? []), ...(scenario.steps ?? []), ...(scenario.after ?? [])];
      const failed = all.find((s) => s.result?.status === 'failed');
      const statuses = all.map((s) => s.result?.status ?? 'unknown');
      const outcome = failed ? 'failed' : OUTCOMES.find((o) => o !== 'passed' && statuses.includes(o)) ?? (statuses.every((s) => s === 'passed') ? 'passed' : 'unknown');
      const uri = feature.uri.replace(/\\/g, '/');
      const evidence = all.flatMap((s) => s.embeddings ?? []).filter((e) => e.mime_type === STEP_EVIDENCE)
        .map((e) => JSON.parse(Buffer.from(e.data, 'base64').toString('utf8')) as StepEvidence);
      // Glance's hooks attach the scenario's identity (with an outline's example row); without it, the file and name.
      scenarios.push({
        report: {
          scenario: evidence.find((e) => e.kind === 'scenario')?.identity ?? `${uri}: ${scenario.name}`,
          feature: uri,
          name: scenario.name,
          attempt: 1,
          outcome: outcome as ScenarioReport['outcome'],
          willRetry: false,
          durationMs: Math.round(all.reduce((sum, s) => sum + (s.result?.duration ?? 0), 0) / 1e6),
          failingStep: failed?.name ? `${failed.keyword ?? ''}${failed.name}`.trim() : null,
          error: failed?.result?.error_message?.slice(0, 10_000) ?? null,
        },
        files: evidence.flatMap((e): PublishedScenario['files'] => {
          if (e.kind === 'failure' && e.picture) return [{ kind: 'failure', file: e.picture }];
          if (e.kind === 'clip') return [{ kind: 'clip', file: e.file }];
          return [];
        }),
      });
    }
  }
  return scenarios;
}
