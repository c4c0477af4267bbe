import { supportCodeLibraryBuilder } from '@cucumber/cucumber';
import { registerSteps, STEP_REGISTRY } from './define';
import { cucumberSteps } from './parameter-types';
import './index';

/**
 * Glance's steps as Cucumber builds them for a run (its parameter types,
 * expressions and matching), to ask which phrasings a step line matches: the
 * recorder writes only lines that match exactly one. Building it resets
 * Cucumber's support-code builder, so it is for a process that is not itself
 * running Cucumber (the recorder's command, tests).
 */
let library: ReturnType<typeof supportCodeLibraryBuilder.finalize> | null = null;

/** The phrasings (as in the step contract) that a step line, keyword dropped, matches. */
export function matchingPhrases(text: string): string[] {
  if (!library) {
    let ids = 0;
    supportCodeLibraryBuilder.reset(process.cwd(), () => String(ids++));
    registerSteps();
    library = supportCodeLibraryBuilder.finalize();
  }
  const { expressions } = cucumberSteps(STEP_REGISTRY);
  return library.stepDefinitions.filter((d) => d.matchesStepName(text)).map((d) => STEP_REGISTRY[expressions.indexOf(String(d.pattern))]?.phrase ?? String(d.pattern));
}
