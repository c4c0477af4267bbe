import type { Box } from './screen';

/**
 * The sandbox's accessibility tree as the agent serves it: the elements on
 * the screen now, with their role, name, state and screen box. Plain data, so
 * it crosses the agent's HTTP API as JSON.
 */
export interface A11yNode {
  /** Stable within a snapshot and across snapshots of an unchanged tree: the application's bus name and the child indices, `:1.42/0/3/1`. */
  path: string;
  /** The parent's path; null for an application's top-level window. */
  parent: string | null;
  /** AT-SPI role name, lower case with spaces: 'push button', 'entry', 'link', 'menu item', 'table cell', 'heading', 'label', 'check box', 'page tab', 'combo box', 'image' … */
  role: string;
  /** The accessible name (a button's label, an icon's aria-label). */
  name: string;
  description: string;
  /** A field's value or a text element's text, where the element has one (Text or Value interface); null otherwise. */
  value: string | null;
  /** Of: focused, focusable, checked, selected, expanded, collapsed, disabled, editable, multi-line, pressed. */
  states: string[];
  /** On the screen, clipped to the scrolled ancestors and the window. */
  box: Box;
  /** The application's name ('chromium', 'gtk3-widget-factory'). */
  app: string;
  /** The name of the top-level window it belongs to. */
  window: string;
  /** Paths of the elements that label this one (label-for / labelled-by relations). */
  labelledBy: string[];
  /** For a table cell: its 0-based row and column, when the tree says. */
  cell?: { row: number; column: number };
}

export interface A11ySnapshot {
  nodes: A11yNode[];
  /** Milliseconds the agent took. */
  tookMs: number;
  /** True when the size or time bound cut the walk short. */
  truncated: boolean;
  /** Applications that did not answer within the bound, or failed; never an error for the caller. */
  skipped: string[];
}
