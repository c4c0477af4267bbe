import type { Box } from '../../../lib/types/screen';

/**
 * The real-UI locate set: what a capture sees on one screen, and the cases
 * generated from it. Plain data, written to JSON Lines.
 */
export type { Box };

export type TargetKind =
  | 'button' | 'link' | 'tab' | 'menu-item' | 'heading' | 'cell' | 'column-header' | 'badge' | 'text'
  | 'field' | 'textarea' | 'dropdown' | 'checkbox' | 'radio';

export type Region = 'sidebar' | 'top bar' | 'table' | 'main';

/** One element a person can see on the screen, with its box from the DOM (or the accessibility tree). */
export interface SeenElement {
  kind: TargetKind;
  /** The text shown on it; for fields, the label a person sees beside or above it ('' when none). */
  text: string;
  box: Box;
  /** Other boxes a click may land in and still hit it (a checkbox's label). */
  alsoHits?: Box[];
  region: Region;
  placeholder?: string;
  /** A field's shown value, a dropdown's shown option. */
  value?: string;
  /** The label's own box, for fields labelled by visible text. */
  labelBox?: Box;
  /** The luminance of its text colour, 0 to 1 (absent for fields). */
  ink?: number;
  /** Where its text itself is drawn (a button's label, not its padding), when the page says. */
  textBox?: Box;
}

/** Every visible run of text, for uniqueness and ordinals; and all text of the document, seen or not, for negatives. */
export interface ScreenSnapshot {
  elements: SeenElement[];
  /**
   * inField: a field's placeholder or shown value. unsure: a text that may not
   * show (an icon's name, a row a container cuts) or shows as part of a
   * longer word ('20' of '20px'): it counts as a copy, so no target claims to
   * be the only one, but is never counted for an ordinal.
   */
  texts: { text: string; box: Box; textBox?: Box; inField?: boolean; unsure?: boolean }[];
  allText: string;
}

export type Category = 'text' | 'field' | 'ordinal' | 'negative';

/** How the screen set is split: tuning may be looked at; held-back may not. */
export type Part = 'tune' | 'held';

export interface ScreenInfo {
  id: string;
  source: string;
  page: string;
  width: number;
  height: number;
  part: Part;
  /** sha256 of the page's HTML (web) or the program's version (desktop). */
  pageSha: string;
  /** sha256 of the captured PNG. */
  pngSha: string;
  png: string;
}

export interface RealCase {
  id: string;
  screen: string;
  source: string;
  part: Part;
  resolution: string;
  category: Category;
  /** What was asked for: 'button', 'sidebar link', 'placeholder', 'near miss' … */
  kind: string;
  description: string;
  /** Where a click counts as a hit; empty for negatives, which must come back not found. */
  boxes: Box[];
  lightOnDark?: boolean;
}
