import { defineStep } from '@cucumber/cucumber';
import { compilePhrase, parseSuffixes, StepFindOptions, unquote } from './phrase';
import type { GlanceWorld } from '../support/world';

/**
 * Every Glance step is registered here, so the phrasings form one registry:
 * the snippet helper suggests from it, and a test checks that the example
 * features use each one.
 */
export interface StepDefinition {
  phrase: string;
  finds: boolean;
  pattern: RegExp;
}

export const STEP_REGISTRY: StepDefinition[] = [];

type Handler = (this: GlanceWorld, args: string[], options: StepFindOptions, table?: { raw(): string[][] }) => Promise<void>;

/**
 * Registers a step. Quoted arguments arrive without their quotes; a step that
 * finds gets its suffix options; a data table comes last when the step has one.
 */
export function step(phrase: string, handler: Handler, { finds = false, table = false } = {}): void {
  const pattern = compilePhrase(phrase, finds);
  STEP_REGISTRY.push({ phrase, finds, pattern });
  const groups = pattern.kinds.length + (finds ? 1 : 0);
  const run = async function (this: GlanceWorld, ...raw: unknown[]) {
    const captured = raw.slice(0, groups) as (string | undefined)[];
    const suffixes = finds ? captured.pop() : undefined;
    // Values lose their quotes; descriptions go to find() exactly as written.
    const args = captured.map((a, i) => (pattern.kinds[i] === 'description' ? (a ?? '').trim() : unquote(a ?? '')));
    return handler.call(this, args, parseSuffixes(suffixes), table ? (raw[groups] as { raw(): string[][] }) : undefined);
  };
  // Cucumber checks a step function's declared arity against the pattern's groups.
  Object.defineProperty(run, 'length', { value: groups + (table ? 1 : 0) });
  defineStep(pattern, run);
}
