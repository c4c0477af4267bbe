import type { A11yNode } from '../types/a11y';
import { liveSandbox } from './live-sandbox';
import { parseFlags } from './flags';

/**
 * `glance a11y dump [--sandbox ID] [--json]`: the accessibility tree a
 * running sandbox shows Glance now, window by window, indented by depth:
 * what the a11y engine matches descriptions against.
 */
export async function a11yCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args, ['json']);
  const [action = 'dump'] = words;
  if (action !== 'dump') {
    console.error(`Unknown a11y action '${action}'; use 'glance a11y dump [--sandbox ID] [--json]'.`);
    return 2;
  }
  const { record, agent } = liveSandbox(flags.sandbox);
  try {
    const snapshot = await agent.a11ySnapshot({ deadlineMs: 2000 });
    if (flags.json) {
      console.log(JSON.stringify(snapshot, null, 2));
      return 0;
    }
    console.log(`sandbox ${record.id}: ${snapshot.nodes.length} visible elements in ${snapshot.tookMs} ms${snapshot.truncated ? ' (cut short by the bound)' : ''}`);
    if (snapshot.skipped.length) console.log(`  did not answer in time: ${snapshot.skipped.join(', ')}`);
    if (!snapshot.nodes.length) console.log('  (empty: no program here publishes an accessibility tree; finds use OCR)');
    for (const line of treeLines(snapshot.nodes)) console.log(line);
    return 0;
  } finally {
    agent.close();
  }
}

/** One line per node, `  role "name" = value [states] x,y wxh`, children under their parents. */
export function treeLines(nodes: A11yNode[]): string[] {
  const byParent = new Map<string | null, A11yNode[]>();
  const paths = new Set(nodes.map((n) => n.path));
  for (const node of nodes) {
    const parent = node.parent && paths.has(node.parent) ? node.parent : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), node]);
  }
  const lines: string[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const node of byParent.get(parent) ?? []) {
      const { x, y, width, height } = node.box;
      const value = node.value && node.value !== node.name ? ` = ${JSON.stringify(node.value.slice(0, 60))}` : '';
      const states = node.states.length ? ` [${node.states.join(', ')}]` : '';
      const app = depth === 0 ? `  (${node.app})` : '';
      lines.push(`${'  '.repeat(depth + 1)}${node.role} ${JSON.stringify(node.name)}${value}${states} ${x},${y} ${width}x${height}${app}`);
      walk(node.path, depth + 1);
    }
  };
  walk(null, 0);
  return lines;
}
