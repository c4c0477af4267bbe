import type { Box } from './screen';

/**
 * What locating produces, from an engine's candidate up to the plain,
 * serialisable result the Service hands the Client.
 */
export interface Candidate {
  box: Box;
  text?: string;
  /** 0-1. */
  confidence: number;
  engine: string;
  /** Why this box: what was read where, and how the box was derived. */
  reason: string;
  /** Where the evidence was seen (for OCR, the words read), which verify re-checks. */
  evidence?: Box;
  /** A readable address of the element where the engine has one (the accessibility tree's role and name). */
  selector?: string;
  /** A model's own answer, as it wrote it, where a model answered. */
  aiResponse?: string;
  /** A desktop program itself says this text is drawn in this box (the tree's Text interface, outside web pages, whose boxes lag a scroll): the pixels need not confirm it. */
  drawnHere?: boolean;
}

/** What one vision-model call cost: recorded per call, emitted as `ai:usage`, summed in the report. */
export interface ModelCall {
  model: string;
  /** What the call was for. */
  purpose: 'locate' | 'locate-all' | 'zoom' | 'verify' | 'assert' | 'name';
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Time spent waiting for the model (every try, not the pauses between them). */
  latencyMs: number;
  /** Tries it took: 1 unless a failure was retried. */
  attempts: number;
  /** The model's answer (shortened). */
  answer: string;
}

export interface CacheInfo {
  hit: boolean;
  /** `absent`: the element was found absent on this same screen before (a look that expected nothing there). */
  strategy: 'pixel-diff' | 'template-match' | 'absent' | 'miss';
  createdAt: string;
  diffPercent: number | null;
  imageUrl: string | null;
}

/** One located element, as the Service returns it: no pixels but a small PNG crop. */
export interface LocatedElement {
  box: Box;
  text: string | null;
  confidence: number;
  engine: string;
  reason: string;
  selector: string | null;
  /** Base64 PNG of the element's crop. */
  crop: string | null;
  /** The model's answer, when a vision model located the element. */
  aiResponse: string | null;
}

/** The answer to a find: serialisable, with no raw screen and no functions. */
export interface LocateResult {
  /** The description as the engines got it (with the `type` hint applied). */
  description: string;
  element: LocatedElement | null;
  /** The best candidate seen, also when it was rejected. */
  best: { box: Box; text: string | null; confidence: number } | null;
  /** Why nothing was found: the whole not-found message; null when found. */
  notFound: string | null;
  /** The engine that answered, or the engines tried when none did. */
  engine: string;
  attempts: number;
  elapsedMs: number;
  cache: CacheInfo;
  similarity: number | null;
  /** Where the not-found screenshot was written, when one was. */
  debugScreenshot: string | null;
  /** Every vision-model call the find made (none on a cache hit). */
  modelCalls: ModelCall[];
  /** The model's last answer (its reason, when it found nothing). */
  aiResponse: string | null;
  /** Where the find's time went, in ms. */
  phases: { capture: number; cache: number; engine: number; change: number };
}

/** The answer to a findAll: every match in reading order. */
export interface LocateAllResult {
  description: string;
  elements: LocatedElement[];
  cache: CacheInfo;
  similarity: number | null;
  /** Why the engines could not answer at all (a refusal), when they could not. */
  refusal: string | null;
  modelCalls: ModelCall[];
}

/** The judgement of an assert(): plain data; the Client turns a failed one into an AssertionError. */
export interface AssertResult {
  passed: boolean;
  reason: string;
  /** `vision` (a model's judgement), the engines that read the quoted text, or `cache`. */
  engine: string;
  cache: CacheInfo;
  modelCalls: ModelCall[];
  elapsedMs: number;
}
