import type { Box } from '../types/screen';
import type { StepPhases } from './step-timing';

/**
 * What Glance's Cucumber support attaches to a step for the report: plain
 * JSON with paths to pictures and clips on this machine (never the pixels:
 * the report stores each file once), under its own media type.
 */
export const STEP_EVIDENCE = 'application/vnd.glance.evidence+json';

export type StepEvidence = FindEvidence | FailureEvidence | PictureEvidence | ClipEvidence | TimingEvidence | ScenarioEvidence;

/** The scenario's identity across runs (see support/run-report.ts): what `glance report --publish` names it by. Not shown in the report. */
export interface ScenarioEvidence {
  kind: 'scenario';
  identity: string;
}

/** Where a step's time went (see step-timing.ts), in ms. */
export interface TimingEvidence {
  kind: 'timing';
  phases: StepPhases;
}

/** A find step: what was looked for, what answered, the screen with the box. */
export interface FindEvidence {
  kind: 'find';
  description: string;
  found: boolean;
  engine: string;
  cache: { hit: boolean; strategy: string; diffPercent: number | null };
  confidence: number | null;
  box: Box | null;
  ms: number;
  /** The located element's reason, or why nothing was found (what was tried, what was seen instead). */
  reason: string | null;
  picture: string | null;
}

/** A failed step: the moment (for the dashcam clip), the screen, and what the last find looked for. */
export interface FailureEvidence {
  kind: 'failure';
  /** ms since the epoch when the step failed. */
  at: number;
  error: string;
  /** What the failed find looked for, and its best (rejected) candidate, boxed in red. */
  lookedFor: string | null;
  best: Box | null;
  seenInstead: string | null;
  /** Where the scenario last acted: the last element a step located, boxed in amber. */
  lastActed: { description: string; box: Box } | null;
  picture: string | null;
}

/** A screenshot a step took (or an after-step screenshot). */
export interface PictureEvidence {
  kind: 'picture';
  title: string;
  picture: string;
}

/** The scenario's dashcam clip. */
export interface ClipEvidence {
  kind: 'clip';
  file: string;
  /** ms since the epoch of the clip's first frame. */
  startedAt: number | null;
  durationMs: number;
  bytes: number;
}

export function evidenceAttachment(evidence: StepEvidence): string {
  return JSON.stringify(evidence);
}

/** The best candidate a failed find names in its reason (`best candidate: 'x' at 10,20 30x40`). */
export function bestCandidate(reason: string | null): Box | null {
  const m = /best candidate: .* at (\d+),(\d+) (\d+)x(\d+)/.exec(reason ?? '');
  return m ? { x: Number(m[1]), y: Number(m[2]), width: Number(m[3]), height: Number(m[4]) } : null;
}
