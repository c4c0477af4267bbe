import { InvalidOptionError } from './errors';

/**
 * The vision model Glance talks to: any OpenAI-compatible chat completions
 * endpoint (a hosted model, vLLM, Ollama), read from the environment. Checked
 * in the Client's constructor, like an option, and named by its variable.
 */

/** How a model family writes coordinates; lib/locate/vision/families/ has one adapter per name. */
export const FAMILIES = ['pixels', 'qwen2.5-vl', 'norm-1000', 'gemini', 'ui-tars-1.0', 'ui-tars-1.5'] as const;
export type FamilyName = (typeof FAMILIES)[number];

export interface VisionModelSettings {
  baseURL: string;
  /** A secret: masked in logs, events and errors. Empty for servers that need none (a local vLLM or Ollama). */
  apiKey: string;
  model: string;
  family: FamilyName;
  /** True when the family was guessed from the model's name rather than set. */
  familyGuessed: boolean;
  /** Milliseconds one call may take. */
  timeoutMs: number;
  /** Further tries after a failed call (HTTP 5xx, 429, timeout, an answer that cannot be read). */
  retries: number;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_RETRIES = 3;

/** Model names, read loosely, and the convention their family answers in. First match wins. */
const GUESSES: [RegExp, FamilyName][] = [
  [/ui-?tars.*1\.5|ui-?tars-?1_5/i, 'ui-tars-1.5'],
  [/ui-?tars/i, 'ui-tars-1.0'],
  [/qwen2\.?5-?vl/i, 'qwen2.5-vl'],
  [/qwen3-?vl|qwen2-?vl|qwen-?vl|glm-?\d(\.\d)?v|glm.*vision|doubao|seed-?1\.[56]/i, 'norm-1000'],
  [/gemini|gemma-?3/i, 'gemini'],
];

/** The family a model's name suggests; `pixels` (absolute pixels, as GPT-style models answer) when the name says nothing. */
export function guessFamily(model: string): FamilyName {
  return GUESSES.find(([pattern]) => pattern.test(model))?.[1] ?? 'pixels';
}

/**
 * The model settings from the environment, or null when no model is set
 * (GLANCE_AI_MODEL unset): Glance then runs without a vision model.
 */
export function resolveVisionModel(env: NodeJS.ProcessEnv = process.env): VisionModelSettings | null {
  const model = env.GLANCE_AI_MODEL?.trim();
  if (!model) {
    for (const name of ['GLANCE_AI_BASE_URL', 'GLANCE_AI_FAMILY']) {
      if (env[name]) throw new InvalidOptionError(name, `${name} is set, but GLANCE_AI_MODEL is not: name the model to use, e.g. GLANCE_AI_MODEL=Qwen/Qwen2.5-VL-7B-Instruct.`);
    }
    return null;
  }
  const baseURL = (env.GLANCE_AI_BASE_URL || env.OPENAI_BASE_URL || DEFAULT_BASE_URL).trim();
  const baseName = env.GLANCE_AI_BASE_URL ? 'GLANCE_AI_BASE_URL' : 'OPENAI_BASE_URL';
  if (!/^https?:\/\/[^\s/]+/.test(baseURL)) {
    throw new InvalidOptionError(baseName, `Invalid ${baseName}: got '${baseURL}'; expected the http(s) URL of an OpenAI-compatible API, e.g. 'http://localhost:8000/v1' for vLLM or 'http://localhost:11434/v1' for Ollama.`);
  }
  const familyRaw = env.GLANCE_AI_FAMILY?.trim();
  if (familyRaw && !(FAMILIES as readonly string[]).includes(familyRaw)) {
    throw new InvalidOptionError('GLANCE_AI_FAMILY', `Invalid GLANCE_AI_FAMILY: got '${familyRaw}'; expected one of ${FAMILIES.map((f) => `'${f}'`).join(', ')} (or leave it unset to guess from the model name).`);
  }
  return {
    baseURL: baseURL.replace(/\/+$/, ''),
    apiKey: (env.GLANCE_AI_API_KEY || env.OPENAI_API_KEY || '').trim(),
    model,
    family: (familyRaw as FamilyName | undefined) ?? guessFamily(model),
    familyGuessed: !familyRaw,
    timeoutMs: integerVar(env, 'GLANCE_AI_TIMEOUT', DEFAULT_TIMEOUT_MS, 1, 'milliseconds one model call may take, e.g. 30000'),
    retries: integerVar(env, 'GLANCE_AI_RETRIES', DEFAULT_RETRIES, 0, 'further tries after a failed call, e.g. 3'),
  };
}

function integerVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, what: string): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new InvalidOptionError(name, `Invalid ${name}: got '${raw}'; expected a whole number >= ${min}: ${what}.`);
  return value;
}
