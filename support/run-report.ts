import path from 'path';
import type { ITestCaseHookParameter } from './cucumber-api';
import type { ScenarioReport } from '../lib/types/runs';

/** What the hooks know of a scenario attempt when it ends. */
export interface FinishedScenario {
  stateDir: string;
  apiRoot: string;
  hook: ITestCaseHookParameter;
  failedStep: { text: string; picture: string | null } | null;
  clip: string | null;
}

/** Attempts so far of each scenario in this worker: retries run in the worker that ran the first try. */
const attempts = new Map<string, number>();
let signedIn: Promise<string> | null = null;

/** A scenario's identity across runs: its feature file (as run) and name, with the example row of an outline; never its line. */
export function scenarioIdentity(hook: Pick<ITestCaseHookParameter, 'pickle' | 'gherkinDocument'>): string {
  const { pickle, gherkinDocument } = hook;
  const rowId = pickle.astNodeIds[1];
  const nodes = (gherkinDocument.feature?.children ?? []).flatMap((child) => (child.rule ? child.rule.children : [child]));
  const row = rowId ? nodes.flatMap((n) => n.scenario?.examples ?? []).flatMap((e) => e.tableBody).find((r) => r.id === rowId) : undefined;
  return `${pickle.uri.split(path.sep).join('/')}: ${pickle.name}${row ? ` [${row.cells.map((c) => c.value).join(' | ')}]` : ''}`;
}

/**
 * Reports a finished scenario attempt to the team server, with its failing
 * step's screenshot and its dashcam clip, so that the console's runs,
 * history and flake rates come from real runs.
 */
export async function reportToServer(finished: FinishedScenario, runId: string): Promise<void> {
  const { RemoteService } = require('../lib/service/remote-service') as typeof import('../lib/service/remote-service');
  const service = RemoteService.shared(finished.apiRoot, finished.stateDir);
  const key = process.env.GLANCE_API_KEY ?? '';
  signedIn ??= service.auth(key).then((answer) => answer.token);
  const token = await signedIn.catch((error) => {
    signedIn = null;
    throw error;
  });
  const { pickle, result } = finished.hook;
  const attempt = (attempts.get(pickle.id) ?? 0) + 1;
  attempts.set(pickle.id, attempt);
  const duration = result?.duration ? result.duration.seconds * 1000 + result.duration.nanos / 1e6 : 0;
  const report: Omit<ScenarioReport, 'runId'> = {
    scenario: scenarioIdentity(finished.hook),
    feature: pickle.uri.split(path.sep).join('/'),
    name: pickle.name,
    attempt,
    outcome: (result?.status.toLowerCase() ?? 'unknown') as ScenarioReport['outcome'],
    willRetry: Boolean(finished.hook.willBeRetried),
    durationMs: Math.round(duration),
    failingStep: finished.failedStep?.text ?? null,
    error: result?.message ? result.message.slice(0, 10_000) : null,
  };
  const files = [
    ...(finished.failedStep?.picture ? [{ kind: 'failure' as const, file: finished.failedStep.picture }] : []),
    ...(finished.clip ? [{ kind: 'clip' as const, file: finished.clip }] : []),
  ];
  await service.reportScenario(token, runId, report, files);
}
