import type { Box } from './screen';

/**
 * The sandbox's accessibility tree as the agent serves it: the elements on
 * the screen now, with their role, name, state and screen box. Plain data, so
 * it crosses the agent's HTTP API as JSON. Elements that only repeat what an
 * element above them says are left out: the label inside a named button or
 * link, and the runs of plain text inside a paragraph (its value has them).
 */
export interface A11yNode {
  /** Stable within a snapshot and across snapshots of an unchanged tree: the application's bus name and the child indices, `:1.42/0/3/1`. */
  path: string;
  /** The path of the nearest ancestor in this snapshot (ancestors without a box on the screen, or covered, are left out); null for a top-level window, or when no ancestor is in the snapshot. */
  parent: string | null;
  /** AT-SPI role name, lower case with spaces: 'push button', 'entry', 'link', 'menu item', 'table cell', 'heading', 'label', 'check box', 'page tab', 'combo box', 'image' … */
  role: string;
  /** The accessible name (a button's label, an icon's aria-label). Some GTK names are icon names ('edit-find-symbolic') or widget ids rather than words on the screen. */
  name: string;
  description: string;
  /** A field's content ('' when empty), the text of an element that has no name (a paragraph), or a number as text (a slider, a progress bar); null otherwise. Never a password. */
  value: string | null;
  /** Of, in this order: focused, focusable, checked, indeterminate, selected, expanded, collapsed, disabled, editable, read-only, required, multi-line, pressed, modal. */
  states: string[];
  /** On the screen, clipped to the scrolled ancestors and the window. */
  box: Box;
  /** The application's name as its toolkit gives it ('Chromium', 'gtk3-widget-factory'), else its process name. */
  app: string;
  /** The name of the top-level window it belongs to (its X title when the tree gives none). */
  window: string;
  /** Paths of the elements that label this one (label-for / labelled-by relations). */
  labelledBy: string[];
  /** For a table cell: its 0-based row and column, when the tree says. */
  cell?: { row: number; column: number };
  /** False when the name is not drawn on the screen (an aria-label over an icon): a name to find with a role word, not shown text. Absent when it is drawn, or unknown. */
  nameShown?: false;
  /** For a password field, whose value is never read: whether it holds no characters. */
  empty?: boolean;
  /** True when the toolkit puts part of it off the screen (its box is cut to the screen's edge). */
  partlyOffScreen?: true;
}

export interface A11ySnapshot {
  nodes: A11yNode[];
  /** Milliseconds the agent took. */
  tookMs: number;
  /** True when the size or time bound cut the walk of an answering application short. */
  truncated: boolean;
  /** Applications that did not answer within the bound (hung, or busy), or failed; never an error for the caller. Named as in `app`, or by process name. */
  skipped: string[];
  /**
   * Where the texts the snapshot was asked about stand inside the texts of
   * the nodes that hold them, placed as the walk met those nodes. Present
   * only when texts were asked about.
   */
  textBoxes?: A11yTextBox[];
}

/** Where one copy of a text stands inside a node's text (AT-SPI character offsets), and its box on the screen. */
export interface A11yTextBox {
  path: string;
  /** The text asked for. */
  text: string;
  start: number;
  end: number;
  box: Box;
}

/** Asks for the copies of `text` inside the text of the node at `path` (of the last snapshot). */
export interface A11yTextRequest {
  path: string;
  text: string;
  /** The node's whole text is the text asked for: where it is not found as written (an embedded bold word), the whole text's box answers. */
  whole?: boolean;
}
