/** The middle value (the upper one of an even count), or `empty` when there are none. */
export function median(values: number[], empty = 0): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? empty;
}
