import type { Candidate } from '../types/locate';
import { Box, bottom, centerX, centerY, distance, horizontalOverlap, right, verticalOverlap } from './geometry';
import type { Place, RelationKind } from './query';

/** Whether a box stands in a relation to an anchor ("right of", "below", "in the row of" …), as a person reads a screen. */
export function holdsRelation(b: Box, anchor: Box, kind: RelationKind): boolean {
  switch (kind) {
    case 'right-of': return b.x >= right(anchor) - 4 && verticalOverlap(b, anchor) > 0.3;
    case 'left-of': return right(b) <= anchor.x + 4 && verticalOverlap(b, anchor) > 0.3;
    case 'below': return b.y >= bottom(anchor) - 4 && (horizontalOverlap(b, anchor) > 0 || Math.abs(centerX(b) - centerX(anchor)) < 300);
    case 'above': return bottom(b) <= anchor.y + 4 && (horizontalOverlap(b, anchor) > 0 || Math.abs(centerX(b) - centerX(anchor)) < 300);
    case 'row': return Math.abs(centerY(b) - centerY(anchor)) <= Math.max(b.height, anchor.height, 16) * 0.75;
    case 'near': return distance(b, anchor) < 400;
  }
}

/** Keeps the candidates in the asked relation to the anchor (not the anchor itself), nearest first. */
export function relate(candidates: Candidate[], anchor: Box, kind: RelationKind): Candidate[] {
  return candidates.filter((c) => holdsRelation(c.box, anchor, kind) && !sameBox(c.box, anchor)).sort((a, b) => distance(a.box, anchor) - distance(b.box, anchor));
}

export function sameBox(a: Box, b: Box): boolean {
  return Math.abs(a.x - b.x) < 3 && Math.abs(a.y - b.y) < 3 && Math.abs(a.width - b.width) < 3;
}

/**
 * Whether a box stands where the description says: "in the sidebar", the
 * outer quarters across (the outer fifths in the top bar's row); "in the top
 * bar", the top 15%; "in the footer", the bottom 15%.
 */
export function standsIn(box: Box, place: Place, screen: { width: number; height: number }): boolean {
  if (place === 'side') {
    // Near the top, only the outer fifth: a top bar's first links stand in the outer quarter too.
    const outer = centerY(box) > screen.height * 0.08 ? 0.25 : 0.2;
    return centerX(box) < screen.width * outer || centerX(box) > screen.width * (1 - outer);
  }
  if (place === 'top') return centerY(box) < screen.height * 0.15;
  return centerY(box) > screen.height * 0.85;
}

/** The items standing in the place, or all of them when none does: a place ranks, it never hides. */
export function inPlace<T extends { box: Box }>(items: T[], place: Place | undefined, screen: { width: number; height: number }): T[] {
  if (!place) return items;
  const there = items.filter(({ box }) => standsIn(box, place, screen));
  return there.length ? there : items;
}
