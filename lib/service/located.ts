import type { Screen } from '../types/screen';
import type { Candidate, LocatedElement } from '../types/locate';
import { cropPng } from '../image/crop';

/** A candidate as the Client gets it: the box, what was read, and a small PNG of the element. */
export function located(candidate: Candidate, screen: Screen): LocatedElement {
  const crop = cropPng(screen, candidate.box);
  return {
    box: { ...candidate.box }, text: candidate.text ?? null, confidence: candidate.confidence, engine: candidate.engine,
    reason: candidate.reason, selector: candidate.selector ?? null, crop: crop ? crop.toString('base64') : null,
    aiResponse: candidate.aiResponse ?? null,
  };
}
