/** A scenario attempt, as the Cucumber hooks report it to the team server. */
export interface ScenarioReport {
  runId: string;
  /** The scenario's identity across runs: `features/a.feature: Name [row]`. */
  scenario: string;
  feature: string;
  name: string;
  /** 1 for the first try, 2 for the first retry. */
  attempt: number;
  outcome: 'passed' | 'failed' | 'skipped' | 'pending' | 'undefined' | 'ambiguous' | 'unknown';
  /** Cucumber will run it again (`--retry`): this attempt is not the scenario's last word. */
  willRetry: boolean;
  durationMs: number;
  failingStep: string | null;
  error: string | null;
}

/** An evidence file the team server keeps for a scenario attempt. */
export interface EvidenceRow {
  id: number;
  kind: string;
  contentType: string;
  bytes: number;
}

/** A scenario attempt as the team server gives it back, with its evidence files. */
export interface ResultRow extends ScenarioReport {
  id: number;
  finishedAt: string;
  evidence: EvidenceRow[];
}
