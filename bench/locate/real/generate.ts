import type { Box, Category, Part, RealCase, ScreenSnapshot, SeenElement } from './types';
import { describeField, describeOrdinal, describeText, FieldMode, ORDINALS, quote, Random, roleWord, seeded, shuffle, textKind } from './phrase';
import { absentLabel, nearMiss } from './negatives';

/**
 * Turns what one screen shows into locate cases: text targets (one of each
 * kind in turn), fields by label, placeholder or shown value, ordinals over
 * text that repeats, and negatives. A positive is made only where its
 * description picks out one thing a person could point at: the text shows
 * once (or, for an ordinal, every copy is counted), and the label of a field
 * shows once.
 */
export interface ScreenFacts {
  id: string;
  source: string;
  part: Part;
  width: number;
  height: number;
}

/** How many cases of each category one screen gives at most. */
export const PER_SCREEN = { text: 10, field: 5, ordinal: 3, negative: 3 };

const key = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
/** Two boxes are one copy of a text when they mostly cover each other; table rows that touch by a pixel are two. */
const overlaps = (a: Box, b: Box) => {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 && w * h >= 0.5 * Math.min(a.width * a.height, b.width * b.height);
};
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const FIELD_KINDS = new Set(['field', 'textarea', 'dropdown', 'checkbox', 'radio']);

interface Instance { text: string; box: Box; element: SeenElement | null; inField: boolean; unsure: boolean }

/** Copies of each text on screen: runs and named elements that overlap are one copy. */
function instancesByText(snapshot: ScreenSnapshot): Map<string, Instance[]> {
  const byKey = new Map<string, Instance[]>();
  const add = (text: string, box: Box, element: SeenElement | null, inField = false, unsure = false) => {
    const list = byKey.get(key(text)) ?? [];
    const same = list.find((i) => overlaps(i.box, box));
    if (same) {
      if (element && !same.element) Object.assign(same, { box: element.box, element });
      return;
    }
    list.push({ text, box, element, inField, unsure });
    byKey.set(key(text), list);
  };
  for (const e of snapshot.elements) if (!FIELD_KINDS.has(e.kind)) add(e.text, e.box, e);
  // A field's shown label is a copy too: two radios labelled 'Radio is on' make neither label unique.
  for (const e of snapshot.elements) if (FIELD_KINDS.has(e.kind) && e.text && e.labelBox) add(e.text, e.labelBox, null);
  for (const t of snapshot.texts) add(t.text, t.box, null, !!t.inField, !!t.unsure);
  return byKey;
}

/** Reading order: lines top to bottom (boxes whose middles are within half a height share a line), then left to right. */
export function readingOrder<T extends { box: Box }>(items: T[]): T[] {
  const mid = (b: Box) => b.y + b.height / 2;
  const sorted = [...items].sort((a, b) => mid(a.box) - mid(b.box));
  const lines: T[][] = [];
  for (const item of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(mid(line[0].box) - mid(item.box)) < Math.min(line[0].box.height, item.box.height) / 2) line.push(item);
    else lines.push([item]);
  }
  return lines.flatMap((line) => line.sort((a, b) => a.box.x - b.box.x));
}

/** True when another text on screen holds this one as whole words (so "the second 'Edit'" could count "Edit profile"). */
function containedElsewhere(text: string, byKey: Map<string, Instance[]>): boolean {
  const k = key(text);
  const word = new RegExp(`(^|\\W)${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|\\W)`);
  for (const other of byKey.keys()) if (other !== k && word.test(other)) return true;
  return false;
}

/**
 * What the screenshot shows of a snapshot: an element or a text whose text
 * (its box, where the page does not say) has no ink on its background (white
 * text on white, a button under an opaque fixed navbar the page does not
 * report as covering it), or whose text colour is its background's, is not
 * on the screen. Its words stay in allText, so
 * no negative names them.
 */
/** A text colour this close to its background's luminance shows nothing. */
const INVISIBLE = 0.05;

export function seenOnly(snapshot: ScreenSnapshot, inked: (box: Box) => boolean, background?: (box: Box) => number): ScreenSnapshot {
  // Text in its background's own colour (white digits on a pager's white dots) is not shown, whatever ink lies round it.
  const ownColour = (e: SeenElement) => !!background && !!e.textBox && e.ink !== undefined && Math.abs(e.ink - background(e.textBox)) < INVISIBLE;
  return {
    elements: snapshot.elements.filter((e) => FIELD_KINDS.has(e.kind) ? !e.labelBox || inked(e.labelBox) : inked(e.textBox ?? e.box) && !ownColour(e)),
    texts: snapshot.texts.filter((t) => t.inField || inked(t.textBox ?? t.box)),
    allText: snapshot.allText,
  };
}

export function generateCases(screen: ScreenFacts, snapshot: ScreenSnapshot, background: (box: Box) => number): RealCase[] {
  const random = seeded(screen.id);
  const byKey = instancesByText(snapshot);
  const cases: RealCase[] = [];
  const resolution = `${screen.width}x${screen.height}`;
  const add = (category: Category, kind: string, description: string, boxes: Box[], lightOnDark?: boolean) => {
    cases.push({ id: `${screen.id}#${cases.length + 1}`, screen: screen.id, source: screen.source, part: screen.part, resolution, category, kind, description, boxes, ...(lightOnDark === undefined ? {} : { lightOnDark }) });
  };
  const unique = (text: string) => (byKey.get(key(text))?.length ?? 0) === 1;
  const usable = (text: string) => !!text && !PICTOGRAPH.test(text) && /[\p{L}\p{N}]/u.test(text) && text.length <= 40;
  const lightOnDark = (e: SeenElement) => (e.ink ?? 0) > background(e.box) + 0.25;

  // Text targets: one of each kind in turn, so no kind crowds out the others.
  const byKind = new Map<string, SeenElement[]>();
  for (const e of snapshot.elements) {
    if (FIELD_KINDS.has(e.kind) || !usable(e.text) || !unique(e.text)) continue;
    const kind = textKind(e.kind, e.region);
    byKind.set(kind, [...(byKind.get(kind) ?? []), e]);
  }
  const queues = [...byKind.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([kind, list]) => ({ kind, list: shuffle(random, list) }));
  for (let taken = 0; taken < PER_SCREEN.text && queues.some((q) => q.list.length);) {
    for (const q of queues) {
      const e = q.list.shift();
      if (!e || taken >= PER_SCREEN.text) continue;
      add('text', q.kind, describeText(random, q.kind, e.text), [e.box], lightOnDark(e));
      taken++;
    }
  }

  // Fields: by the label a person sees, by the placeholder, by the value shown.
  const fieldOptions: { e: SeenElement; mode: FieldMode; text: string }[] = [];
  for (const e of snapshot.elements.filter((x) => FIELD_KINDS.has(x.kind))) {
    if (usable(e.text) && unique(e.text)) fieldOptions.push({ e, mode: 'label', text: e.text });
    if (e.placeholder && usable(e.placeholder) && unique(e.placeholder)) fieldOptions.push({ e, mode: 'placeholder', text: e.placeholder });
    if (e.value && usable(e.value) && unique(e.value)) fieldOptions.push({ e, mode: 'value', text: e.value });
  }
  // One mode in turn (label, placeholder, value), each field once.
  const usedFields = new Set<SeenElement>();
  const modes = (['label', 'placeholder', 'value'] as FieldMode[]).map((mode) => shuffle(random, fieldOptions.filter((o) => o.mode === mode)));
  while (usedFields.size < PER_SCREEN.field && modes.some((m) => m.length)) {
    for (const list of modes) {
      let option = list.shift();
      while (option && usedFields.has(option.e)) option = list.shift();
      if (!option || usedFields.size >= PER_SCREEN.field) continue;
      usedFields.add(option.e);
      add('field', `${option.e.kind} by ${option.mode}`, describeField(random, option.e.kind, option.mode, option.text), [option.e.box, ...(option.e.alsoHits ?? [])]);
    }
  }

  // Ordinals: text shown two or more times, every copy counted in reading order; not over fields' contents,
  // nor where a copy is cut by the screen's edge or may not show (whether a person counts it is anyone's guess).
  const whole = (b: Box) => b.x >= 0 && b.y >= 0 && b.x + b.width <= screen.width && b.y + b.height <= screen.height;
  const repeated = shuffle(random, [...byKey.entries()].filter(([k, list]) => list.length >= 2 && !list.some((i) => i.inField || i.unsure) && list.every((i) => whole(i.box)) && list.length <= ORDINALS.length && usable(list[0].text) && !containedElsewhere(k, byKey)));
  for (const [, list] of repeated.slice(0, PER_SCREEN.ordinal)) {
    const ordered = readingOrder(list);
    const kinds = new Set(ordered.map((i) => i.element?.kind ?? null));
    const role = kinds.size === 1 ? roleWord([...kinds][0]) : '';
    const rank = Math.floor(random() * ordered.length);
    const description = describeOrdinal(random, rank, ordered.length, ordered[rank].text, role);
    if (description) add('ordinal', role ? `ordinal ${role}` : 'ordinal text', description, [ordered[rank].box]);
  }

  // Negatives: an absent label, a near miss of a present text, an ordinal past the last copy.
  const negatives: string[] = [];
  const usedAbsent = new Set<string>();
  const present = shuffle(random, snapshot.elements.filter((e) => !FIELD_KINDS.has(e.kind) && usable(e.text)));
  for (const e of present) {
    const miss = nearMiss(random, e.text, snapshot.allText);
    if (!miss) continue;
    const role = roleWord(e.kind);
    negatives.push(`near miss|${role ? `the ${quote(miss)} ${role}` : quote(miss)}`);
    break;
  }
  const beyond = repeated[0];
  if (beyond && beyond[1].length < ORDINALS.length) {
    const list = beyond[1];
    const kinds = new Set(list.map((i) => i.element?.kind ?? null));
    const role = kinds.size === 1 ? roleWord([...kinds][0]) : '';
    negatives.push(`past the last|the ${ORDINALS[list.length]} ${quote(list[0].text)}${role ? ` ${role}` : ''}`);
  }
  while (negatives.length < PER_SCREEN.negative) {
    const absent = absentLabel(random, snapshot.allText, usedAbsent);
    if (!absent) break;
    negatives.push(`absent|${absent.description}`);
  }
  for (const n of negatives.slice(0, PER_SCREEN.negative)) {
    const [kind, description] = n.split('|');
    add('negative', kind, description, []);
  }
  return cases;
}
