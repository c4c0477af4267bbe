import type { Candidate } from '../types/locate';
import type { EngineContext, LocateEngine } from './engine';
import type { Query } from './query';
import { containsText, similarity } from './text-match';

/**
 * A model can point at the wrong thing with confidence. Where a description
 * quotes text, its boxes are checked against what the accessibility tree and
 * OCR read there: agreement raises the confidence, and a box where they read
 * other text is dropped. The evidence decides, not whoever answered first.
 */
export interface CrossChecked {
  kept: Candidate[];
  /** Why boxes were dropped: which engine read what where. */
  contradictions: string[];
}

const CONFIRMED_CONFIDENCE = 0.97;
/** OCR may misread; only a clear, different reading (letters, and little like the text asked for) counts against a box. */
const OCR_CLEARLY_OTHER = 0.5;

export async function crossCheck(candidates: Candidate[], query: Query, context: EngineContext, witnesses: LocateEngine[]): Promise<CrossChecked> {
  const wanted = query.text;
  const readers = witnesses.filter((w) => w.readText);
  if (!wanted || !readers.length || context.crop) return { kept: candidates, contradictions: [] };
  const kept: Candidate[] = [];
  const contradictions: string[] = [];
  for (const candidate of candidates) {
    const verdict = await judgeBox(candidate, wanted, context, readers);
    if (verdict.kind === 'contradicted') contradictions.push(verdict.note);
    else if (verdict.kind === 'confirmed') kept.push({ ...candidate, confidence: Math.max(candidate.confidence, CONFIRMED_CONFIDENCE), text: candidate.text ?? verdict.text, reason: `${candidate.reason}; ${verdict.note}` });
    else kept.push(candidate);
  }
  return { kept, contradictions };
}

type BoxVerdict = { kind: 'confirmed' | 'contradicted'; note: string; text: string } | { kind: 'unknown' };

async function judgeBox(candidate: Candidate, wanted: string, context: EngineContext, readers: LocateEngine[]): Promise<BoxVerdict> {
  const { x, y } = candidate.box;
  for (const reader of readers) {
    const read = await reader.readText!(context, candidate.box).catch(() => null);
    if (read === null || !/\p{L}{2}/u.test(read)) continue; // nothing readable there: no evidence either way
    if (containsText(read, wanted) || containsText(wanted, read)) return { kind: 'confirmed', text: read, note: `${reader.name} reads '${read}' there` };
    const exact = reader.name !== 'ocr';
    if (exact || similarity(read, wanted) < OCR_CLEARLY_OTHER) {
      return { kind: 'contradicted', text: read, note: `the vision model pointed at ${x},${y}, where ${reader.name} reads '${read}', not '${wanted}'` };
    }
  }
  return { kind: 'unknown' };
}
