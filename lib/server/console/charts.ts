import { Html, escapeHtml, raw } from './html';

/**
 * Small SVG pictures drawn on the server from numbers: no script, no CDN,
 * and they print. Colours follow the outcome (pass, flaky, fail).
 */
export const COLOURS = { passed: '#2e9d5b', flaky: '#e0a100', failed: '#d0392b', other: '#9aa3ad', bar: '#3b6fd4' };

/** A horizontal bar split into outcome parts, sized by count. */
export function outcomeBar(parts: { passed: number; flaky: number; failed: number }, width = 160, height = 12): Html {
  const total = parts.passed + parts.flaky + parts.failed || 1;
  let x = 0;
  const rects = (['passed', 'flaky', 'failed'] as const).map((k) => {
    const w = (parts[k] / total) * width;
    const rect = w > 0 ? `<rect x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="${height}" fill="${COLOURS[k]}"><title>${parts[k]} ${k}</title></rect>` : '';
    x += w;
    return rect;
  });
  return raw(`<svg class="bar" width="${width}" height="${height}" role="img" aria-label="${parts.passed} passed, ${parts.flaky} flaky, ${parts.failed} failed">${rects.join('')}</svg>`);
}

/** One dot per run, newest first: the scenario's last outcomes at a glance. */
export function outcomeDots(outcomes: { outcome: keyof typeof COLOURS; runId: string }[]): Html {
  const dots = outcomes.map((o, i) => `<circle cx="${7 + i * 14}" cy="7" r="5" fill="${COLOURS[o.outcome]}"><title>${escapeHtml(o.runId)}: ${o.outcome}</title></circle>`);
  return raw(`<svg class="dots" width="${Math.max(14, outcomes.length * 14)}" height="14" role="img" aria-label="${outcomes.map((o) => o.outcome).join(', ')}">${dots.join('')}</svg>`);
}

/** A line of values over time (oldest left), for a duration trend. */
export function sparkline(values: number[], width = 120, height = 24): Html {
  if (values.length < 2) return raw('');
  const max = Math.max(...values) || 1;
  const points = values.map((v, i) => `${((i / (values.length - 1)) * (width - 2) + 1).toFixed(1)},${(height - 1 - (v / max) * (height - 2)).toFixed(1)}`);
  return raw(`<svg class="spark" width="${width}" height="${height}" role="img" aria-label="from ${Math.round(values[0])} to ${Math.round(values[values.length - 1])} ms"><polyline fill="none" stroke="${COLOURS.bar}" stroke-width="1.5" points="${points.join(' ')}"/></svg>`);
}

/** Labelled vertical bars, with the value above each. */
export function barChart(bars: { label: string; value: number; unit?: string }[], height = 140): Html {
  if (!bars.length) return raw('<p class="empty">No data yet.</p>');
  const max = Math.max(...bars.map((b) => b.value)) || 1;
  const step = 64;
  const body = bars.map((b, i) => {
    const h = (b.value / max) * (height - 40);
    const x = i * step + 12;
    return `<g><rect x="${x}" y="${(height - 20 - h).toFixed(1)}" width="40" height="${h.toFixed(1)}" fill="${COLOURS.bar}"/>`
      + `<text x="${x + 20}" y="${(height - 24 - h).toFixed(1)}" text-anchor="middle">${escapeHtml(formatValue(b.value))}${escapeHtml(b.unit ?? '')}</text>`
      + `<text x="${x + 20}" y="${height - 6}" text-anchor="middle">${escapeHtml(b.label.slice(0, 10))}</text></g>`;
  });
  return raw(`<svg class="chart" width="${bars.length * step + 24}" height="${height}" role="img">${body.join('')}</svg>`);
}

function formatValue(value: number): string {
  return value >= 100 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
}
