/**
 * Where a step's time went, from its commands: the find's capture, cache and
 * engines, the wait for the screen to change between its looks, the actions
 * themselves, and the waits for the screen to hold still after them.
 */
export type Phase = 'still' | 'capture' | 'cache' | 'engine' | 'action' | 'change';

/** The phases in the order a step goes through them, with the words the report and the bench use. */
export const PHASES: { phase: Phase; name: string }[] = [
  { phase: 'capture', name: 'capture' },
  { phase: 'cache', name: 'cache' },
  { phase: 'engine', name: 'engine' },
  { phase: 'change', name: 'waiting for the change' },
  { phase: 'action', name: 'the action' },
  { phase: 'still', name: 'waiting for the screen to hold still' },
];

export type StepPhases = Record<Phase, number>;

/** What a step's time is read from: one finished command, as the client's command events tell it. */
export interface TimedCommand {
  command: string;
  durationMs?: number;
  /** The redraw wait after an action. */
  redraw?: { waitedMs: number };
  /** A find's own split. */
  phases?: { capture: number; cache: number; engine: number; change: number };
}

export const noPhases = (): StepPhases => ({ still: 0, capture: 0, cache: 0, engine: 0, action: 0, change: 0 });

/** Adds one finished command's time to a step's phases. */
export function addCommand(phases: StepPhases, command: TimedCommand): void {
  if (command.phases) {
    for (const phase of ['capture', 'cache', 'engine', 'change'] as const) phases[phase] += command.phases[phase];
    return;
  }
  const duration = command.durationMs ?? 0;
  if (command.command === 'assert') {
    phases.engine += duration;
    return;
  }
  const still = command.redraw?.waitedMs ?? 0;
  phases.still += still;
  phases.action += Math.max(0, duration - still);
}

/** The phases rounded to whole ms, for an attachment. */
export function rounded(phases: StepPhases): StepPhases {
  const out = noPhases();
  for (const { phase } of PHASES) out[phase] = Math.round(phases[phase]);
  return out;
}
