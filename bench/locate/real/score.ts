import type { Box, Category, Part, RealCase } from './types';

/**
 * Scoring: a positive is a hit when the click point (the centre of the box
 * found) lies inside one of the case's boxes; a negative when nothing is
 * found. An engine error or an overrun is a miss, with its error kept.
 */
export interface Found {
  box: Box | null;
  text?: string | null;
  rejection?: string | null;
}

export interface Outcome {
  case: RealCase;
  ok: boolean;
  got: string;
  error?: string;
  ms?: number;
}

export const clickPoint = (box: Box) => ({ x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) });

export function isHit(c: RealCase, found: Found | null): boolean {
  if (!found) return false;
  if (!c.boxes.length) return !found.box;
  if (!found.box) return false;
  const p = clickPoint(found.box);
  return c.boxes.some((b) => p.x >= b.x && p.x < b.x + b.width && p.y >= b.y && p.y < b.y + b.height);
}

export function judge(c: RealCase, found: Found | null, error?: string, ms?: number): Outcome {
  if (error) return { case: c, ok: false, got: `error: ${error}`, error, ms };
  const got = found?.box ? `${clickPoint(found.box).x},${clickPoint(found.box).y} (${found.text ?? ''})` : `not found${c.boxes.length && found?.rejection ? ` (${found.rejection})` : ''}`;
  return { case: c, ok: isHit(c, found), got, ms };
}

export interface Tally { cases: number; hits: number; accuracy: number }

export function tally(outcomes: Outcome[]): Tally {
  const hits = outcomes.filter((o) => o.ok).length;
  return { cases: outcomes.length, hits, accuracy: outcomes.length ? Math.round((hits / outcomes.length) * 1000) / 10 : NaN };
}

export function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

export const CATEGORIES: Category[] = ['text', 'field', 'ordinal', 'negative'];
export const PARTS: Part[] = ['held', 'tune'];

export interface Summary {
  byPart: Record<string, { all: Tally; byCategory: Record<string, Tally>; byResolution: Record<string, Tally> }>;
  bySource: Record<string, { part: Part; all: Tally; byCategory: Record<string, Tally> }>;
  byKind: Record<string, Record<string, Tally>>;
  lightOnDark: Record<string, Tally>;
  errors: number;
}

export function summarise(outcomes: Outcome[]): Summary {
  const per = (items: Outcome[], key: (o: Outcome) => string) => Object.fromEntries([...groupBy(items, key)].map(([k, v]) => [k, tally(v)]));
  const byPart: Summary['byPart'] = {};
  for (const [part, items] of groupBy(outcomes, (o) => o.case.part)) {
    byPart[part] = { all: tally(items), byCategory: per(items, (o) => o.case.category), byResolution: per(items, (o) => o.case.resolution) };
  }
  const bySource: Summary['bySource'] = {};
  for (const [source, items] of groupBy(outcomes, (o) => o.case.source)) {
    bySource[source] = { part: items[0].case.part, all: tally(items), byCategory: per(items, (o) => o.case.category) };
  }
  const byKind: Summary['byKind'] = {};
  for (const [category, items] of groupBy(outcomes, (o) => o.case.category)) byKind[category] = per(items, (o) => o.case.kind);
  const text = outcomes.filter((o) => o.case.category === 'text');
  const lightOnDark = per(text, (o) => (o.case.lightOnDark ? 'light on dark or colour' : 'dark on light'));
  return { byPart, bySource, byKind, lightOnDark, errors: outcomes.filter((o) => o.error).length };
}
