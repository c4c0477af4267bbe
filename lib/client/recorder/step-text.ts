/**
 * The step lines the recorder writes, in the phrasing of the step library
 * (STEPS.md): one function per step, so that every line it writes is a line
 * the library runs.
 */

/** A value or description in quotes: single, or double where it holds a single quote. */
export function quoted(text: string): string {
  return text.includes("'") ? `"${text}"` : `'${text}'`;
}

export const stepText = {
  click: (description: string) => `I click ${description}`,
  doubleClick: (description: string) => `I double-click ${description}`,
  rightClick: (description: string) => `I right-click ${description}`,
  clickAt: (x: number, y: number) => `I click at ${Math.round(x)}, ${Math.round(y)}`,
  drag: (from: string, to: string) => `I drag ${from} to ${to}`,
  type: (value: string) => `I type ${quoted(value)}`,
  typeInto: (value: string, field: string) => `I type ${quoted(value)} into ${field}`,
  press: (keys: string) => `I press ${quoted(keys)}`,
  scroll: (direction: string, pixels: number) => `I scroll ${direction} ${pixels} pixels`,
  scrollUntil: (direction: string, description: string) => `I scroll ${direction} until I see ${description}`,
  see: (description: string) => `I should see ${description}`,
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
