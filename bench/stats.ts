import fs from 'fs';
import path from 'path';

/** One benchmark figure: the samples, their median, and an optional target and baseline. */
export interface Figure {
  name: string;
  unit: 'ms' | 'MB';
  median: number;
  p90: number;
  p95: number;
  samples: number;
  target?: string;
  /** Median of this figure divided by the median of the named baseline, measured in the same run. */
  ratio?: { baseline: string; value: number };
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.ceil(at)] - sorted[low]) * (at - low);
}

/** Times `run` `count` times (after `warmup` untimed runs) and returns the samples in ms. */
export async function sample(count: number, run: () => Promise<unknown>, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times;
}

export function figure(name: string, times: number[], target?: string, unit: Figure['unit'] = 'ms'): Figure {
  return { name, unit, median: round(median(times)), p90: round(quantile(times, 0.9)), p95: round(quantile(times, 0.95)), samples: times.length, target };
}

export function withRatio(f: Figure, baseline: Figure): Figure {
  return { ...f, ratio: { baseline: baseline.name, value: round(f.median / baseline.median, 3) } };
}

const round = (v: number, digits = 1) => Number(v.toFixed(digits));

export function printTable(title: string, figures: Figure[]): void {
  const rows = figures.map((f) => [f.name, `${f.median}${f.unit === 'ms' ? '' : ` ${f.unit}`}`, `${f.p90}${f.unit === 'ms' ? '' : ` ${f.unit}`}`, `${f.p95}${f.unit === 'ms' ? '' : ` ${f.unit}`}`, `${f.samples}`, f.target ?? '', f.ratio ? `${f.ratio.value}x ${f.ratio.baseline}` : '']);
  const header = ['figure', 'median ms', 'p90 ms', 'p95 ms', 'n', 'target', 'ratio'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

export function writeResults(name: string, figures: Figure[]): string {
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ suite: name, measuredAt: new Date().toISOString(), node: process.version, figures }, null, 2));
  return file;
}
