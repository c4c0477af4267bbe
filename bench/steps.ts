import { runFeature } from './cucumber';
import { testState } from '../test/helpers/glance';
import { STEP_EVIDENCE } from '../lib/report/step-evidence';
import { noPhases, PHASES, StepPhases } from '../lib/report/step-timing';
import { Figure, figure } from './stats';

/**
 * Where the example features' time goes, step by step, warm: each step's
 * duration split into the phases the report shows (capture, cache, engine,
 * waiting for the change, the action, waiting for the screen to hold still),
 * printed for every step, with each phase summed over the run as figures,
 * and the whole run's wall time beside them.
 */
const RUNS = 2;

interface TimedStep { name: string; ms: number; phases: StepPhases }

function timedSteps(report: any[]): TimedStep[] {
  return report.flatMap((f) => f.elements).flatMap((s: any) => s.steps)
    .filter((s: any) => s.keyword.trim() !== 'Before' && s.keyword.trim() !== 'After')
    .map((s: any) => {
      const timing = (s.embeddings ?? []).filter((e: any) => e.mime_type === STEP_EVIDENCE)
        .map((e: any) => JSON.parse(Buffer.from(e.data, 'base64').toString('utf8'))).find((e: any) => e.kind === 'timing');
      return { name: `${s.keyword.trim()} ${s.name}`, ms: (s.result.duration ?? 0) / 1e6, phases: timing?.phases ?? noPhases() };
    });
}

function printSteps(steps: TimedStep[]): void {
  const header = ['step ms', ...PHASES.map((p) => p.phase), 'step'];
  console.log(`\nsteps (phases in ms: ${PHASES.map((p) => `${p.phase} = ${p.name}`).join(', ')})`);
  console.log(header.join('\t'));
  for (const step of steps) console.log([Math.round(step.ms), ...PHASES.map((p) => step.phases[p.phase]), step.name.slice(0, 90)].join('\t'));
}

export async function stepsBench(): Promise<Figure[]> {
  const state = testState();
  runFeature('features', state); // fills the cache
  const whole = Array.from({ length: RUNS }, () => runFeature('features', state));
  const runs = whole.map((run) => timedSteps(run.report));
  printSteps(runs[RUNS - 1]);
  const sum = (steps: TimedStep[], of: (s: TimedStep) => number) => steps.reduce((total, s) => total + of(s), 0);
  return [
    // The steps leave out hooks (joining a reused sandbox, its reset) and Cucumber's start: the whole run has them.
    figure('example features, warm: the whole run (cucumber-js process)', whole.map((run) => run.ms)),
    figure('example features, warm: time in steps (sum)', runs.map((steps) => sum(steps, (s) => s.ms))),
    ...PHASES.map(({ phase, name }) => figure(`  of which ${name} (sum)`, runs.map((steps) => sum(steps, (s) => s.phases[phase])))),
  ];
}
