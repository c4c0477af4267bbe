import type { Box } from '../types/screen';

/** Boxes on the screen, and the spatial relations descriptions use. */
export type { Box };

export const right = (b: Box) => b.x + b.width;
export const bottom = (b: Box) => b.y + b.height;
export const centerX = (b: Box) => b.x + b.width / 2;
export const centerY = (b: Box) => b.y + b.height / 2;

export function union(a: Box, b: Box): Box {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(right(a), right(b)) - x, height: Math.max(bottom(a), bottom(b)) - y };
}

export function pad(b: Box, by: number, limits?: { width: number; height: number }): Box {
  const x = Math.max(0, b.x - by);
  const y = Math.max(0, b.y - by);
  const r = limits ? Math.min(limits.width, right(b) + by) : right(b) + by;
  const d = limits ? Math.min(limits.height, bottom(b) + by) : bottom(b) + by;
  return { x, y, width: r - x, height: d - y };
}

export function contains(b: Box, x: number, y: number): boolean {
  return x >= b.x && x < right(b) && y >= b.y && y < bottom(b);
}

/** How far a point stands from a box: 0 inside it. */
export function distanceTo(b: Box, x: number, y: number): number {
  return Math.hypot(Math.max(b.x - x, 0, x - right(b)), Math.max(b.y - y, 0, y - bottom(b)));
}

/**
 * Whether `inner` lies inside `outer`: a range outside its node is scrolled
 * out of sight. A large font's glyphs stand a little above and below a line
 * box set tighter than the font: a fifth of the text's height is slack.
 */
export function textWithin(inner: Box, outer: Box): boolean {
  const slack = Math.max(1, Math.round(inner.height / 5));
  return inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.x + inner.width <= outer.x + outer.width + slack && inner.y + inner.height <= outer.y + outer.height + slack;
}

/** How much two boxes overlap vertically, as a share of the shorter one. */
export function verticalOverlap(a: Box, b: Box): number {
  const overlap = Math.min(bottom(a), bottom(b)) - Math.max(a.y, b.y);
  return Math.max(0, overlap) / Math.max(1, Math.min(a.height, b.height));
}

export function horizontalOverlap(a: Box, b: Box): number {
  const overlap = Math.min(right(a), right(b)) - Math.max(a.x, b.x);
  return Math.max(0, overlap) / Math.max(1, Math.min(a.width, b.width));
}

export function distance(a: Box, b: Box): number {
  return Math.hypot(centerX(a) - centerX(b), centerY(a) - centerY(b));
}

/** Reading order: top to bottom by row (rows are boxes whose centres lie within half a height), then left to right. */
export function readingOrder<T extends { box: Box }>(items: T[]): T[] {
  return [...items].sort((a, b) => {
    const sameRow = Math.abs(centerY(a.box) - centerY(b.box)) < Math.max(6, Math.min(a.box.height, b.box.height) / 2);
    return sameRow ? a.box.x - b.box.x : centerY(a.box) - centerY(b.box);
  });
}
