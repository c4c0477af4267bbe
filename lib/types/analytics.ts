/**
 * Usage analytics: one record per SDK command, kept in the local state
 * database. What ran, for how long and how it ended; never its arguments,
 * typed text or error messages.
 */
export interface CommandRecord {
  /** The test run: GLANCE_RUN_ID when set (a runner's workers share it), else the process. */
  runId: string;
  sessionId: string | null;
  command: string;
  /** The description of a find, findAll or assert (secrets masked); null for other commands. */
  description: string | null;
  /** ISO 8601. */
  startedAt: string;
  durationMs: number;
  outcome: 'success' | 'error' | 'not-found';
  /** The error's class name, e.g. ElementNotFoundError. */
  errorName: string | null;
  cacheHit: boolean | null;
  engine: string | null;
  /** Vision-model calls of a find, findAll or assert, and their tokens; null for other commands. Absent in records of older clients. */
  modelCalls?: number | null;
  modelTokens?: number | null;
}

/** What `glance stats` prints. */
export interface AnalyticsSummary {
  runs: { runId: string; startedAt: string; commands: number; errors: number; notFound: number; totalMs: number }[];
  locate: { finds: number; medianMs: number | null; p90Ms: number | null; cacheHits: number; cacheHitRate: number | null; engines: Record<string, number> };
  slowest: { description: string; command: string; count: number; medianMs: number; maxMs: number }[];
  commands: { command: string; count: number; medianMs: number; errors: number }[];
}
