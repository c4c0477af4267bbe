/**
 * The numbers AT-SPI speaks in (at-spi2-core's atspi-constants.h), turned
 * into the names Glance's snapshot uses.
 */

/** AtspiRole in enum order; the names are ATK's, which toolkits report through GetRoleName. */
export const ROLE_NAMES: readonly string[] = [
  'invalid', 'accelerator label', 'alert', 'animation', 'arrow', 'calendar', 'canvas', 'check box', 'check menu item',
  'color chooser', 'column header', 'combo box', 'date editor', 'desktop icon', 'desktop frame', 'dial', 'dialog',
  'directory pane', 'drawing area', 'file chooser', 'filler', 'focus traversable', 'font chooser', 'frame', 'glass pane',
  'html container', 'icon', 'image', 'internal frame', 'label', 'layered pane', 'list', 'list item', 'menu', 'menu bar',
  'menu item', 'option pane', 'page tab', 'page tab list', 'panel', 'password text', 'popup menu', 'progress bar',
  'push button', 'radio button', 'radio menu item', 'root pane', 'row header', 'scroll bar', 'scroll pane', 'separator',
  'slider', 'spin button', 'split pane', 'status bar', 'table', 'table cell', 'table column header', 'table row header',
  'tearoff menu item', 'terminal', 'text', 'toggle button', 'tool bar', 'tool tip', 'tree', 'tree table', 'unknown',
  'viewport', 'window', 'extended', 'header', 'footer', 'paragraph', 'ruler', 'application', 'autocomplete', 'edit bar',
  'embedded', 'entry', 'chart', 'caption', 'document frame', 'heading', 'page', 'section', 'redundant object', 'form',
  'link', 'input method window', 'table row', 'tree item', 'document spreadsheet', 'document presentation',
  'document text', 'document web', 'document email', 'comment', 'list box', 'grouping', 'image map', 'notification',
  'info bar', 'level bar', 'title bar', 'block quote', 'audio', 'video', 'definition', 'article', 'landmark', 'log',
  'marquee', 'math', 'rating', 'timer', 'static', 'math fraction', 'math root', 'subscript', 'superscript',
  'description list', 'description term', 'description value', 'footnote', 'content deletion', 'content insertion',
  'mark', 'suggestion', 'push button menu', 'switch',
];

export const roleName = (role: number): string => ROLE_NAMES[role] ?? `role ${role}`;

/** AtspiStateType values Glance reads. */
export const State = {
  ACTIVE: 1, CHECKED: 4, COLLAPSED: 5, DEFUNCT: 6, EDITABLE: 7, ENABLED: 8, EXPANDABLE: 9, EXPANDED: 10,
  FOCUSABLE: 11, FOCUSED: 12, ICONIFIED: 15, MODAL: 16, MULTI_LINE: 17, PRESSED: 20, SELECTED: 23, SENSITIVE: 24,
  SHOWING: 25, VISIBLE: 30, INDETERMINATE: 32, REQUIRED: 33, CHECKABLE: 41, READ_ONLY: 43,
} as const;

/** A state set as GetState sends it: bit N of the 64 set when state N holds. */
export type StateBits = readonly number[];

export const has = (bits: StateBits, state: number): boolean => ((bits[state >> 5] ?? 0) & (1 << (state & 31))) !== 0;

/** The states the snapshot names, in this order. */
const NAMED_STATES: [string, (bits: StateBits) => boolean][] = [
  ['focused', (b) => has(b, State.FOCUSED)],
  ['focusable', (b) => has(b, State.FOCUSABLE)],
  ['checked', (b) => has(b, State.CHECKED)],
  ['indeterminate', (b) => has(b, State.INDETERMINATE)],
  ['selected', (b) => has(b, State.SELECTED)],
  ['expanded', (b) => has(b, State.EXPANDED)],
  ['collapsed', (b) => has(b, State.COLLAPSED) || (has(b, State.EXPANDABLE) && !has(b, State.EXPANDED))],
  // Toolkits set ENABLED and SENSITIVE on everything that works; a control without them is greyed out.
  ['disabled', (b) => !has(b, State.ENABLED) && !has(b, State.SENSITIVE)],
  ['editable', (b) => has(b, State.EDITABLE)],
  ['read-only', (b) => has(b, State.READ_ONLY)],
  ['required', (b) => has(b, State.REQUIRED)],
  ['multi-line', (b) => has(b, State.MULTI_LINE)],
  ['pressed', (b) => has(b, State.PRESSED)],
  ['modal', (b) => has(b, State.MODAL)],
];

export function stateNames(bits: StateBits): string[] {
  return NAMED_STATES.filter(([, test]) => test(bits)).map(([name]) => name);
}

/** AtspiRelationType: the targets of LABELLED_BY label the source. */
export const RELATION_LABELLED_BY = 2;

/** AtspiCoordType: GetExtents in screen coordinates. */
export const COORDS_SCREEN = 0;

export const IFACE = {
  accessible: 'org.a11y.atspi.Accessible',
  application: 'org.a11y.atspi.Application',
  component: 'org.a11y.atspi.Component',
  text: 'org.a11y.atspi.Text',
  value: 'org.a11y.atspi.Value',
  tableCell: 'org.a11y.atspi.TableCell',
  collection: 'org.a11y.atspi.Collection',
  properties: 'org.freedesktop.DBus.Properties',
} as const;

/** Where the registry lists the applications on the accessibility bus. */
export const REGISTRY = { name: 'org.a11y.atspi.Registry', path: '/org/a11y/atspi/accessible/root' } as const;
