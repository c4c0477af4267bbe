import type { A11yNode } from '../../../types/a11y';
import type { Box } from '../../../types/screen';
import { stateNames } from './atspi';
import { intersect, within } from './geometry';
import type { Occlusion } from './occlusion';
import type { RawNode, WalkedApplication } from './tree';

/**
 * Turns walked trees into the snapshot's nodes: boxes clipped to what
 * contains them, elements other windows cover dropped, relations given as
 * paths.
 */

/**
 * Containers that cut off what overflows them. Toolkits report a child's
 * full box even where a scrolled ancestor hides part of it. A web page says
 * nothing of which elements scroll, so a container also counts as one when
 * some of its children are off the screen while it is on it (RawNode.clips).
 * Other containers are left alone: a web page's drop-down menu overflows a
 * small parent and is still seen.
 */
const CLIPPING_ROLES = new Set([
  'frame', 'window', 'dialog', 'alert', 'file chooser', 'scroll pane', 'viewport', 'document web', 'document frame',
  'internal frame', 'embedded', 'page tab list', 'tree table', 'tree', 'table', 'list box', 'menu', 'popup menu',
]);

export interface PlacedApplication extends WalkedApplication {
  /** The name the snapshot gives the application. */
  label: string;
  occlusion: Occlusion;
}

/** The node's box cut to `area` (the screen, or the popup it shows in) and to every clipping ancestor; null when nothing of it is left. */
export function visibleBox(node: RawNode, area: Box, byAncestors = true): Box | null {
  if (!node.extents) return null;
  let box: Box | null = intersect(node.extents, area);
  for (let up = byAncestors ? node.parent : null; up && box; up = up.parent) {
    if (up.extents && (up.clips || CLIPPING_ROLES.has(up.role))) box = intersect(box, up.extents);
  }
  return box;
}

function topLevel(node: RawNode): RawNode {
  let top = node;
  while (top.parent) top = top.parent;
  return top;
}

const refKey = (busName: string, objectPath: string) => `${busName}\n${objectPath}`;

export function toSnapshotNodes(apps: readonly PlacedApplication[], screen: Box): A11yNode[] {
  const pathByRef = new Map<string, string>();
  for (const app of apps) for (const node of app.nodes) pathByRef.set(refKey(...node.ref), node.path);
  const result: A11yNode[] = [];
  const kept = new Set<RawNode>();
  // Nodes come in tree order, so an ancestor is decided before its descendants.
  const keptAncestor = (node: RawNode) => {
    let up = node.parent;
    while (up && !kept.has(up)) up = up.parent;
    return up?.path ?? null;
  };
  for (const app of apps) {
    app.occlusion.placeWindows(app.nodes);
    for (const node of app.nodes) {
      const host = app.occlusion.hostOf(node);
      // Content shown in a popup is cut to the popup, not to the containers of the widget that opened it.
      const box = host >= 0 ? visibleBox(node, app.occlusion.boxAt(host), false) : visibleBox(node, screen);
      if (!box || app.occlusion.coversCentre(node, box, host >= 0 ? host : undefined)) continue;
      const window = topLevel(node);
      kept.add(node);
      result.push({
        path: node.path,
        parent: keptAncestor(node),
        role: node.role,
        name: node.name,
        description: node.description,
        value: node.value,
        states: stateNames(node.states),
        box,
        app: app.label,
        window: window.name || app.occlusion.windowTitle(node),
        labelledBy: node.labelledBy.map((ref) => pathByRef.get(refKey(...ref))).filter((p): p is string => !!p),
        ...(node.cell ? { cell: node.cell } : {}),
        ...(node.nameShown === false ? { nameShown: false as const } : {}),
        ...(node.empty !== undefined ? { empty: node.empty } : {}),
        ...(node.extents && !within(node.extents, screen) ? { partlyOffScreen: true as const } : {}),
      });
    }
  }
  return result;
}
