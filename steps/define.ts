import { cucumber } from '../support/cucumber-api';
import { compilePhrase, literalLength, parseSuffixes, StepFindOptions, unquote } from './phrase';
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

type Handler = (this: GlanceWorld, args: string[], options: StepFindOptions, table?: { raw(): string[][] }) => Promise<void>;

interface PendingStep extends StepDefinition {
  run: (this: GlanceWorld, ...raw: unknown[]) => Promise<void>;
}

export const STEP_REGISTRY: StepDefinition[] = [];
const pending: PendingStep[] = [];

/**
 * Adds a step to the registry. Quoted arguments arrive without their quotes;
 * a step that finds gets its suffix options; a data table comes last when the
 * step has one.
 */
export function step(phrase: string, handler: Handler, { finds = false, table = false } = {}): void {
  const pattern = compilePhrase(phrase, finds);
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
  const definition = { phrase, finds, pattern, run };
  STEP_REGISTRY.push(definition);
  pending.push(definition);
}

/**
 * The pattern Cucumber gets for a step. A description is free text, so
 * `I should see (the ){description}` would also match `I should see the text
 * 'Hi'` or `I should see 3 'Edit buttons'`: each pattern steps aside for the
 * phrasings that spell out more words of their own, so one step text has one
 * definition.
 */
export function definitionPattern(definition: StepDefinition): RegExp {
  const ownWords = literalLength(definition.phrase);
  const moreSpecific = STEP_REGISTRY
    .filter((other) => other !== definition && literalLength(other.phrase) > ownWords)
    // Inside the look-ahead, groups must not capture: Cucumber counts capture groups as arguments.
    .map((other) => other.pattern.source.replace(/^\^/, '').replace(/(?<!\\)\((?!\?)/g, '(?:'));
  if (!moreSpecific.length) return definition.pattern;
  return new RegExp(`^(?!${moreSpecific.map((source) => `(?:${source})`).join('|')})${definition.pattern.source.replace(/^\^/, '')}`);
}

/** Hands the registered steps to Cucumber; the Cucumber entry (support/) calls it once all are in. */
export function registerSteps(): void {
  for (const definition of pending.splice(0)) cucumber.defineStep(definitionPattern(definition), definition.run);
}
