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

export interface CucumberSteps {
  types: ParameterTypeDefinition[];
  /** Each phrasing's expression as Cucumber gets it, in the registry's order. */
  expressions: string[];
}

/**
 * Glance's parameter types, and the registry's expressions written with them.
 * An element steps aside where its position needs it (steps/step-aside.ts), so
 * elements that step aside differently are types of their own:
 * `I should see (the ){element-after-I-should-see}` carries the look-aheads
 * for `I should see the text {quoted}` and its kin; every other element is
 * plain `{element}`.
 */
export function cucumberSteps(registry: readonly (Phrasing & { expression: string })[]): CucumberSteps {
  const elements = new Map<string, string>(); // look-aheads → type name
  const nameFor = (aside: string, before: string): string => {
    const known = elements.get(aside);
    if (known) return known;
    const name = elements.size === 0 ? 'element' : `element-after-${before.replace(/\([^)]*\)|\{[a-z-]*\}/g, '').trim().split(/\s+/).join('-')}`;
    elements.set(aside, name);
    return name;
  };
  // The plain element is the one with no words before it that open another phrasing.
  nameFor(stepAside(registry, { phrase: '{element}', finds: false }, ''), '');
  const expressions = registry.map((general) => general.expression.replace(/\{element\}/g, (_, index: number) => {
    const before = general.expression.slice(0, index);
    return `{${nameFor(stepAside(registry, general, before), before)}}`;
  }));
  return {
    expressions,
    types: [
      // Not Cucumber's {string}: that one reads a backslash as an escape, and `I press '\'` must work.
      { name: 'quoted', regexp: new RegExp(QUOTED), transformer: unquote, useForSnippets: false },
      ...[...elements].map(([aside, name]): ParameterTypeDefinition => ({ name, regexp: new RegExp(aside + ELEMENT), transformer: (text) => text.trim(), useForSnippets: false })),
      { name: 'direction', regexp: new RegExp(DIRECTION), transformer: (text) => text, useForSnippets: false },
      { name: 'find-options', regexp: new RegExp(FIND_OPTIONS), transformer: parseSuffixes, useForSnippets: false },
    ],
  };
}
