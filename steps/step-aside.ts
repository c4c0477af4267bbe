import { FIND_OPTIONS, literalLength, phraseSource, variants } from './phrase';

export interface Phrasing {
  phrase: string;
  finds: boolean;
}

/**
 * An element is free text, so in `I should see (the ){element}` it would also
 * take `the text 'Hi'` or `3 'Edit buttons'`, and the step text would have two
 * definitions. So an element steps aside, and only where the rest of the text
 * is exactly the rest of a more specific phrasing:
 *
 *   (?!(?<=^I should see )(?:the text {quoted}{find-options}|{int} {element}|…)$)
 *
 * It is derived from the registry, so a new phrasing brings its own. Each
 * element carries only what its own position needs: the words before it
 * (`I should see `) scope it, so `I click the text 'Save'` still clicks. That
 * also keeps each step's expression short, and Cucumber parses every one it
 * matches.
 *
 * Text that runs two phrasings together, `I click 'A' should contain the
 * text 'B'`, fits both, and Cucumber's ambiguity error names both: a slip
 * like that is better reported than read one way.
 *
 * `before` is the phrasing's text before the element.
 */
export function stepAside(registry: readonly Phrasing[], general: Phrasing, before: string): string {
  return afterSharedWords(registry, general, before).join('');
}

/** Where the words before an element also open a phrasing with more fixed words, the element steps aside for its rest. */
function afterSharedWords(registry: readonly Phrasing[], general: Phrasing, before: string): string[] {
  if (literalLength(before) === 0) return [];
  const restsAfter = new Map<string, Set<string>>();
  for (const opening of variants(before)) {
    for (const specific of registry) {
      if (literalLength(specific.phrase) <= literalLength(general.phrase) || !specific.phrase.startsWith(opening)) continue;
      const rest = specific.phrase.slice(opening.length);
      if (!canTakeRest(rest)) continue;
      const rests = restsAfter.get(opening) ?? new Set<string>();
      rests.add(restSource(rest, specific.finds));
      restsAfter.set(opening, rests);
    }
  }
  return [...restsAfter].map(([opening, rests]) => `(?!(?<=^${phraseSource(opening)})(?:${[...rests].join('|')})$)`);
}

function restSource(rest: string, finds: boolean): string {
  return `(?:${phraseSource(rest)}${finds ? FIND_OPTIONS : ''})`;
}

/**
 * Whether an element could take the rest of a more specific phrasing. It
 * needs quotes, so a rest without a quoted argument cannot be it; and a rest
 * that starts with an element is a step of the same kind, told apart by the
 * words after it.
 */
function canTakeRest(rest: string): boolean {
  return /\{(?:quoted|element)\}/.test(rest) && !/^(?:\([^)]*\))*\{element\}/.test(rest);
}
