import type { Box } from '../../../types/screen';

/** Box arithmetic for clipping nodes to what contains them. */

export function intersect(a: Box, b: Box): Box | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

export function area(box: Box): number {
  return box.width * box.height;
}

export function contains(box: Box, x: number, y: number): boolean {
  return x >= box.x && y >= box.y && x < box.x + box.width && y < box.y + box.height;
}

export function centre(box: Box): { x: number; y: number } {
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** How well two boxes coincide: the shared area over the combined area, 0 to 1. */
export function overlapRatio(a: Box, b: Box): number {
  const shared = intersect(a, b);
  if (!shared) return 0;
  return area(shared) / (area(a) + area(b) - area(shared));
}

/** Whether `inner` lies wholly inside `outer`. */
export function within(inner: Box, outer: Box): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
}

/** Both boxes' extent; an empty box (an embedded object's mark in a text) adds nothing. */
export function union(a: Box, b: Box): Box {
  if (area(a) <= 0) return b;
  if (area(b) <= 0) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}
