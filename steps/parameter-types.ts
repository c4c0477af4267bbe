import { DIRECTION, ELEMENT, FIND_OPTIONS, parseSuffixes, QUOTED, unquote } from './phrase';
import { Phrasing, stepAside } from './step-aside';

/** A parameter type as Cucumber's defineParameterType takes it. */
export interface ParameterTypeDefinition {
  name: string;
  regexp: RegExp;
  transformer: (text: string) => unknown;
  // Off, so that the snippets Cucumber writes for an undefined step keep its own {string} and {int}.
  useForSnippets: false;
}

/** Glance's parameter types; the element steps aside for the more specific phrasings of the registry. */
export function parameterTypes(registry: readonly Phrasing[]): ParameterTypeDefinition[] {
  return [
    // Not Cucumber's {string}: that one reads a backslash as an escape, and `I press '\'` must work.
    { name: 'quoted', regexp: new RegExp(QUOTED), transformer: unquote, useForSnippets: false },
    { name: 'element', regexp: new RegExp(stepAside(registry) + ELEMENT), transformer: (text) => text.trim(), useForSnippets: false },
    { name: 'direction', regexp: new RegExp(DIRECTION), transformer: (text) => text, useForSnippets: false },
    { name: 'find-options', regexp: new RegExp(FIND_OPTIONS), transformer: parseSuffixes, useForSnippets: false },
  ];
}
