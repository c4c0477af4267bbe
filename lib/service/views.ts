import { randomUUID } from 'crypto';
import type { AgentClient } from '../sandbox/agent-client';
import type { A11ySnapshot } from '../types/a11y';
import type { DescribeRequest, ElementDescription, ViewInfo, ViewPictureRequest } from '../types/describe';
import type { Box, Screen } from '../types/screen';
import { LocateRefusal, SandboxHandle } from '../locate/engine';
import { EngineChain } from '../locate/chain';
import { parseQuery } from '../locate/query';
import { isTextRole } from '../locate/a11y/roles';
import { normalise } from '../locate/text-match';
import { changedBeyondCaret, sampleFrame } from '../image/motion';
import { stepPicture } from '../image/step-picture';
import { RETRY_CEILING_MS, runFind } from './find';
import { describeAt, DescribeTools, usableName } from './describe';
import { inQuotes } from '../util/quotes';

/** The recorder's views kept per session: a gesture is described on the view taken just before it. */
const VIEWS_KEPT = 8;
/**
 * Reading the tree for a view is patient: a description made on a tree cut
 * short, or without a browser that was slow to answer on a loaded machine,
 * names the element worse ("'Email me updates'" for the checkbox it labels),
 * and a person's pace leaves the time.
 */
const VIEW_TREE = { deadlineMs: 5000, appIdleMs: 1500 };
/** Reads of the tree for one view, at most, while the screen keeps changing around them. */
const VIEW_LOOKS = 3;
/** Texts that appeared, at most, that one action suggests checking. */
const MAX_TEXTS_ADDED = 3;

const context = (screen: Screen, sandbox: SandboxHandle) => ({ screen, sandbox, deadline: Date.now() + RETRY_CEILING_MS, ai: {} });

/**
 * The recorder's views of a session's screen: the screenshot, its
 * accessibility tree and the window stack, taken together and kept for a
 * while, and the find machinery run on one of them (not on what the screen
 * shows by now): describing the element at a point, finding a description,
 * the texts that appeared between two.
 */
export class RecorderViews {
  /** Oldest first. */
  private readonly views = new Map<string, { screen: Screen; tree: A11ySnapshot; windows: unknown }>();

  constructor(
    private readonly agent: AgentClient,
    private readonly chain: EngineChain,
    private readonly captureScreen: () => Promise<Screen>,
  ) {}

  /** Captures the screen and its tree now, and keeps them as a view to describe gestures on. */
  async capture(): Promise<ViewInfo> {
    // The screen and the tree must show the same moment: a screen that changed while the tree was read is read again.
    const empty: A11ySnapshot = { nodes: [], tookMs: 0, truncated: false, skipped: [] };
    let screen = await this.captureScreen();
    let tree = empty;
    for (let look = 0; look < VIEW_LOOKS; look++) {
      tree = await this.agent.a11ySnapshot(VIEW_TREE).catch(() => empty);
      const after = await this.captureScreen();
      // A caret that blinked meanwhile is no change.
      if (!changedBeyondCaret(sampleFrame(screen), sampleFrame(after), screen.width)) break;
      screen = after;
    }
    // The windows too: "in the 'Billing' dialog" is found again on the view, also once the dialog has closed.
    const windows = await this.agent.call('GET', '/windows/stack').catch(() => []);
    const viewId = randomUUID();
    this.views.set(viewId, { screen, tree, windows });
    for (const old of this.views.keys()) if (this.views.size > VIEWS_KEPT) this.views.delete(old);
    // Without a tree, the words come from the pixels: they are read now, ahead of the first gesture.
    if (!tree.nodes.length) void this.chain.textsNear(context(screen, this.agent), { x: -1, y: -1 }, 0).catch(() => undefined);
    return { viewId, width: screen.width, height: screen.height, tree: tree.nodes.length > 0 };
  }

  /** Describes the element at a point of a view, in words found again on that same view (see describe.ts). */
  async describeAt(request: DescribeRequest): Promise<ElementDescription> {
    return describeAt(this.onView(request.viewId), request);
  }

  /** Where a description finds its element on a view (the same find as a test run, on that screen); null when it does not. */
  async findOnView(viewId: string, description: string): Promise<Box | null> {
    return this.onView(viewId).refind(description);
  }

  /**
   * The texts one view shows that an earlier one did not (what an action made
   * appear), in reading order, each found again on the later view: what a
   * person would check next. Read from the tree's text, or from the pixels
   * where there is no tree.
   */
  async textsAdded(beforeId: string, afterId: string): Promise<string[]> {
    const [before, after] = [this.onView(beforeId), this.onView(afterId)];
    const shown = async (tools: DescribeTools) => tools.nodes.length
      ? tools.nodes.filter((n) => isTextRole(n) && n.nameShown !== false).map((n) => ({ text: (n.value || n.name).trim(), box: n.box }))
      : tools.textsNear(0, 0, Infinity);
    const seen = new Set((await shown(before)).map((t) => normalise(t.text)));
    const added = (await shown(after)).filter((t) => usableName(t.text) && !seen.has(normalise(t.text)))
      .sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
    const out: string[] = [];
    for (const { text } of added) {
      if (out.length >= MAX_TEXTS_ADDED) break;
      if (!out.includes(text) && await after.refind(inQuotes(text))) out.push(text);
    }
    return out;
  }

  /** A step's picture on a view (PNG): its element outlined, and every password field on it filled grey, whatever it shows. */
  async picture(request: ViewPictureRequest): Promise<Buffer> {
    const { screen, tree } = this.kept(request.viewId);
    const passwords = tree.nodes.filter((n) => n.role === 'password text').map((n) => n.box);
    return stepPicture(screen, request.box, [...passwords, ...request.masks]);
  }

  private kept(viewId: string) {
    const view = this.views.get(viewId);
    if (!view) throw new Error(`The view '${viewId}' is not kept (the last ${VIEWS_KEPT} are); capture a view first.`);
    return view;
  }

  /** The find machinery on a view: its screen, tree and windows, not what the screen shows by now. */
  private onView(viewId: string): DescribeTools {
    const { screen, tree, windows } = this.kept(viewId);
    const sandbox: SandboxHandle = {
      call: (method, route, ...rest) => (method === 'GET' && route === '/windows/stack' ? Promise.resolve(windows as never) : this.agent.call(method, route, ...rest)),
      a11ySnapshot: async () => tree,
      a11yTextBoxes: this.agent.a11yTextBoxes.bind(this.agent),
    };
    const settings = { timeout: 0, type: 'any' as const, zoom: false, verify: false, ai: {} };
    const onView = () => context(screen, sandbox);
    return {
      screen,
      nodes: tree.nodes.filter((n) => n.box.width >= 2 && n.box.height >= 2 && n.box.x >= 0 && n.box.y >= 0
        && n.box.x + n.box.width <= screen.width && n.box.y + n.box.height <= screen.height),
      refind: async (description) => (await runFind({ chain: this.chain, capture: async () => screen, sandbox, log: () => undefined }, description, settings)).candidate?.box ?? null,
      refindAll: async (description) => {
        try {
          return (await this.chain.locate(onView(), parseQuery(description), { all: true })).candidates.map((c) => c.box);
        } catch (error) {
          if (error instanceof LocateRefusal) return [];
          throw error;
        }
      },
      textsNear: (x, y, radius) => this.chain.textsNear(onView(), { x, y }, radius),
      nameAt: (box) => this.chain.nameAt(onView(), box),
    };
  }
}
