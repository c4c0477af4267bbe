import fs from 'fs';
import path from 'path';
import crypto from 'crypto';
import type { A11yNode } from '../../../lib/types/a11y';
import { looksLikeWidgetId } from '../../../lib/locate/a11y/roles';
import type { ScreenSnapshot, SeenElement, TargetKind } from './types';

/**
 * Desktop screens: a Debian program in a sandbox, with ground truth from its
 * accessibility tree (AT-SPI) instead of a DOM. The tree's nodes become the
 * same SeenElements a web page gives, so one generator phrases both.
 */
export interface DesktopSource {
  /** The Debian package, and the command that starts the program. */
  name: string;
  version: string;
  license: string;
  part: 'tune' | 'held';
  command: string;
  /** The application name the tree gives it ('gtk3-widget-factory'). */
  app: string;
  styles: string[];
}

const ROLE_KIND: Record<string, TargetKind> = {
  'push button': 'button', 'toggle button': 'button', link: 'link', 'page tab': 'tab',
  'menu item': 'menu-item', 'check menu item': 'menu-item', 'radio menu item': 'menu-item', menu: 'menu-item',
  heading: 'heading', 'table cell': 'cell', 'column header': 'column-header', 'table column header': 'column-header',
  entry: 'field', 'password text': 'field', 'spin button': 'field', text: 'field', 'combo box': 'dropdown',
  'check box': 'checkbox', 'radio button': 'radio', label: 'text', static: 'text',
};

// Icon fonts put private-use characters into names; they show as pictures, not text.
const norm = (s: string | null | undefined) => (s ?? '').replace(/\p{Co}/gu, ' ').replace(/\s+/g, ' ').trim();
/** A GTK widget id left as the name ('emblem-default-symbolic', 'button1') is not shown on the screen. */
const shown = (s: string | null | undefined) => (looksLikeWidgetId(norm(s)) ? '' : norm(s));

/** What a person sees of the tree: named controls with their boxes, field labels from the labelled-by relation. */
export function snapshotFromTree(nodes: A11yNode[], screen: { width: number; height: number }): ScreenSnapshot {
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const onScreen = (n: A11yNode) => n.box.width >= 4 && n.box.height >= 4 && n.box.x >= 0 && n.box.y >= 0 && n.box.x + n.box.width <= screen.width && n.box.y + n.box.height <= screen.height;
  const elements: SeenElement[] = [];
  for (const node of nodes.filter(onScreen)) {
    let kind = ROLE_KIND[node.role];
    if (!kind) continue;
    // A text node is a field only when it can be typed in; otherwise it is text shown.
    if (node.role === 'text' && !node.states.includes('editable')) kind = 'text';
    const field = kind === 'field' || kind === 'dropdown' || kind === 'textarea';
    if (field && node.states.includes('multi-line')) kind = 'textarea';
    // Chromium gives a <label> its text as the value, with no name.
    const label = node.labelledBy.map((p) => byPath.get(p)).find((l) => l && onScreen(l) && norm(l.name || l.value));
    const text = field ? shown(label?.name || label?.value) : shown(node.name || node.value);
    if (!field && !text) continue;
    const value = field ? shown(kind === 'dropdown' ? node.name || node.value : node.value) : '';
    elements.push({
      kind, text, box: node.box, region: node.role.includes('menu') ? 'top bar' : 'main',
      ...(value ? { value } : {}), ...(label ? { labelBox: label.box } : {}),
    });
  }
  const texts = elements.filter((e) => e.text).map((e) => ({ text: e.text, box: e.labelBox ?? e.box }));
  for (const e of elements) if (e.value) texts.push({ text: e.value, box: e.box, inField: true } as ScreenSnapshot['texts'][number]);
  const allText = nodes.map((n) => `${n.name} ${n.value ?? ''} ${n.description}`).join(' ').toLowerCase();
  return { elements, texts, allText };
}

/** The sandbox a desktop capture runs in: its screen as PNG, its tree, and a way to start a program. */
export interface DesktopSandbox {
  launch(command: string): Promise<void>;
  screenPng(): Promise<Buffer>;
  a11ySnapshot(): Promise<{ nodes: A11yNode[] }>;
}

/** Starts the program, waits until its tree shows, and keeps the screen and the snapshot that go together. */
export async function captureDesktop(source: DesktopSource, sandbox: DesktopSandbox, screen: { width: number; height: number }, outFile: string): Promise<{ png: string; pageSha: string; snapshot: ScreenSnapshot }> {
  await sandbox.launch(source.command);
  const deadline = Date.now() + 15_000;
  let nodes: A11yNode[] = [];
  while (Date.now() < deadline) {
    nodes = (await sandbox.a11ySnapshot()).nodes.filter((n) => n.app === source.app);
    if (nodes.some((n) => ROLE_KIND[n.role])) break;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  if (!nodes.length) throw new Error(`${source.name}: its window published no accessibility tree within 15 s`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const png = await sandbox.screenPng();
  const settled = (await sandbox.a11ySnapshot()).nodes.filter((n) => n.app === source.app);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, png);
  return { png: outFile, pageSha: crypto.createHash('sha256').update(`${source.name}@${source.version}`).digest('hex'), snapshot: snapshotFromTree(settled, screen) };
}
