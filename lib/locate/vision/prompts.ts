/**
 * The two questions that are the same for every family: does the marked
 * element match (verify), and is a statement about the screen true (assert).
 * Both answer in JSON with a reason; both are read tolerantly.
 */
import { extractJson } from './answer';

export interface Judgement {
  yes: boolean;
  reason: string;
}

export function verifyPrompt(description: string): string {
  return `This is part of a screenshot. A magenta rectangle marks one element on it. Does the marked element match the description "${description.replace(/"/g, "'")}"? `
    + 'Look only at what the rectangle marks. Answer with JSON only: {"match": true or false, "reason": "<one short sentence>"}.';
}

export function assertPrompt(statement: string): string {
  return `This is a screenshot of an application. Is this statement about it true: "${statement.replace(/"/g, "'")}"? `
    + 'Judge only what the screenshot shows. Answer with JSON only: {"verdict": true or false, "reason": "<one short sentence saying what you see>"}.';
}

/** The recorder's question for an element with no words: what a tester would call it. */
export function namePrompt(): string {
  return 'This is part of a screenshot. A magenta rectangle marks the element a person clicked. Name it as a tester would in a test step, '
    + 'by what it shows, in at most five words: for example "the gear icon", "the red trash can icon", "the profile picture". '
    + 'Answer with JSON only: {"name": "<the words>"}.';
}

/** The most words a name may have: more is a sentence, not a name. */
const NAME_WORDS = 6;

/** The name from an answer (JSON, or a bare line), without a leading "the": `gear icon`; null when there is none to use. */
export function readName(answer: string): string | null {
  const json = extractJson(answer);
  const raw = json && typeof json === 'object' && !Array.isArray(json) && typeof (json as Record<string, unknown>).name === 'string'
    ? (json as { name: string }).name : answer.split('\n')[0];
  const words = raw.replace(/["'`.]/g, ' ').trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length || words.length > NAME_WORDS || words.some((w) => !/^[\p{L}\p{N}-]+$/u.test(w))) return null;
  const name = words[0] === 'the' ? words.slice(1) : words;
  return name.length ? name.join(' ') : null;
}

/** A yes or no with its reason, from JSON or from plain words; null when the answer says neither. */
export function readJudgement(answer: string): Judgement | null {
  const json = extractJson(answer);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const value = o.match ?? o.verdict ?? o.answer ?? o.result ?? o.passed ?? o.true;
    const yes = truth(value);
    if (yes !== null) return { yes, reason: typeof o.reason === 'string' && o.reason.trim() ? o.reason.trim() : String(value) };
  }
  const word = /^\W*(yes|no|true|false)\b[\s.,:;-]*(.*)$/is.exec(answer.trim());
  if (word) return { yes: /^(yes|true)$/i.test(word[1]), reason: word[2].trim() || word[1] };
  return null;
}

function truth(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (/^(yes|true|match|matches|pass|passed|correct)$/i.test(value.trim())) return true;
    if (/^(no|false|mismatch|fail|failed|incorrect)$/i.test(value.trim())) return false;
  }
  return null;
}
