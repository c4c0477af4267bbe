import type { A11yNode, A11ySnapshot } from '../../types/a11y';
import type { Box, Screen } from '../../types/screen';
import { Candidate, Capability, EngineContext, LocateEngine, SandboxHandle, Verdict } from '../engine';
import { textWithin } from '../geometry';
import { Query } from '../query';
import { similarity } from '../text-match';
import { textsAsked, TreeMatcher } from './match';
import { fitsRole, isField, selectorRole } from './roles';

/**
 * The accessibility engine: Chromium, GTK and Qt publish what is on the screen
 * (role, name, exact box) over AT-SPI, and the sandbox's agent serves the
 * visible part of that tree. Where there is no tree (Tk, a canvas, a remote
 * desktop) it finds nothing, and the chain passes the find to OCR.
 */
const SNAPSHOT_BOUND_MS = 1000;
/** A box whose pixels vary less than this shows nothing: the tree is stale or the element is not drawn. */
const MIN_CONTRAST = 12;
const SEEN_INSTEAD = 4;
/** The bound on asking where words stand inside texts. */
const TEXT_BOXES_BOUND_MS = 500;

export class A11yEngine implements LocateEngine {
  readonly name = 'a11y';
  readonly capabilities: readonly Capability[] = ['text', 'label', 'readText'];
  readonly exact = true;
  /** One snapshot per captured screen: zoom, verify and the not-found message reuse it. */
  private readonly snapshots = new WeakMap<Buffer, Promise<A11ySnapshot>>();
  /** The texts a snapshot was asked to place (A11ySnapshot.textBoxes): a look asks the agent for the others only. */
  private readonly placedTexts = new WeakMap<A11ySnapshot, readonly string[]>();

  /** Each sandbox's look under way: the next waits for it (see locate). */
  private readonly looking = new WeakMap<object, Promise<unknown>>();

  /**
   * One look at a time per sandbox. The agent's text boxes belong to its last
   * snapshot, so a look left behind by a find whose screen moved (it goes on
   * in the agent) must end before the next look takes its snapshot.
   */
  async locate(context: EngineContext, query: Query, options: { all?: boolean } = {}): Promise<Candidate[]> {
    const sandbox = context.sandbox;
    if (!sandbox) return this.look(context, query, options);
    const look = (this.looking.get(sandbox) ?? Promise.resolve()).then(() => this.look(context, query, options));
    this.looking.set(sandbox, look.catch(() => undefined));
    return look;
  }

  /**
   * The snapshot for the screen about to be captured, begun before it: a
   * find waiting for something to appear has it the sooner. It takes its
   * turn among the sandbox's looks, as a look's own snapshot does.
   */
  beforeCapture(sandbox: SandboxHandle, deadline: number, query: Query): Promise<A11ySnapshot> {
    const snapshot = (this.looking.get(sandbox) ?? Promise.resolve()).then(() => this.snapshotOf(sandbox, deadline, textsAsked(query)));
    this.looking.set(sandbox, snapshot);
    return snapshot;
  }

  private async look(context: EngineContext, query: Query, options: { all?: boolean }): Promise<Candidate[]> {
    // Boxes from the tree are exact already, and in screen coordinates: a zoomed crop adds nothing.
    if (context.crop) return [];
    const snapshot = await this.fetch(context, false, textsAsked(query));
    const nodes = this.visible(snapshot, context);
    if (!nodes.length) return [];
    // Where the words stand inside the nodes' texts (an editor's line, a heading's words): asked only where a text holds them.
    // The snapshot placed the texts it was asked about as its walk met them (an agent that cannot says so by giving none).
    const placed = snapshot.textBoxes ? this.placedTexts.get(snapshot) ?? [] : [];
    const requests = new TreeMatcher(nodes, context.screen).textRequests(query);
    const rest = requests.filter((r) => !placed.includes(r.text));
    const boxes = (snapshot.textBoxes ?? []).filter((b) => placed.includes(b.text) && requests.some((r) => r.path === b.path && r.text === b.text));
    const sandbox = context.sandbox;
    if (rest.length && sandbox?.a11yTextBoxes) {
      boxes.push(...await sandbox.a11yTextBoxes(rest, Math.max(50, Math.min(TEXT_BOXES_BOUND_MS, context.deadline - Date.now()))).catch(() => []));
    }
    return new TreeMatcher(nodes, context.screen, boxes).locate(query, options.all);
  }

  /** A second look: the element is still in the tree, with the same name, where it was. */
  async verify(context: EngineContext, candidate: Candidate): Promise<Verdict> {
    const fresh = await this.fetch(context, true);
    // A heading across the page was found where its words stand (see TreeMatcher): its node, of the role the
    // selector names (not the document titled alike), holds them.
    const role = candidate.selector?.split(' >> ').pop()?.match(/^role=([\w-]+)/)?.[1];
    const same = fresh.nodes.find((n) => (n.name || n.value || undefined) === candidate.text
      && (iou(n.box, candidate.box) > 0.8 || (selectorRole(n) === role && textWithin(candidate.box, n.box))));
    return same
      ? { ok: true, confidence: 1, reason: `the tree still shows the ${same.role} '${candidate.text}' at ${same.box.x},${same.box.y}` }
      : { ok: false, confidence: 0, reason: `the tree no longer shows '${candidate.text ?? ''}' at ${candidate.box.x},${candidate.box.y}` };
  }

  async seenInstead(context: EngineContext, query: Query): Promise<string[]> {
    const wanted = query.text ?? query.relation?.anchor ?? '';
    // Window and page titles are not on the screen a person reads (kiosk pages have none): controls and text only.
    const shown = (await this.visibleNow(context)).filter((n) => fitsRole(n, null));
    const names = [...new Set(shown.map((n) => n.name || n.value || '').filter((n) => /\p{L}{2}/u.test(n)))];
    return names.map((text) => ({ text, score: similarity(text, wanted) })).sort((a, b) => b.score - a.score).slice(0, SEEN_INSTEAD).map((n) => n.text);
  }

  /** The value or text of the element at the box, when the tree has one; null sends the read to the pixels. */
  async readText(context: EngineContext, box: Box): Promise<string | null> {
    const nodes = await this.visibleNow(context);
    const at = nodes.filter((n) => iou(n.box, box) > 0.5).sort((a, b) => iou(b.box, box) - iou(a.box, box));
    // A field shows its value, and an empty one shows nothing of its own: never its label or its placeholder.
    const field = at.find((n) => isField(n) && n.value !== null);
    if (field) return field.value;
    const withText = at.find((n) => n.value !== null && n.value !== '') ?? at.find((n) => n.name && !isField(n) && n.nameShown !== false);
    return withText ? (withText.value || withText.name) : null;
  }

  /** The nodes the screen really shows: inside it, of some size, and with something drawn there. */
  private visible({ nodes }: A11ySnapshot, context: EngineContext): A11yNode[] {
    return nodes.filter((n) => n.box.width >= 2 && n.box.height >= 2 && inside(n.box, context.screen) && drawn(context.screen, n.box));
  }

  private async visibleNow(context: EngineContext): Promise<A11yNode[]> {
    return this.visible(await this.fetch(context, false), context);
  }

  /** The snapshot for the context's screen; `texts`, for the one taken now, are placed in the nodes that hold them. */
  private fetch(context: EngineContext, fresh: boolean, texts: readonly string[] = []): Promise<A11ySnapshot> {
    const sandbox = context.sandbox;
    if (!sandbox) return this.snapshotOf(null, context.deadline);
    if (fresh) return this.snapshotOf(sandbox, context.deadline);
    const key = context.screen.data;
    let snapshot = this.snapshots.get(key);
    if (!snapshot) {
      snapshot = (context.early?.get(this) as Promise<A11ySnapshot> | undefined) ?? this.snapshotOf(sandbox, context.deadline, texts);
      this.snapshots.set(key, snapshot);
    }
    return snapshot;
  }

  /** The sandbox's tree now, within the bound and the deadline; empty where it has none, or gives no answer. */
  private snapshotOf(sandbox: SandboxHandle | null, deadline: number, texts: readonly string[] = []): Promise<A11ySnapshot> {
    if (!sandbox?.a11ySnapshot) return Promise.resolve({ nodes: [], tookMs: 0, truncated: false, skipped: [] });
    const deadlineMs = Math.max(100, Math.min(SNAPSHOT_BOUND_MS, deadline - Date.now()));
    return sandbox.a11ySnapshot({ deadlineMs, ...(texts.length ? { texts: [...texts] } : {}) }).then(
      (snapshot) => {
        if (texts.length) this.placedTexts.set(snapshot, texts);
        return snapshot;
      },
      () => ({ nodes: [], tookMs: 0, truncated: false, skipped: ['(no answer)'] }),
    );
  }
}

function inside(box: Box, screen: { width: number; height: number }): boolean {
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= screen.width && box.y + box.height <= screen.height;
}

/** Intersection over union: 1 for the same box, low for a box inside a much larger one (a window around a button). */
function iou(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/** Whether the pixels in a box vary at all (sampled): an element that is drawn shows an edge, a border or text. */
function drawn(screen: Screen, box: Box): boolean {
  let min = 255;
  let max = 0;
  // Dense enough to meet a few small words at one end of a wide box (a paragraph across the page).
  const stepX = Math.max(1, Math.floor(box.width / 96));
  const stepY = Math.max(1, Math.floor(box.height / 24));
  for (let y = box.y; y < box.y + box.height; y += stepY) {
    for (let x = box.x; x < box.x + box.width; x += stepX) {
      const i = (y * screen.width + x) * 4;
      const grey = (screen.data[i] + screen.data[i + 1] + screen.data[i + 2]) / 3;
      if (grey < min) min = grey;
      if (grey > max) max = grey;
      if (max - min >= MIN_CONTRAST) return true;
    }
  }
  return false;
}
