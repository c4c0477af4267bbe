import type { A11yNode } from '../../types/a11y';
import type { Role } from '../query';

/**
 * Which AT-SPI roles a role word of a description stands for. Chromium, GTK
 * and Qt name the same controls alike ('push button', 'entry', 'check box'),
 * so one table serves them all.
 */
const ROLES: Record<Exclude<Role, 'text'>, string[]> = {
  // Qt gives a checkable tool button (a view switch in a toolbar) the check box role.
  button: ['push button', 'toggle button', 'button', 'split button', 'menu button', 'check box'],
  link: ['link'],
  field: ['entry', 'password text', 'spin button', 'search box', 'text', 'editbar', 'terminal'],
  checkbox: ['check box', 'check menu item', 'switch', 'toggle button'],
  radio: ['radio button', 'radio menu item'],
  tab: ['page tab'],
  menuitem: ['menu item', 'check menu item', 'radio menu item', 'menu', 'tearoff menu item'],
  heading: ['heading'],
  icon: ['icon', 'image', 'push button', 'toggle button', 'link'],
  image: ['image', 'icon'],
  dropdown: ['combo box', 'list box', 'menu button'],
  cell: ['table cell', 'cell', 'column header', 'row header', 'table column header', 'table row header', 'tree item', 'list item'],
};

/** Roles a person clicks: when a name is on a label and a button alike, the button is meant. */
const CONTROLS = new Set(['push button', 'toggle button', 'button', 'link', 'entry', 'password text', 'check box', 'radio button', 'page tab',
  'menu item', 'check menu item', 'radio menu item', 'combo box', 'spin button', 'menu button', 'switch', 'slider', 'list item', 'table cell', 'tree item']);

/** Roles whose name comes from their content, not a label: a paragraph's name is its text. */
const TEXT_ROLES = new Set(['label', 'static', 'text', 'paragraph', 'heading', 'caption', 'section', 'document text', 'status bar']);

/** Containers: a name on them names a region (a page's title, a window's), not something one clicks or reads on the screen. */
const CONTAINERS = new Set(['frame', 'window', 'dialog', 'document web', 'document frame', 'filler', 'panel', 'scroll pane', 'viewport', 'tool bar', 'menu bar', 'table', 'list', 'tree', 'tree table',
  'page tab list', 'layered pane', 'split pane', 'internal frame', 'application', 'document frame', 'form', 'grouping', 'landmark', 'redundant object']);

export function fitsRole(node: A11yNode, role: Role | null): boolean {
  if (role === null || role === 'text') return !CONTAINERS.has(node.role);
  const roles = ROLES[role];
  if (role === 'field' && node.role === 'text') return node.states.includes('editable');
  return roles.includes(node.role);
}

export const isControl = (node: A11yNode): boolean => CONTROLS.has(node.role);
export const isTextRole = (node: A11yNode): boolean => TEXT_ROLES.has(node.role);
export const isField = (node: A11yNode): boolean => fitsRole(node, 'field') || fitsRole(node, 'dropdown');

/** The selector's role word: the ARIA-like name people know ('button', not 'push button'). */
export function selectorRole(node: A11yNode): string {
  const known: Record<string, string> = {
    'push button': 'button', 'toggle button': 'button', 'entry': 'textbox', 'password text': 'textbox', 'check box': 'checkbox',
    'radio button': 'radio', 'page tab': 'tab', 'menu item': 'menuitem', 'table cell': 'cell', 'combo box': 'combobox', 'image': 'img',
  };
  return known[node.role] ?? node.role.replace(/\s+/g, '-');
}

/** The role word a description writes for a tree role (the recorder's words); text has none: it is written bare. */
const ROLE_WORDS: Record<string, string> = {
  'push button': 'button', 'toggle button': 'button', 'button': 'button', 'menu button': 'button', 'split button': 'button',
  'link': 'link',
  'entry': 'field', 'password text': 'field', 'spin button': 'field', 'search box': 'field', 'editbar': 'field',
  'check box': 'checkbox', 'switch': 'checkbox', 'radio button': 'radio button',
  'page tab': 'tab', 'menu item': 'menu item', 'check menu item': 'menu item', 'radio menu item': 'menu item', 'menu': 'menu',
  'combo box': 'dropdown', 'list box': 'dropdown', 'heading': 'heading', 'icon': 'icon', 'image': 'image',
};

/** The role word a step writes for the node: `button`, `field`, `menu item`; null for text, which is written bare. */
export function roleWord(node: A11yNode): string | null {
  if (node.role === 'text' && node.states.includes('editable')) return 'field';
  return ROLE_WORDS[node.role] ?? null;
}

/**
 * GTK builder files often leave a widget's id as its accessible name
 * ('button1', 'entry_name'): such a name is not what the screen shows.
 */
export function looksLikeWidgetId(name: string): boolean {
  return /^[a-z]+\d+$/.test(name) || /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+$/.test(name);
}
