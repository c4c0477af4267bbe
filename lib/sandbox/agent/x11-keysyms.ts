/** X11 keysyms for Glance's canonical key names (see lib/sandbox/keys.ts). */
const NAMED: Record<string, number> = {
  ctrl: 0xffe3, shift: 0xffe1, alt: 0xffe9, meta: 0xffeb,
  enter: 0xff0d, tab: 0xff09, escape: 0xff1b, backspace: 0xff08, delete: 0xffff, insert: 0xff63,
  space: 0x20, up: 0xff52, down: 0xff54, left: 0xff51, right: 0xff53,
  home: 0xff50, end: 0xff57, pageup: 0xff55, pagedown: 0xff56,
  capslock: 0xffe5, printscreen: 0xff61, menu: 0xff67,
};
for (let n = 1; n <= 12; n++) NAMED[`f${n}`] = 0xffbe + n - 1;

export const SHIFT_KEYSYM = NAMED.shift;

/** Keysym of one character: Latin-1 maps to itself, the rest to the Unicode keysym range. */
export function keysymForChar(char: string): number {
  if (char === '\n' || char === '\r') return NAMED.enter;
  if (char === '\t') return NAMED.tab;
  const code = char.codePointAt(0)!;
  if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff)) return code;
  return 0x01000000 + code;
}

/** Keysym of a canonical key name or single character. */
export function keysymFor(key: string): number {
  return NAMED[key] ?? keysymForChar(key);
}
