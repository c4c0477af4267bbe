import type { FamilyName } from '../../../config/vision';
import { coordsIn, notFoundReason } from '../answer';

/**
 * A coordinate family: how to ask a model of that family for an element,
 * and how to read its answer back into a box on the image that was sent.
 */
export interface Size {
  width: number;
  height: number;
}

/** A box as fractions (0-1) of the sent image; `point` when the model gave a point where a box was asked for. */
export interface FracBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  point: boolean;
}

export interface Reading {
  boxes: FracBox[];
  /** The model's reason when it said nothing matches. */
  notFound: string | null;
}

export interface Prompt {
  system?: string;
  user: string;
}

export interface Family {
  readonly name: FamilyName;
  /** What the model answers in, for messages and the documentation. */
  readonly convention: string;
  /** The size to send a screen (or crop) of this size at: smaller where the family prefers it. */
  sendSize(source: Size): Size;
  /** The prompt for one element, or with `all` for every match. */
  prompt(description: string, sent: Size, all: boolean): Prompt;
  /** The answer as boxes on the sent image. */
  read(answer: string, sent: Size): Reading;
}

/** Fractions of a box given in a grid of `grid` units, clamped to the image and put in corner order. */
export function fraction(values: number[], grid: Size): FracBox {
  const clamp = (v: number) => Math.max(0, Math.min(1, v));
  if (values.length === 2) {
    const [x, y] = values;
    return { x1: clamp(x / grid.width), y1: clamp(y / grid.height), x2: clamp(x / grid.width), y2: clamp(y / grid.height), point: true };
  }
  const [a, b, c, d] = values;
  return {
    x1: clamp(Math.min(a, c) / grid.width), y1: clamp(Math.min(b, d) / grid.height),
    x2: clamp(Math.max(a, c) / grid.width), y2: clamp(Math.max(b, d) / grid.height), point: false,
  };
}

/** The sentence every family's prompt ends with, so that "nothing matches" comes back as a clear answer. */
export const SAY_NOT_FOUND = 'If nothing on the screen matches, do not guess: answer {"found": false, "reason": "<what you see instead>"}.';

export const quoted = (description: string) => `"${description.replace(/"/g, "'")}"`;

/** A grid of 0-1000 in each direction, whatever the image size. */
export const THOUSANDTHS: Size = { width: 1000, height: 1000 };

/** The image as it is: the family reads any size. */
export const asIs = (source: Size): Size => ({ ...source });

/** An answer whose numbers count in `grid` units, optionally reordered first (Gemini writes y before x). */
export function readIn(answer: string, grid: Size, reorder: (values: number[]) => number[] = (v) => v): Reading {
  const notFound = notFoundReason(answer);
  if (notFound) return { boxes: [], notFound };
  return { boxes: coordsIn(answer).map((c) => fraction(reorder(c.values), grid)), notFound: null };
}
