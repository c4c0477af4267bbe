import type { Box } from './screen';

/**
 * What the recorder asks of the Service: the screen and its tree kept as a
 * view, and the element at a point of that view described in words that
 * find it again. Plain data, so it crosses the team server's API as JSON.
 */

/** A screen and its accessibility tree, captured together and kept by the Service for a while. */
export interface ViewInfo {
  viewId: string;
  width: number;
  height: number;
  /** Whether the view has a tree to describe with (else the words come from the pixels). */
  tree: boolean;
}

export interface DescribeRequest {
  viewId: string;
  x: number;
  y: number;
  /**
   * `click`: the control under the point (a click on text inside a button is
   * a click on the button, on a label a click on its field); `field`: the
   * field to type into, the one under the point or else the one with the
   * keyboard focus.
   */
  intent: 'click' | 'field';
}

/** A recorded step's picture, for the preview's step list. */
export interface ViewPictureRequest {
  viewId: string;
  /** The element to outline and centre on; null for the whole view. */
  box: Box | null;
  /** Boxes to fill grey besides the view's password fields (a secret typed where the view has no tree). */
  masks: Box[];
}

export interface ElementDescription {
  /** The words that find it, as a step writes them: `the 'Save' button`, `'Welcome back'`; null when only coordinates are left. */
  description: string | null;
  /** Where it stands on the view. */
  box: Box | null;
  /** The tree's role, when the tree described it. */
  role: string | null;
  /** The name or label the description uses (a password field's label names its variable). */
  name: string | null;
  /** What described it: the tree, the text read on the pixels, a vision model's name for an element with no words, or nothing but the point. */
  source: 'a11y' | 'ocr' | 'vision' | 'point';
  /** The description was found again on the same view, at this element. */
  refound: boolean;
  /** A password field: what is typed into it is a secret. */
  secret: boolean;
  /** Why a person should look at the step: not found again, only coordinates. Empty when sure. */
  flags: string[];
  /** The descriptions tried before this one, and what each found instead. */
  tried: string[];
  tookMs: number;
}
