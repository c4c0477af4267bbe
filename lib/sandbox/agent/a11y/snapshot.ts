import fs from 'fs';
import path from 'path';
import type { A11ySnapshot, A11yTextBox, A11yTextRequest } from '../../../types/a11y';
import type { StackedWindow } from '../driver';
import { AccessibilityBus, Ref } from './bus';
import { IFACE, REGISTRY } from './atspi';
import { PlacedApplication, toSnapshotNodes } from './nodes';
import { Occlusion } from './occlusion';
import { KnownObject, NodeBudget, OutOfTime, TreeWalker } from './tree';
import { Watchdog } from './watchdog';
import { textBoxesOf } from './text-ranges';

/**
 * Reads the sandbox's accessibility tree: every application the AT-SPI
 * registry knows, walked side by side, within a time and a size bound. A
 * sandbox without the bus, or with nothing on it, gives an empty snapshot.
 */

export interface SnapshotOptions {
  /** The whole snapshot's time bound. */
  deadlineMs?: number;
  /** At most this many nodes; the walk stops there and says it was truncated. */
  maxNodes?: number;
  /** An application that sends nothing back for this long is taken for hung and skipped. */
  appIdleMs?: number;
  /** Texts to place inside the texts of the nodes that hold them (A11ySnapshot.textBoxes), as the walk meets them. */
  texts?: string[];
}

export const SNAPSHOT_DEFAULTS = { deadlineMs: 1000, maxNodes: 5000, appIdleMs: 300 } as const;
/** The shorter patience for an application that hung last time, so that it does not cost every snapshot the full wait. */
const HUNG_AGAIN_IDLE_MS = 100;
const MAX_KNOWN_OBJECTS = 50_000;

export interface ScreenSource {
  readonly width: number;
  readonly height: number;
  stack(): Promise<StackedWindow[]>;
}

export class A11yReader {
  private bus: AccessibilityBus | null = null;
  /** Bus names of the applications that did not answer last time. */
  private readonly hung = new Set<string>();
  /** What each application was called when it last answered, by bus name: a hung one is named the same. */
  private readonly labels = new Map<string, string>();
  /** What each application's objects were at its last walk, by object path (see WalkOptions.known), by bus name. */
  private readonly known = new Map<string, Map<string, KnownObject>>();
  /** The objects behind the last snapshot's paths, for the questions asked about its nodes afterwards. */
  private refs = new Map<string, Ref>();

  constructor(private readonly sessionBusAddress: string | undefined, private readonly screen: ScreenSource) {}

  async snapshot(options: SnapshotOptions = {}): Promise<A11ySnapshot> {
    const started = Date.now();
    const { deadlineMs, maxNodes, appIdleMs } = { ...SNAPSHOT_DEFAULTS, ...options };
    const deadline = started + deadlineMs;
    const empty = (): A11ySnapshot => ({ nodes: [], tookMs: Date.now() - started, truncated: false, skipped: [] });

    const bus = await this.connection(deadlineMs);
    if (!bus) return empty();
    // The stacking is read once, before the walk: it decides which subtrees are not worth walking.
    const [stack, apps] = await Promise.all([this.screen.stack().catch(() => [] as StackedWindow[]), this.applications(bus, deadline)]);
    this.forgetGone(apps);
    if (!apps.length) return empty();

    const budget: NodeBudget = { remaining: maxNodes, visits: maxNodes * 4 };
    const walked = await Promise.all(apps.map((app) => this.walk(bus, app, stack, budget, appIdleMs, deadline, options.texts)));
    const placed = walked.filter((w): w is PlacedApplication => !('skipped' in w));
    const skipped = walked.filter((w): w is { skipped: string } => 'skipped' in w).map((w) => w.skipped);
    const nodes = toSnapshotNodes(placed, { x: 0, y: 0, width: this.screen.width, height: this.screen.height });
    this.refs = new Map(placed.flatMap((app) => app.nodes.map((node): [string, Ref] => [node.path, node.ref])));
    const textBoxes = options.texts?.length ? { textBoxes: placed.flatMap((app) => app.textBoxes) } : {};
    return { nodes, tookMs: Date.now() - started, truncated: placed.some((app) => !app.complete), skipped, ...textBoxes };
  }

  /** The processes that have an application on the accessibility bus: the bus daemon answers, not the applications. */
  async applicationPids(deadlineMs: number): Promise<Set<number>> {
    const bus = await this.connection(deadlineMs);
    if (!bus) return new Set();
    const apps = await this.applications(bus, Date.now() + deadlineMs);
    const pids = await Promise.all(apps.map(([busName]) => bus.pidOf(busName)));
    return new Set(pids.filter((pid): pid is number => pid !== null));
  }

  /** Applications come and go with their bus names; what is kept about them goes with them. */
  private forgetGone(apps: Ref[]): void {
    const present = new Set(apps.map(([busName]) => busName));
    for (const busName of [...this.hung, ...this.labels.keys(), ...this.known.keys()]) {
      if (present.has(busName)) continue;
      this.hung.delete(busName);
      this.labels.delete(busName);
      this.known.delete(busName);
    }
  }

  private async connection(timeoutMs: number): Promise<AccessibilityBus | null> {
    if (this.bus?.connected) return this.bus;
    this.bus?.close();
    this.bus = await AccessibilityBus.connect(this.sessionBusAddress, timeoutMs);
    return this.bus;
  }

  /** The registry's children: one entry per application with accessibility on. */
  private async applications(bus: AccessibilityBus, deadline: number): Promise<Ref[]> {
    const watchdog = new Watchdog(Math.max(1, deadline - Date.now()), deadline);
    try {
      const [apps] = await Promise.race([bus.call(REGISTRY.name, REGISTRY.path, IFACE.accessible, 'GetChildren'), watchdog.expired]);
      return (apps as Ref[]).filter(([name]) => name !== bus.uniqueName);
    } catch {
      return [];
    } finally {
      watchdog.stop();
    }
  }

  private async walk(
    bus: AccessibilityBus, app: Ref, stack: StackedWindow[], budget: NodeBudget, idleMs: number, deadline: number, texts?: string[],
  ): Promise<PlacedApplication | { skipped: string }> {
    const [busName] = app;
    // The bus daemon answers this, not the application: it costs no time even when the application hangs.
    const pid = await bus.pidOf(busName);
    const occlusion = new Occlusion(stack, pid);
    // A caller that asks for more patience than the default (the recorder's views) gets it, hung before or not.
    const shortened = this.hung.has(busName) && idleMs <= SNAPSHOT_DEFAULTS.appIdleMs;
    const watchdog = new Watchdog(shortened ? Math.min(idleMs, HUNG_AGAIN_IDLE_MS) : idleMs, deadline);
    let known = this.known.get(busName);
    // Objects come and go; past this many, start over rather than keep the dead ones.
    if (!known || known.size > MAX_KNOWN_OBJECTS) this.known.set(busName, (known = new Map()));
    try {
      const tree = await new TreeWalker(bus, app, budget, {
        expired: watchdog.expired,
        alive: () => watchdog.feed(),
        hidden: (node) => occlusion.hidesAll(node),
        known,
        texts,
      }).walk();
      this.hung.delete(busName);
      const label = tree.name || processName(pid) || busName;
      this.labels.set(busName, label);
      return { ...tree, label, occlusion };
    } catch (error) {
      // Out of time, or gone while we looked: either way it gives nothing this time.
      if (error instanceof OutOfTime) this.hung.add(busName);
      return { skipped: this.labels.get(busName) ?? (processName(pid) || busName) };
    } finally {
      watchdog.stop();
    }
  }

  /**
   * Where each asked text stands inside its node's text, by the Text
   * interface: every copy, with its box. A node of an older snapshot, one
   * gone since, or one without the interface gives none; every call is
   * bounded by `deadlineMs`.
   */
  async textBoxes(requests: A11yTextRequest[], deadlineMs: number): Promise<A11yTextBox[]> {
    const bus = await this.connection(deadlineMs);
    if (!bus) return [];
    const watchdog = new Watchdog(deadlineMs, Date.now() + deadlineMs);
    try {
      const found = await Promise.all(requests.map(({ path, text, whole }) => {
        const ref = this.refs.get(path);
        if (!ref || !text.trim()) return [];
        return Promise.race([textBoxesOf(bus, path, ref, text, whole === true), watchdog.expired]).catch(() => [] as A11yTextBox[]);
      }));
      return found.flat();
    } finally {
      watchdog.stop();
    }
  }

  close(): void {
    this.bus?.close();
    this.bus = null;
  }
}

/** The program's file name, from its command line (the kernel's own name for it stops at 15 characters). */
function processName(pid: number | null): string | null {
  if (!pid) return null;
  try {
    const program = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return program ? path.basename(program) : null;
  } catch {
    return null;
  }
}
