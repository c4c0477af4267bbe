import { InvalidOptionError } from '../config/errors';
import { closest } from '../config/closest';

/**
 * The key vocabulary of `pressKeys`. Names are case-insensitive and have
 * aliases; every driver maps the canonical names to its own key codes.
 */
const ALIASES: Record<string, string> = {
  ctrl: 'ctrl', control: 'ctrl', shift: 'shift', alt: 'alt', option: 'alt',
  meta: 'meta', super: 'meta', win: 'meta', windows: 'meta', cmd: 'meta', command: 'meta',
  enter: 'enter', return: 'enter', tab: 'tab', escape: 'escape', esc: 'escape',
  backspace: 'backspace', delete: 'delete', del: 'delete', insert: 'insert', ins: 'insert',
  space: 'space', spacebar: 'space',
  up: 'up', arrowup: 'up', down: 'down', arrowdown: 'down', left: 'left', arrowleft: 'left', right: 'right', arrowright: 'right',
  home: 'home', end: 'end', pageup: 'pageup', pgup: 'pageup', pagedown: 'pagedown', pgdn: 'pagedown',
  capslock: 'capslock', printscreen: 'printscreen', menu: 'menu',
  plus: '+',
};
for (let n = 1; n <= 12; n++) ALIASES[`f${n}`] = `f${n}`;

export const NAMED_KEYS: readonly string[] = [...new Set(Object.values(ALIASES))].filter((k) => k.length > 1);

/** Canonical name of one key: a named key, or a single printable character. */
export function canonicalKey(input: string): string {
  if ([...input].length === 1) return input;
  const name = ALIASES[input.toLowerCase()];
  if (name) return name;
  const hint = closest(input.toLowerCase(), Object.keys(ALIASES));
  throw new InvalidOptionError(
    'keys',
    `Unknown key '${input}'.${hint ? ` Did you mean '${hint}'?` : ''} Use a single character or one of: ${NAMED_KEYS.join(', ')}; combine with '+', e.g. 'ctrl+shift+t'.`,
  );
}

/**
 * Turns `pressKeys` input into one chord. The array's keys are held together;
 * an entry may itself be a combination such as `ctrl+shift+t`.
 */
export function parseChord(keys: readonly string[]): string[] {
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string' || k.length === 0)) {
    throw new InvalidOptionError('keys', `pressKeys expects a non-empty array of key names, got ${JSON.stringify(keys)}; e.g. ['ctrl+a'] or ['Enter'].`);
  }
  return keys.flatMap(splitCombination).map(canonicalKey);
}

/** `ctrl+shift+t` → ctrl, shift, t; a trailing `++` names the plus key itself. */
function splitCombination(entry: string): string[] {
  if (entry === '+') return ['+'];
  const endsWithPlusKey = entry.endsWith('++');
  const parts = (endsWithPlusKey ? entry.slice(0, -2) : entry).split('+').map((p) => (p.trim() ? p.trim() : p));
  return endsWithPlusKey ? [...parts, '+'] : parts;
}

/** The most presses of one chord a single request sends (pressKeys' `times`). */
export const MAX_PRESSES = 100;
