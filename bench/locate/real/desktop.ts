import fs from 'fs';
import path from 'path';
import crypto from 'crypto';
import { execFileSync } from 'child_process';
import type { A11yNode } from '../../../lib/types/a11y';
import { looksLikeWidgetId } from '../../../lib/locate/a11y/roles';
import type { AgentClient } from '../../../lib/sandbox/agent-client';
import { waitFor } from '../../../lib/util/wait';
import { newClient, testState } from '../../../test/helpers/glance';
import type { CapturedScreen } from './capture';
import { sourceSlug } from './source-list';
import type { ScreenSnapshot, SeenElement, TargetKind } from './types';

/**
 * Desktop screens: a Debian program in a sandbox, with ground truth from its
 * accessibility tree (AT-SPI) instead of a DOM. The tree's nodes become the
 * same SeenElements a web page gives, so one generator phrases both.
 */
export interface DesktopSource {
  /** The Debian package that ships the program; its installed version is recorded with each screen. */
  name: string;
  license: string;
  part: 'tune' | 'held';
  /** Run through sh in the sandbox: the program, its arguments, and any environment ('GTK_THEME=Adwaita:dark'). */
  command: string;
  /** The application name its tree gives ('gtk3-widget-factory'). */
  app: string;
  /** Tells apart two screens of the same program ('dark', 'services'). */
  label: string;
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

/**
 * A control whose name could not fit in its box shows an icon (a toolbar's
 * 'Undo'): the name is its tooltip, not text on the screen. About square, or
 * narrower than 6 px a letter, for more than two letters.
 */
const ICON_KINDS = new Set<TargetKind>(['button', 'tab', 'menu-item', 'link']);
const showsIcon = (kind: TargetKind, text: string, box: { width: number; height: number }) =>
  ICON_KINDS.has(kind) && text.length > 2 && (box.width < box.height * 1.4 || text.length * 6 > box.width);

const WINDOW_ROLES = new Set(['frame', 'dialog', 'alert', 'file chooser']);
/** The height of the title bar the window manager draws above a window, in pixels. */
const TITLE_BAR = 22;

/**
 * A checkable button that Qt calls a check box (a path bar's 'usr', a view
 * switch): too narrow for a box beside its text, so it shows as a button.
 * A check box is at least its height (the box) plus about 6 px a letter.
 */
const togglesAsButton = (name: string, box: { width: number; height: number }) => box.width < box.height + norm(name).length * 6;

/**
 * Rows a list's edge or a scrolling sidebar cuts: the tree gives the part that
 * shows, so the text may be hidden. Under 10 px high, or under half the usual
 * height of the items of its role stacked in the same column.
 */
function cutByContainer(nodes: A11yNode[]): Set<A11yNode> {
  const columns = new Map<string, A11yNode[]>();
  for (const n of nodes) {
    const key = `${n.role}|${n.box.x}|${n.box.width}`;
    columns.set(key, [...(columns.get(key) ?? []), n]);
  }
  const cut = new Set(nodes.filter((n) => n.box.height < 10));
  for (const column of columns.values()) {
    if (column.length < 3) continue;
    const heights = column.map((n) => n.box.height).sort((a, b) => a - b);
    const usual = heights[Math.floor(heights.length / 2)];
    for (const n of column) if (n.box.height < usual / 2) cut.add(n);
  }
  return cut;
}

/** The kind of target a node is, by its role and states; undefined when it is none. */
function kindOf(node: A11yNode): TargetKind | undefined {
  const kind = ROLE_KIND[node.role];
  // A text node is a field only when it can be typed in; otherwise it is text shown.
  if (node.role === 'text' && !node.states.includes('editable')) return 'text';
  if ((kind === 'field' || kind === 'dropdown') && node.states.includes('multi-line')) return 'textarea';
  if (kind === 'checkbox' && togglesAsButton(node.name, node.box)) return 'button';
  return kind;
}

const within = (inner: A11yNode['box'], outer: A11yNode['box']) =>
  inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;

/** What a person sees of the tree: named controls with their boxes, field labels from the labelled-by relation. */
export function snapshotFromTree(nodes: A11yNode[], screen: { width: number; height: number }): ScreenSnapshot {
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const onScreen = (n: A11yNode) => n.box.width >= 4 && n.box.height >= 4 && n.box.x >= 0 && n.box.y >= 0 && n.box.x + n.box.width <= screen.width && n.box.y + n.box.height <= screen.height;
  const elements: SeenElement[] = [];
  const unsure: ScreenSnapshot['texts'] = [];
  const cut = cutByContainer(nodes.filter(onScreen));
  const kinds = new Map(nodes.filter(onScreen).map((n) => [n, kindOf(n)]));
  // A group box's title is the label of every control in the group (Qt gives it so): it names one of them only when
  // the group holds no other of its kind ('the Sizes field' over Width and Spacing names neither).
  const sharedTitle = (title: A11yNode, node: A11yNode) => within(node.box, title.box) &&
    [...kinds].some(([other, kind]) => other !== node && kind === kinds.get(node) && within(other.box, title.box));
  for (const [node, kind] of kinds) {
    if (!kind) continue;
    const field = kind === 'field' || kind === 'dropdown' || kind === 'textarea';
    // Chromium gives a <label> its text as the value, with no name.
    const label = node.labelledBy.map((p) => byPath.get(p)).find((l) => l && onScreen(l) && norm(l.name || l.value) && !sharedTitle(l, node));
    const text = field ? shown(label?.name || label?.value) : shown(node.name || node.value);
    if (!field && !text) continue;
    // No target where the text may not show, but a copy of it all the same when copies are counted. A node the
    // screen's edge cuts has its box cut to the screen, so it looks whole: the tree says it is not.
    if (cut.has(node) || node.partlyOffScreen || (!field && showsIcon(kind, text, node.box))) {
      if (text) unsure.push({ text, box: node.box, unsure: true });
      continue;
    }
    const value = field ? shown(kind === 'dropdown' ? node.name || node.value : node.value) : '';
    elements.push({
      kind, text, box: node.box, region: node.role.includes('menu') ? 'top bar' : 'main',
      ...(value ? { value } : {}), ...(label ? { labelBox: label.box } : {}),
    });
  }
  // The window manager draws a window's title in a bar above it: a copy of that text, though no node of the tree holds it.
  for (const node of nodes) {
    if (WINDOW_ROLES.has(node.role) && shown(node.name)) unsure.push({ text: shown(node.name), box: { x: node.box.x, y: Math.max(0, node.box.y - TITLE_BAR), width: node.box.width, height: TITLE_BAR }, unsure: true });
  }
  const texts = [...elements.filter((e) => e.text).map((e) => ({ text: e.text, box: e.labelBox ?? e.box })), ...unsure];
  for (const e of elements) if (e.value) texts.push({ text: e.value, box: e.box, inField: true } as ScreenSnapshot['texts'][number]);
  const allText = nodes.map((n) => `${n.name} ${n.value ?? ''} ${n.description}`).join(' ').toLowerCase();
  return { elements, texts, allText };
}

/** Waits until the tree of `app` stops changing (programs go on laying out after their window shows); returns it. */
export async function stillTree(agent: AgentClient, app: string | null, label: string): Promise<A11yNode[]> {
  let layout = '';
  return waitFor(`${label}'s accessibility tree to stay put`, async () => {
    const nodes = (await agent.a11ySnapshot({ deadlineMs: 2000 })).nodes.filter((n) => app === null || n.app === app);
    const now = JSON.stringify(nodes.map((n) => [n.role, n.name, n.box]));
    const still = now === layout && nodes.some((n) => ROLE_KIND[n.role]);
    layout = now;
    return still ? nodes : undefined;
  }, { timeoutMs: 20_000, intervalMs: 1000 });
}

/** The installed version of a Debian package, so that a screen records what drew it. */
function debianVersion(pkg: string): string {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`the desktop source '${pkg}' is not installed: add it to the packages in scripts/setup.sh, or remove it from bench/locate/real/sources.json`);
  }
}

/** A program is its own source ('gtk3-demo', not its package 'gtk-3-examples'): programs of one package may fall on either side of the split. */
export function desktopSourceName(source: DesktopSource): string {
  return source.app.toLowerCase() === source.name ? source.name : `${source.app} (${source.name})`;
}

export function desktopScreenId(source: DesktopSource, width: number, height: number): string {
  return `${sourceSlug(source.name)}--${source.app}${source.label ? `-${source.label}` : ''}@${width}x${height}`;
}

/**
 * Captures every desktop source at each resolution, one sandbox per
 * resolution: the program is started alone on the desktop, and its screen and
 * its tree are kept once the tree holds still.
 */
export async function captureDesktopSources(sources: DesktopSource[], resolutions: [number, number][], outDir: string, log: (line: string) => void): Promise<{ source: DesktopSource; screen: CapturedScreen }[]> {
  fs.mkdirSync(outDir, { recursive: true });
  const versions = new Map(sources.map((s) => [s.name, debianVersion(s.name)]));
  const captured: { source: DesktopSource; screen: CapturedScreen }[] = [];
  for (const [width, height] of resolutions) {
    const state = testState();
    const client = newClient(state, { cache: false, logging: false, resolution: `${width}x${height}` });
    try {
      await client.auth();
      await client.connect({ keepAlive: 0 });
      const agent = client.requireAgent();
      for (const source of sources) {
        const started = Date.now();
        await client.resetApps();
        await client.provision.app({ command: source.command });
        await client.settle(2000);
        const nodes = await stillTree(agent, source.app, source.name);
        const id = desktopScreenId(source, width, height);
        const png = path.join(outDir, `${id}.png`);
        fs.writeFileSync(png, await agent.screenPng());
        const version = versions.get(source.name)!;
        const pageSha = crypto.createHash('sha256').update(`${source.name}@${version}\n${source.command}`).digest('hex');
        captured.push({ source, screen: { id, source: desktopSourceName(source), page: `${source.app}${source.label ? ` (${source.label})` : ''} ${version}`, width, height, png, pageSha, snapshot: snapshotFromTree(nodes, { width, height }) } });
        log(`  ${source.name} ${source.app}${source.label ? ` (${source.label})` : ''} at ${width}x${height}: ${Math.round((Date.now() - started) / 1000)} s`);
      }
    } finally {
      await client.disconnect();
      fs.rmSync(state.stateDir, { recursive: true, force: true });
    }
  }
  return captured;
}
