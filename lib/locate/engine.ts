import { Box } from './geometry';
import { Query } from './query';

/**
 * The one interface every locate engine implements. The find pipeline
 * (polling, zoom, verify, confidence) sits above it and is written once.
 */
export interface Screen {
  width: number;
  height: number;
  /** 4 bytes a pixel, in `format` order. */
  data: Buffer;
  format: 'bgrx' | 'rgba';
}

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
}

export interface Verdict {
  ok: boolean;
  confidence: number;
  reason: string;
}

export interface LocateEngine {
  readonly name: string;
  /** Best first for `find`; with `all`, every match in reading order for `findAll`. */
  locate(screen: Screen, query: Query, options?: { all?: boolean }): Promise<Candidate[]>;
  /** An independent second look at a located box. */
  verify?(screen: Screen, candidate: Candidate, query: Query): Promise<Verdict>;
  /** For a not-found message: the few texts on the screen nearest to what was asked, what a person would see instead. */
  seenInstead?(screen: Screen, query: Query): Promise<string[]>;
}

/** Thrown when an engine cannot answer a kind of description at all (polling would not help). */
export class LocateRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocateRefusal';
  }
}
