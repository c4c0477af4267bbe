import { cucumber } from '../support/cucumber-api';
import { parametersOf, StepFindOptions } from './phrase';
import { cucumberSteps } from './parameter-types';
import type { GlanceWorld } from '../support/world';

export type Keyword = 'Given' | 'When' | 'Then';

/**
 * Every Glance step is registered here, so the phrasings form one registry:
 * Cucumber gets them from it, the snippet helper suggests from it, the
 * editors' catalogue lists it, and a test checks that the example features
 * use each one.
 */
export interface StepDefinition {
  /** As in the step contract: `I click (on )(the ){element}`. */
  phrase: string;
  /** Whether the step finds, and so takes the find suffixes. */
  finds: boolean;
  /** The phrase, with `{find-options}` on a step that finds; Cucumber gets it with each element's own type (steps/parameter-types.ts). */
  expression: string;
  /** The keyword the contract writes it with; Cucumber matches Glance's steps under any keyword. */
  keyword: Keyword;
  run: (this: GlanceWorld, ...parameters: unknown[]) => Promise<void>;
}

type Handler = (this: GlanceWorld, args: string[], options: StepFindOptions, table?: { raw(): string[][] }) => Promise<void>;

export const STEP_REGISTRY: StepDefinition[] = [];

/**
 * The function that adds a family's steps to the registry. A step's handler
 * gets its arguments as text (quoted values without their quotes,
 * descriptions as written), its find options, and the data table when the
 * step has one.
 */
export function stepsFor(keyword: Keyword) {
  return function step(phrase: string, handler: Handler, { finds = false, table = false } = {}): void {
    const definition: StepDefinition = {
      phrase,
      finds,
      expression: finds ? `${phrase}{find-options}` : phrase,
      keyword,
      run: async function (this: GlanceWorld, ...parameters: unknown[]) {
        const { args, options, dataTable } = stepArguments(definition, parameters);
        return handler.call(this, args, options, dataTable);
      },
    };
    // Cucumber checks a step function's declared arity against the expression's parameters.
    Object.defineProperty(definition.run, 'length', { value: parametersOf(definition.expression).length + (table ? 1 : 0) });
    STEP_REGISTRY.push(definition);
  };
}

/** What a step's handler gets from the parameters Cucumber passes (already transformed by the parameter types). */
export function stepArguments(definition: StepDefinition, parameters: unknown[]): { args: string[]; options: StepFindOptions; dataTable?: { raw(): string[][] } } {
  const count = parametersOf(definition.phrase).length;
  return {
    args: parameters.slice(0, count).map(String),
    options: definition.finds ? (parameters[count] as StepFindOptions) : {},
    dataTable: parameters[count + (definition.finds ? 1 : 0)] as { raw(): string[][] } | undefined,
  };
}

let registered = false;

/** Hands the parameter types and the steps to Cucumber, once; the Cucumber entry (support/) calls it once all are in. */
export function registerSteps(): void {
  if (registered) return;
  registered = true;
  const { types, expressions } = cucumberSteps(STEP_REGISTRY);
  for (const type of types) cucumber.defineParameterType(type);
  STEP_REGISTRY.forEach((definition, i) => cucumber.defineStep(expressions[i], definition.run));
}
