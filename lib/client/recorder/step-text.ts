import { inQuotes } from '../../util/quotes';

/**
 * The step lines the recorder writes, in the phrasing of the step library
 * (STEPS.md): one function per step, so that every line it writes is a line
 * the library runs.
 */

export const stepText = {
  click: (description: string) => `I click ${description}`,
  doubleClick: (description: string) => `I double-click ${description}`,
  rightClick: (description: string) => `I right-click ${description}`,
  clickAt: (x: number, y: number) => `I click at ${Math.round(x)}, ${Math.round(y)}`,
  drag: (from: string, to: string) => `I drag ${from} to ${to}`,
  type: (value: string) => `I type ${inQuotes(value)}`,
  typeInto: (value: string, field: string) => `I type ${inQuotes(value)} into ${field}`,
  press: (keys: string) => `I press ${inQuotes(keys)}`,
  scroll: (direction: string, pixels: number) => `I scroll ${direction} ${pixels} pixels`,
  scrollUntil: (direction: string, description: string) => `I scroll ${direction} until I see ${description}`,
  hover: (description: string) => `I hover over ${description}`,
  see: (description: string) => `I should see ${description}`,
  notSee: (description: string) => `I should not see ${description}`,
  contain: (description: string, text: string) => `${description} should contain the text ${inQuotes(text)}`,
};

/**
 * The variable a secret typed into a field is read from: its label in
 * capitals, words joined by underscores (`Password` → `PASSWORD`,
 * `Work password` → `WORK_PASSWORD`); `SECRET` when it has no label.
 */
export function secretName(label: string | null): string {
  const words = (label ?? '').normalize('NFKD').replace(/\p{M}/gu, '').replace(/[^\p{L}\p{N}]+/gu, ' ').trim().toUpperCase().split(/\s+/).filter(Boolean);
  const name = words.join('_').replace(/[^A-Z0-9_]/g, '');
  return /^[A-Z]/.test(name) ? name : `SECRET${name ? `_${name}` : ''}`;
}
