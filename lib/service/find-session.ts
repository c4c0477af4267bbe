import fs from 'fs';
import path from 'path';
import type { Box, Screen } from '../types/screen';
import type { AssertResult, CacheInfo, LocateAllResult, LocateResult, ModelCall } from '../types/locate';
import type { AiOptions } from '../config/options';
import { VisionModelRequiredError } from '../config/errors';
import { located } from './located';
import { AgentClient } from '../sandbox/agent-client';
import { asFound, CacheLookup, ElementCache, Partition } from '../cache/element-cache';
import { EngineChain } from '../locate/chain';
import { LocateRefusal } from '../locate/engine';
import { parseQuery, wrapDescription } from '../locate/query';
import { drawBoxes } from '../image/overlay';
import { encodePng } from '../image/pixels';
import { waitForStillScreen } from '../util/settle';
import { RETRY_CEILING_MS, runFind } from './find';
import { notFoundMessage } from './not-found';
import type { AssertRequest, LocateRequest, SessionSettings } from './service';
import { onlyClaimsVisibleText } from './statement';
import { quotedTexts } from '../util/quotes';
import type { A11ySnapshot } from '../types/a11y';
import type { DescribeRequest, ElementDescription, ViewInfo } from '../types/describe';
import { describeAt, DescribeTools, quote, usableName } from './describe';
import { isTextRole } from '../locate/a11y/roles';
import { normalise } from '../locate/text-match';
import { changedBeyondCaret, sampleFrame } from '../image/motion';
import { randomUUID } from 'crypto';

const SETTLE_BEFORE_ASSERT_MS = 2000;
/** The recorder's views kept per session: a gesture is described on the view taken just before it. */
const VIEWS_KEPT = 8;
/** The bound on reading the tree for a view. */
const VIEW_TREE_BOUND_MS = 1500;
/** Reads of the tree for one view, at most, while the screen keeps changing around them. */
const VIEW_LOOKS = 3;
/** Texts that appeared, at most, that one action suggests checking. */
const MAX_TEXTS_ADDED = 3;
const MISS: () => CacheInfo = () => ({ hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent: null, imageUrl: null });

/**
 * One client session's find work inside the Service: it captures the
 * sandbox's screen, consults the element cache, asks the engine chain, and
 * returns plain results. Pending cache entries and debug screenshots live here.
 */
export class FindSession {
  private readonly cache: ElementCache;

  constructor(
    private readonly stateDir: string,
    private readonly agent: AgentClient,
    private readonly chain: EngineChain,
    private readonly settings: SessionSettings,
    private readonly resolution: string,
    private readonly log: (line: string) => void,
    /** Where not-found screenshots are written (names cannot leave it). */
    private readonly screenshotsDir = path.join(stateDir, 'screenshots'),
  ) {
    this.cache = new ElementCache(stateDir, settings.cache.maxEntries);
  }

  get locator(): string {
    return this.chain.label;
  }

  private async capture(): Promise<Screen> {
    return { ...(await this.agent.screenRaw()), format: 'bgrx' };
  }

  private partition(description: string, request: LocateRequest): Partition | null {
    if (!this.settings.cache.enabled || request.cacheThreshold === -1 || request.cacheKey === null) return null;
    return { key: request.cacheKey, description, os: this.settings.os, resolution: this.resolution };
  }

  private thresholds(request: LocateRequest) {
    return { screen: request.cacheThreshold, element: this.settings.cache.thresholds.find.element };
  }

  async locate(request: LocateRequest): Promise<LocateResult> {
    const partition = this.partition(wrapDescription(request.description, request.type), request);
    const lookup = partition ? (screen: Screen, first: boolean) => this.cacheLook(partition, screen, request, first) : undefined;
    const modelCalls: ModelCall[] = [];
    const onModelCall = (call: ModelCall) => { modelCalls.push(call); };
    const outcome = await runFind({
      chain: this.chain, capture: () => this.capture(), changes: (after, timeoutMs, signal) => this.agent.screenChanges(after, timeoutMs, signal),
      sandbox: this.agent, log: this.log, lookup, onModelCall,
    }, request.description, request);
    const fromCache = !!outcome.cache?.candidate;
    // An element the cache found only by searching the whole screen (it moved) is kept for this screen too:
    // the next run finds it where it stands, without the search.
    const moved = fromCache && outcome.cache!.info.strategy === 'template-match';
    if (partition && outcome.candidate && outcome.screen && (!fromCache || moved)) this.cache.record(partition, outcome.screen, [asFound(outcome.candidate)]);
    const engines = this.chain.engines.map((e) => e.name).join(' then ');
    let notFound: string | null = null;
    let debugScreenshot: string | null = null;
    if (!outcome.candidate && outcome.cache?.absent) {
      notFound = `'${outcome.description}' is not on the screen: ${outcome.cache.absent}.`;
    } else if (!outcome.candidate) {
      if (partition && request.timeout === 0 && outcome.screen && !outcome.engine && !outcome.refused) {
        this.cache.recordAbsence(partition, outcome.screen, { reason: `the ${engines} engines did not find it on this same screen`, engine: engines });
      }
      if (outcome.screen) debugScreenshot = await this.writeDebugScreenshot(outcome.screen, outcome.best?.box ?? null, request.screenshotName);
      const seen = outcome.screen ? await this.chain.seenInstead(this.context(outcome.screen, request), outcome.query) : [];
      notFound = notFoundMessage(outcome, request, engines, seen, debugScreenshot, modelCalls.at(-1)?.answer ?? null);
    }
    const best = outcome.best;
    return {
      description: outcome.description,
      element: outcome.candidate && outcome.screen ? located(outcome.candidate, outcome.screen) : null,
      best: best ? { box: { ...best.box }, text: best.text ?? null, confidence: best.confidence } : null,
      notFound,
      engine: outcome.candidate?.engine ?? outcome.engine?.name ?? engines,
      attempts: outcome.attempts,
      elapsedMs: outcome.elapsedMs,
      cache: outcome.cache?.info ?? MISS(),
      similarity: outcome.cache?.similarity ?? null,
      debugScreenshot,
      modelCalls,
      aiResponse: outcome.candidate?.aiResponse ?? modelCalls.at(-1)?.answer ?? null,
      phases: outcome.phases,
    };
  }

  /**
   * The cache's answer for one look. A look that expects nothing to wait for
   * (`timeout: 0`, as "I should not see" asks) is also answered by an
   * absence: the engines found nothing on this same screen before.
   */
  private async cacheLook(partition: Partition, screen: Screen, request: LocateRequest, wholeScreen: boolean): Promise<CacheLookup> {
    const found = await this.confirmWithTree(this.cache.lookup(partition, screen, this.thresholds(request), wholeScreen), screen, request);
    if (found.candidate || request.timeout !== 0) return found;
    const absent = this.cache.lookupAbsence(partition, screen);
    return absent.verdict ? { ...found, info: absent.info, absent: `${absent.verdict.reason} (cached ${absent.info.createdAt})` } : found;
  }

  /**
   * A cached element the tree found is checked against the tree when the
   * screen changed a little: still there, with its name, where the cache says.
   * An unchanged screen needs no check, and neither does an element whose own
   * pixels are unchanged where it stood: the tree would add nothing they do
   * not show.
   */
  private async confirmWithTree(lookup: CacheLookup, screen: Screen, request: LocateRequest): Promise<CacheLookup> {
    const cached = lookup.candidate;
    if (!cached?.selector || cached.engine !== 'a11y' || !lookup.info.diffPercent) return lookup;
    if (lookup.samePixels) return lookup;
    const tree = this.chain.engines.find((e) => e.name === 'a11y');
    if (!tree?.verify) return lookup;
    const verdict = await tree.verify(this.context(screen, request), cached, parseQuery(wrapDescription(request.description, request.type)));
    if (verdict.ok) return { ...lookup, candidate: { ...cached, reason: `${cached.reason}; ${verdict.reason}` } };
    return { ...lookup, candidate: null, info: { ...lookup.info, hit: false, strategy: 'miss' } };
  }

  /** The recorder's views, oldest first. */
  private readonly views = new Map<string, { screen: Screen; tree: A11ySnapshot; windows: unknown }>();

  /** Captures the screen and its tree now, and keeps them as a view to describe gestures on. */
  async captureView(): Promise<ViewInfo> {
    // The screen and the tree must show the same moment: a screen that changed while the tree was read is read again.
    const empty: A11ySnapshot = { nodes: [], tookMs: 0, truncated: false, skipped: [] };
    let screen = await this.capture();
    let tree = empty;
    for (let look = 0; look < VIEW_LOOKS; look++) {
      tree = await this.agent.a11ySnapshot({ deadlineMs: VIEW_TREE_BOUND_MS }).catch(() => empty);
      const after = await this.capture();
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
    if (!tree.nodes.length) void this.chain.textsNear(this.context(screen), { x: -1, y: -1 }, 0).catch(() => undefined);
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
      if (!out.includes(text) && await after.refind(quote(text))) out.push(text);
    }
    return out;
  }

  /** The find machinery on a view: its screen, tree and windows, not what the screen shows by now. */
  private onView(viewId: string): DescribeTools {
    const view = this.views.get(viewId);
    if (!view) throw new Error(`The view '${viewId}' is not kept (the last ${VIEWS_KEPT} are); capture a view first.`);
    const { screen, tree, windows } = view;
    const call: AgentClient['call'] = (method, route, ...rest) => (method === 'GET' && route === '/windows/stack' ? Promise.resolve(windows as never) : this.agent.call(method, route, ...rest));
    const sandbox = {
      call,
      a11ySnapshot: async () => tree,
      a11yTextBoxes: this.agent.a11yTextBoxes.bind(this.agent),
    } as typeof this.agent;
    const settings = { timeout: 0, type: 'any' as const, zoom: false, verify: false, ai: {} };
    const context = () => ({ ...this.context(screen), sandbox });
    return {
      screen,
      nodes: tree.nodes.filter((n) => n.box.width >= 2 && n.box.height >= 2 && n.box.x >= 0 && n.box.y >= 0
        && n.box.x + n.box.width <= screen.width && n.box.y + n.box.height <= screen.height),
      refind: async (description) => (await runFind({ chain: this.chain, capture: async () => screen, sandbox, log: () => undefined }, description, settings)).candidate?.box ?? null,
      refindAll: async (description) => {
        try {
          return (await this.chain.locate(context(), parseQuery(description), { all: true })).candidates.map((c) => c.box);
        } catch (error) {
          if (error instanceof LocateRefusal) return [];
          throw error;
        }
      },
      textsNear: (x, y, radius) => this.chain.textsNear(context(), { x, y }, radius),
    };
  }

  async locateAll(request: LocateRequest): Promise<LocateAllResult> {
    const description = wrapDescription(request.description, request.type);
    const screen = await this.capture();
    const partition = this.partition(`findAll: ${description}`, request);
    const cached = partition ? this.cache.lookupAll(partition, screen, this.thresholds(request)) : null;
    let candidates = cached?.candidates ?? null;
    let refusal: string | null = null;
    const modelCalls: ModelCall[] = [];
    if (!candidates) {
      try {
        const context = { ...this.context(screen, request), onModelCall: (call: ModelCall) => { modelCalls.push(call); } };
        candidates = (await this.chain.locate(context, parseQuery(description), { all: true })).candidates;
      } catch (error) {
        if (!(error instanceof LocateRefusal)) throw error;
        refusal = error.message;
        candidates = [];
      }
      if (candidates.length) cached?.evictStale?.();
      if (partition) this.cache.record(partition, screen, candidates);
    }
    return {
      description,
      elements: candidates.map((c) => located(c, screen)),
      cache: cached?.info ?? MISS(),
      similarity: cached?.similarity ?? null,
      refusal,
      modelCalls,
    };
  }

  async readText(box: Box): Promise<string> {
    const screen = await this.capture();
    return this.chain.readText(this.context(screen), box);
  }

  /**
   * Judges a statement about the whole screen. A passed judgement is cached
   * against its screen. A statement that only claims quoted text is shown is
   * read by the engines first (the tree, OCR); anything else, and text they
   * cannot see, goes to the vision model. Without one, such a statement is
   * an error that says a model is needed.
   */
  async assert(request: AssertRequest): Promise<AssertResult> {
    const started = Date.now();
    const { statement } = request;
    const judge = this.chain.engines.find((e) => e.judge);
    const textOnly = onlyClaimsVisibleText(statement);
    if (!textOnly && !judge) {
      throw new VisionModelRequiredError(`assert('${statement}') needs a vision model: without one, Glance checks only statements that quoted text is shown (e.g. '"Thank you" is shown'). Set GLANCE_AI_MODEL (with GLANCE_AI_BASE_URL and GLANCE_AI_API_KEY) to an OpenAI-compatible vision model.`);
    }
    const screen = await waitForStillScreen(() => this.capture(), SETTLE_BEFORE_ASSERT_MS);
    const partition = this.settings.cache.enabled && request.threshold !== -1 && request.cacheKey !== null
      ? { key: request.cacheKey, description: statement, os: this.settings.os, resolution: this.resolution }
      : null;
    const cached = partition ? this.cache.lookupAssertion(partition, screen, request.threshold) : null;
    const modelCalls: ModelCall[] = [];
    const done = (passed: boolean, reason: string, engine: string): AssertResult => {
      if (passed && partition && !cached?.verdict) this.cache.recordAssertion(partition, screen, { reason, engine });
      return { passed, reason, engine, cache: cached?.info ?? MISS(), modelCalls, elapsedMs: Date.now() - started };
    };
    if (cached?.verdict) return done(true, cached.verdict.reason, cached.verdict.engine);
    let missing: string[] = [];
    if (textOnly) {
      missing = await this.missingTexts(screen, quotedTexts(statement), request.ai);
      const readers = this.chain.engines.filter((e) => !e.judge).map((e) => e.name).join(', ');
      if (!missing.length) return done(true, `the screen shows ${quotedTexts(statement).map((t) => `'${t}'`).join(', ')}`, readers);
      if (!judge) return done(false, `the screen does not show ${missing.map((m) => `'${m}'`).join(', ')}`, readers);
    }
    const context = { ...this.context(screen), ai: request.ai, onModelCall: (call: ModelCall) => { modelCalls.push(call); } };
    const verdict = await judge!.judge!(context, statement);
    return done(verdict.ok, verdict.reason, judge!.name);
  }

  /** The quoted texts the engines that read text (not the model) do not find on the screen. */
  private async missingTexts(screen: Screen, texts: string[], ai: AiOptions): Promise<string[]> {
    const readers = new EngineChain('auto', this.chain.engines.filter((e) => !e.judge));
    const missing: string[] = [];
    for (const text of texts) {
      const outcome = await runFind({ chain: readers, capture: async () => screen, sandbox: this.agent, log: () => undefined },
        `The text "${text}"`, { timeout: 0, type: 'any', zoom: false, verify: false, ai });
      if (!outcome.candidate) missing.push(text);
    }
    return missing;
  }

  commitCache(): Promise<number> {
    return this.cache.commit();
  }

  discardCache(): number {
    return this.cache.discard();
  }

  /** Hands the sandbox back: it stays rejoinable for `keepAlive` ms (0 stops it). */
  async release(keepAlive: number): Promise<void> {
    await this.agent.call('POST', '/release', { keepAlive }, 5_000);
  }

  close(): void {
    this.cache.discard();
    this.cache.close();
    this.agent.close();
  }

  private context(screen: Screen, request?: LocateRequest) {
    return { screen, sandbox: this.agent, deadline: Date.now() + (request?.timeout || RETRY_CEILING_MS), ai: request?.ai ?? {} };
  }

  /** The screen with the best candidate drawn in red, under the name the client chose (or a generic one). */
  private async writeDebugScreenshot(screen: Screen, best: Box | null, name: string | undefined): Promise<string> {
    const root = this.screenshotsDir;
    const file = path.resolve(root, name ?? `session/${Date.now()}-find-notfound.png`);
    if (!file.startsWith(root + path.sep)) throw new Error(`The screenshot name '${name}' leaves the screenshots folder; give a relative name without '..'.`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const marks = best ? [{ box: best, colour: [230, 30, 30] as [number, number, number] }] : [];
    fs.writeFileSync(file, await encodePng(drawBoxes(screen, marks)));
    return file;
  }
}
