import { attachedTexts, CucumberJsonFeature } from './session-facts';

/**
 * What the vision model cost a run: each scenario attaches its sum of the
 * `ai:usage` events as a text line, and the report adds them up per feature
 * and for the whole run.
 */
export const MODEL_USAGE = 'Glance model usage: ';

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latencyMs: number;
}

export const noUsage = (): UsageTotals => ({ calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, latencyMs: 0 });

/** Adds one call (an `ai:usage` event) to the totals. */
export function addUsage(totals: UsageTotals, call: Omit<UsageTotals, 'calls'>): void {
  totals.calls++;
  totals.promptTokens += call.promptTokens;
  totals.completionTokens += call.completionTokens;
  totals.totalTokens += call.totalTokens;
  totals.latencyMs += call.latencyMs;
}

export function usageText(totals: UsageTotals): string {
  return MODEL_USAGE + Object.entries({ ...totals, latencyMs: Math.round(totals.latencyMs) }).map(([key, value]) => `${key}=${value}`).join('; ');
}

/** The sum of every usage line the scenarios of these features attached. */
export function sumUsage(features: CucumberJsonFeature[]): UsageTotals {
  const totals = noUsage();
  for (const text of attachedTexts(features, MODEL_USAGE)) {
    for (const pair of text.split('; ')) {
      const [key, value] = pair.split('=');
      if (key in totals) totals[key as keyof UsageTotals] += Number(value) || 0;
    }
  }
  return totals;
}

/** `3 calls, 2,710 tokens (2,700 in, 10 out), 1.2 s waiting`, or `none`. */
export function describeUsage(totals: UsageTotals): string {
  if (!totals.calls) return 'none';
  const n = (v: number) => v.toLocaleString('en-US');
  return `${n(totals.calls)} call(s), ${n(totals.totalTokens)} tokens (${n(totals.promptTokens)} in, ${n(totals.completionTokens)} out), ${(totals.latencyMs / 1000).toFixed(1)} s waiting`;
}
