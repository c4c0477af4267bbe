import type { Candidate } from '../types/locate';
import type { Box } from '../types/screen';
import { EngineContext, LocateEngine, ScreenMoved } from './engine';
import type { Query } from './query';
import { containsText, similarity } from './text-match';
import { quotedTexts } from '../util/quotes';

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
  const wanted = quotedText(query);
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

/** The text a description quotes ("the 'Layers' label", `The text "Saved"`); null for plain words ("the red banner"), which name no text to read. */
function quotedText(query: Query): string | null {
  if (!query.text) return null;
  if (query.hint === 'text') return query.text;
  const quoted = quotedTexts(query.description).map((q) => q.toLowerCase());
  return quoted.some((q) => q.includes(query.text!.toLowerCase())) ? query.text : null;
}

/** The box three times its size around its centre, inside the screen. */
function grow(box: Box, screen: { width: number; height: number }): Box {
  const x = Math.max(0, box.x - box.width);
  const y = Math.max(0, box.y - box.height);
  return { x, y, width: Math.min(screen.width - x, box.width * 3), height: Math.min(screen.height - y, box.height * 3) };
}

type BoxVerdict = { kind: 'confirmed' | 'contradicted'; note: string; text: string } | { kind: 'unknown' };

async function judgeBox(candidate: Candidate, wanted: string, context: EngineContext, readers: LocateEngine[]): Promise<BoxVerdict> {
  const { x, y } = candidate.box;
  for (const reader of readers) {
    const read = await reader.readText!(context, candidate.box).catch(() => null);
    if (read === null || !/\p{L}{2}/u.test(read)) continue; // nothing readable there: no evidence either way
    // The same reading over a much larger box belongs to something around it (a window, a page), not to this element.
    const around = await reader.readText!(context, grow(candidate.box, context.screen)).catch(() => null);
    if (around === read) continue;
    if (containsText(read, wanted) || containsText(wanted, read)) return { kind: 'confirmed', text: read, note: `${reader.name} reads '${read}' there` };
    const exact = reader.name !== 'ocr';
    if (exact || similarity(read, wanted) < OCR_CLEARLY_OTHER) {
      return { kind: 'contradicted', text: read, note: `the vision model pointed at ${x},${y}, where ${reader.name} reads '${read}', not '${wanted}'` };
    }
  }
  return { kind: 'unknown' };
}

/** A role word lets a control answer to its name, drawn or not (see wantsShownText in a11y/match.ts). */
const namedByRole = (query: Query) => query.role !== null && query.role !== 'text';
/** The size of a toolbar's icon button: too small to show a name beside its icon. */
const ICON_SIDE = 48;
const iconSized = (box: Box) => box.width <= ICON_SIDE && box.height <= ICON_SIDE;

/**
 * The tree can be a moment behind the screen (Chromium moves boxes after a
 * scroll lazily): a box it gives for quoted text is read back cheaply from
 * the pixels, and dropped when they clearly show other text. Nothing legible
 * (an icon, a blurred font) is no evidence either way.
 *
 * The tree can also be ahead of the pixels: it is read after the capture,
 * and the screen may have moved since. A box the pixels show the words in
 * needs nothing more; any other is kept or refused only while the screen
 * still shows what was captured, and otherwise the find looks again.
 */
export async function confirmOnPixels(candidates: Candidate[], query: Query, context: EngineContext, readers: LocateEngine[]): Promise<Candidate[]> {
  let looked: Promise<boolean> | undefined;
  const requireStill = async () => {
    if (await (looked ??= context.stale?.check() ?? Promise.resolve(false))) throw new ScreenMoved();
  };
  const wanted = quotedText(query) ?? (query.role === 'text' || query.role === null ? query.text : null);
  const reader = readers.find((r) => r.readBox);
  if (!wanted || !reader || context.crop) {
    await requireStill();
    return candidates;
  }
  const kept: Candidate[] = [];
  for (const candidate of candidates) {
    // Only boxes whose own text is what was asked.
    // Not an icon's box asked for by its name with a role word ("the 'Go Up' button"): the name is not drawn there.
    // Nor words a desktop program places through its Text interface: it draws them, so it knows where.
    if (candidate.drawnHere || candidate.text === undefined || !containsText(candidate.text, wanted) || (namedByRole(query) && iconSized(candidate.box))) {
      await requireStill();
      kept.push(candidate);
      continue;
    }
    // Read where the words are drawn: a field found by its label shows its value in its box, and the label beside it.
    const read = await reader.readBox!(context, candidate.evidence ?? candidate.box).catch(() => undefined);
    const shown = typeof read === 'string' && /[\p{L}\p{N}]{2}/u.test(read) && (containsText(read, wanted) || containsText(wanted, read));
    if (shown) {
      kept.push(candidate);
      continue;
    }
    await requireStill();
    // A few letters are no evidence: OCR reads a small button's 'OK' as '@ox'. A stale box shows a whole other word.
    // Part of the name is no contradiction either: a logo's alt text is in a link's name, not in its pixels.
    const clearlyOther = typeof read === 'string' && /\p{L}{4}/u.test(read) && similarity(read, wanted) < OCR_CLEARLY_OTHER;
    if (!clearlyOther) kept.push(candidate);
  }
  return kept;
}
