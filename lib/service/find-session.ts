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
import { RecorderViews } from './views';

const SETTLE_BEFORE_ASSERT_MS = 2000;
const MISS: () => CacheInfo = () => ({ hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent: null, imageUrl: null });

/**
 * One client session's find work inside the Service: it captures the
 * sandbox's screen, consults the element cache, asks the engine chain, and
 * returns plain results. Pending cache entries and debug screenshots live here.
 */
export class FindSession {
  private readonly cache: ElementCache;
  /** The recorder's views of this session's screen. */
  readonly views: RecorderViews;

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
    // With no cache, the engines answer every find: they warm while the session opens its programs.
    if (!settings.cache.enabled) chain.warm();
    this.views = new RecorderViews(agent, chain, () => this.capture());
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
    // A cache that holds nothing for the description is not consulted: the engines start with the first look.
    const lookup = partition && this.cache.holds(partition, request.timeout === 0)
      ? (screen: Screen, first: boolean) => this.cacheLook(partition, screen, request, first) : undefined;
    const modelCalls: ModelCall[] = [];
    const onModelCall = (call: ModelCall) => { modelCalls.push(call); };
    const outcome = await runFind({
      chain: this.chain, capture: () => this.capture(), changes: (after, timeoutMs, signal) => this.agent.screenChanges(after, timeoutMs, signal, true),
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
      const outcome = await runFind({ chain: readers, capture: async () => screen, screenGiven: true, sandbox: this.agent, log: () => undefined },
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
