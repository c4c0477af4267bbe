import type { Region, TargetKind } from './types';

/**
 * Descriptions as QA engineers write them: quoted and unquoted, with the role
 * or the place outside the quotes ("the 'Tables' link in the sidebar",
 * "Dashboard heading", "the Email field", "the dropdown showing 'All'").
 * Which form a case gets is drawn from a seeded generator, so the set is the
 * same on every build.
 */
export type Random = () => number;

/** mulberry32: small, fast and the same on every platform. */
export function seeded(seed: string): Random {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)];

export function shuffle<T>(random: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const quote = (text: string) => (text.includes("'") ? `"${text}"` : `'${text}'`);

/** Text a person would write without quotes: short, no quotes, no words a reader could take for a relation or an ordinal. */
export function plainOk(text: string): boolean {
  return text.split(' ').length <= 4
    && !/["'`]/.test(text)
    && !/\b(of|next|near|below|above|under|left|right|row|first|second|third|last|button|link|field|tab|icon)\b/i.test(text)
    && /^[\p{L}\p{N}]/u.test(text);
}

type Form = (q: string, t: string) => string;

/** Templates for a target named by its text; a form whose second argument is used needs plainOk text. */
const TEXT_FORMS: Record<string, { quoted: Form[]; plain: Form[] }> = {
  button: { quoted: [(q) => `the ${q} button`, (q) => `${q} button`], plain: [(_q, t) => `${t} button`, (_q, t) => `the ${t} button`] },
  'sidebar link': {
    quoted: [(q) => `the ${q} link in the sidebar`, (q) => `the ${q} menu item`, (q) => `${q} in the sidebar`],
    plain: [(_q, t) => `${t} sidebar link`, (_q, t) => `${t} in the sidebar`],
  },
  'top-bar link': { quoted: [(q) => `the ${q} link in the top bar`, (q) => `the ${q} link`, (q) => `${q} in the navbar`], plain: [(_q, t) => `${t} link`] },
  link: { quoted: [(q) => `the ${q} link`, (q) => q], plain: [(_q, t) => `${t} link`] },
  tab: { quoted: [(q) => `the ${q} tab`], plain: [(_q, t) => `${t} tab`] },
  'menu item': { quoted: [(q) => `the ${q} menu item`, (q) => `${q} in the menu`], plain: [(_q, t) => `${t} menu item`] },
  heading: { quoted: [(q) => `the ${q} heading`, (q) => q, (q) => `the title ${q}`], plain: [(_q, t) => `${t} heading`, (_q, t) => t] },
  cell: { quoted: [(q) => `the ${q} cell`, (q) => `${q} in the table`, (q) => q], plain: [(_q, t) => `${t} table cell`] },
  'column header': { quoted: [(q) => `the ${q} column header`, (q) => `the ${q} column`], plain: [(_q, t) => `${t} column header`] },
  badge: { quoted: [(q) => `the ${q} badge`, (q) => `the ${q} label`], plain: [(_q, t) => `${t} badge`] },
  text: { quoted: [(q) => q, (q) => `the text ${q}`], plain: [(_q, t) => t] },
};

/** The kind of target as a QA engineer would name it, place included where it matters. */
export function textKind(kind: TargetKind, region: Region): string {
  if (kind === 'link') return region === 'sidebar' ? 'sidebar link' : region === 'top bar' ? 'top-bar link' : 'link';
  if (kind === 'column-header') return 'column header';
  if (kind === 'menu-item') return 'menu item';
  return kind;
}

export function describeText(random: Random, kind: string, text: string): string {
  const forms = TEXT_FORMS[kind] ?? TEXT_FORMS.text;
  const usePlain = plainOk(text) && random() < 0.4;
  return pick(random, usePlain ? forms.plain : forms.quoted)(quote(text), text);
}

/** The role word a kind takes after an ordinal or a quoted text ('' for plain text and mixed kinds). */
export function roleWord(kind: TargetKind | null): string {
  switch (kind) {
    case 'button': return 'button';
    case 'link': return 'link';
    case 'tab': return 'tab';
    case 'menu-item': return 'menu item';
    case 'heading': return 'heading';
    case 'cell': return 'cell';
    case 'column-header': return 'column header';
    case 'badge': return 'badge';
    case 'field': return 'field';
    case 'textarea': return 'text area';
    case 'dropdown': return 'dropdown';
    case 'checkbox': return 'checkbox';
    case 'radio': return 'radio button';
    default: return '';
  }
}

export type FieldMode = 'label' | 'placeholder' | 'value';

export function describeField(random: Random, kind: TargetKind, mode: FieldMode, text: string): string {
  const q = quote(text);
  const plain = plainOk(text) && random() < 0.5;
  if (kind === 'checkbox') return plain ? `${text} checkbox` : `the ${q} checkbox`;
  if (kind === 'radio') return pick(random, [`the ${q} radio button`, `the ${q} radio`]);
  if (mode === 'value') {
    return kind === 'dropdown'
      ? pick(random, [`the dropdown showing ${q}`, `the ${q} dropdown`, `the select showing ${q}`])
      : pick(random, [`the field showing ${q}`, `the input with ${q}`]);
  }
  if (mode === 'placeholder') {
    const bare = text.replace(/[.…\s]+$/, '');
    return plainOk(bare) && random() < 0.4 ? `the ${bare} box` : pick(random, [`the ${q} field`, `the ${q} input`]);
  }
  if (kind === 'dropdown') return plain ? pick(random, [`the ${text} dropdown`, `${text} dropdown`]) : pick(random, [`the ${q} select`, `the ${q} dropdown`]);
  if (kind === 'textarea') return plain ? `the ${text} text area` : `the ${q} textarea`;
  return plain ? pick(random, [`the ${text} field`, `${text} input`, `the ${text} box`]) : pick(random, [`the ${q} field`, `the ${q} input`]);
}

export const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

export function describeOrdinal(random: Random, rank: number, count: number, text: string, role: string): string | null {
  const word = rank === count - 1 && random() < 0.4 ? 'last' : ORDINALS[rank];
  if (!word) return null;
  const target = plainOk(text) && text.split(' ').length === 1 && role && random() < 0.3 ? text : quote(text);
  return `the ${word} ${target}${role ? ` ${role}` : ''}`;
}
