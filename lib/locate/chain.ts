import type { Box, Screen } from '../types/screen';
import type { Candidate } from '../types/locate';
import { settledWithin, unlessAborted } from '../util/wait';
import { Capability, EngineContext, LocateEngine, LocateRefusal, neededCapability, NotThere, SandboxHandle, ScreenMoved } from './engine';
import { Query } from './query';
import { normalise } from './text-match';
import { confirmOnPixels, crossCheck } from './cross-check';
import { cropScreen } from '../image/crop';
import { contains } from './geometry';

/** How many of the nearest texts a not-found message names. */
const SEEN_INSTEAD = 4;

/**
 * Engines in order, best first. A description goes to the engines that can
 * answer it; one that refuses, or finds nothing, passes it to the next. Zoom,
 * verify and the confidence gate are applied here, once, for every engine.
 */
export interface ChainAnswer {
  candidates: Candidate[];
  /** The engine that answered; null when none found anything. */
  engine: LocateEngine | null;
  /** Boxes a model gave that the other engines' reading contradicted. */
  contradictions?: string[];
}

export interface AttemptSettings {
  confidence?: number;
  zoom: boolean;
  verify: boolean;
}

export interface AttemptResult {
  candidate: Candidate | null;
  best: Candidate | null;
  rejection: string;
  engine: LocateEngine | null;
}

/** The zoom crop is 30% of the screen in each direction, read at twice the size. */
export const ZOOM_SHARE = 0.3;
const ZOOM_SCALE = 2;
/** stop() waits this long at most for the engines' work a find has left behind (each read also ends at its find's deadline). */
const LEFT_BEHIND_MS = 10_000;
const NEEDS_VISION = 'Elements that show no text need a vision model: set GLANCE_AI_MODEL (with GLANCE_AI_BASE_URL and GLANCE_AI_API_KEY) to any OpenAI-compatible one.';

export class EngineChain {
  private started: Promise<void> | null = null;
  private warming = false;
  /**
   * The engines' looks under way. A find leaves a look whose screen moved,
   * and the look runs on to its end: stopped under it, an engine would start
   * its readers again for it, and nothing would end them.
   */
  private readonly looks = new Set<Promise<unknown>>();

  constructor(readonly choice: string, readonly engines: LocateEngine[]) {}

  /** `auto (ocr)`, or the one engine's name: what the report's metadata shows. */
  get label(): string {
    return this.choice === 'auto' ? `auto (${this.engines.map((e) => e.label ?? e.name).join(', ')})` : this.engines[0]?.label ?? this.choice;
  }

  start(): Promise<void> {
    this.started ??= Promise.all(this.engines.map((e) => e.start?.())).then(() => undefined);
    this.started.catch(() => { this.started = null; });
    return this.started;
  }

  /**
   * Starts the engines and warms them in the background, once until they
   * stop. stop() waits for it as for a look left behind; a warm-up that
   * fails leaves the error to the first use.
   */
  warm(): void {
    if (this.warming) return;
    this.warming = true;
    void this.underWay(this.start().then(() => Promise.all(this.engines.map((e) => e.warm?.())))).catch(() => undefined);
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = null;
    this.warming = false;
    await settledWithin(Promise.allSettled([...this.looks]), LEFT_BEHIND_MS);
    await Promise.all(this.engines.map((e) => e.stop?.()));
  }

  private underWay<T>(look: Promise<T>): Promise<T> {
    this.looks.add(look);
    const done = () => this.looks.delete(look);
    look.then(done, done);
    return look;
  }

  /**
   * Each engine's reading begun before the capture (see LocateEngine.beforeCapture),
   * for the look at the screen captured next; undefined when no engine reads anything but pixels.
   */
  beforeCapture(sandbox: SandboxHandle, deadline: number, query: Query): Map<LocateEngine, Promise<unknown>> | undefined {
    const readers = this.engines.filter((e) => e.beforeCapture);
    if (!readers.length) return undefined;
    return new Map(readers.map((engine) => [engine, this.underWay(engine.beforeCapture!(sandbox, deadline, query))]));
  }

  forget(): void {
    for (const engine of this.engines) engine.forget?.();
  }

  /** The engines that have a capability, in order. */
  able(capability: Capability): LocateEngine[] {
    return this.engines.filter((e) => e.capabilities.includes(capability));
  }

  /** The first engine that answers with candidates. Throws LocateRefusal when no engine can answer at all. */
  async locate(context: EngineContext, query: Query, options: { all?: boolean } = {}): Promise<ChainAnswer> {
    if (query.within !== undefined) return this.locateWithin(context, query, options);
    await this.start();
    const able = this.able(neededCapability(query));
    if (!able.length) throw new LocateRefusal(this.refusal(query));
    const exact = context.exactOnly ? able.filter((e) => e.exact) : [];
    const capable = exact.length ? exact : able;
    const refusals: string[] = [];
    const contradictions: string[] = [];
    for (const [index, engine] of capable.entries()) {
      // A slower engine reads the screen only while it is still the one captured, and an engine still
      // reading when it changes is left: a page that painted meanwhile (a click's navigation, words that
      // appeared) is looked at afresh. The first engine does not wait for a look: it is the look.
      const stale = context.stale;
      if (index > 0 && stale && await stale.check()) throw new ScreenMoved();
      try {
        const located = this.underWay(engine.locate(context, query, options));
        let candidates = await (stale ? unlessAborted(located, stale.signal, () => new ScreenMoved()) : located);
        if (candidates.length && engine.needsEvidence) {
          const checked = await crossCheck(candidates, query, context, this.engines.filter((e) => e !== engine));
          candidates = checked.kept;
          contradictions.push(...checked.contradictions);
        } else if (candidates.length && engine.exact) {
          candidates = await confirmOnPixels(candidates, query, context, this.engines.filter((e) => !e.exact));
        }
        if (candidates.length) return { candidates, engine };
      } catch (error) {
        if (error instanceof NotThere) return { candidates: [], engine: null, contradictions: [error.message] };
        if (!(error instanceof LocateRefusal)) throw error;
        refusals.push(error.message);
      }
    }
    // The exact engines alone refusing is no refusal: the others are still to look.
    if (refusals.length === capable.length && capable === able) throw new LocateRefusal(refusals.join(' '));
    return { candidates: [], engine: null, contradictions };
  }

  /**
   * "the 'OK' button in the 'Billing' dialog": the element found as if the
   * window were not named, kept only inside the window of that title (the
   * topmost, where several share it); an ordinal counts inside it.
   */
  private async locateWithin(context: EngineContext, query: Query, options: { all?: boolean }): Promise<ChainAnswer> {
    const title = query.within!;
    if (!context.sandbox) throw new LocateRefusal(`'in the '${title}' dialog' needs the sandbox's windows: it works on a live sandbox, not on a screenshot file.`);
    const stack = await context.sandbox.call<{ box: Box; title: string }[]>('GET', '/windows/stack');
    const wanted = normalise(title);
    const window = [...stack].reverse().find((w) => normalise(w.title) === wanted) ?? [...stack].reverse().find((w) => normalise(w.title).includes(wanted));
    // As an exact engine's "not there": no other engine could find a window that is not on the screen.
    if (!window) return { candidates: [], engine: null, contradictions: [`no window titled '${title}' is on the screen (windows: ${stack.map((w) => w.title).filter(Boolean).map((t) => `'${t}'`).join(', ') || 'none'})`] };
    const { within: _within, ...inner } = query;
    const inside = (c: Candidate) => contains(window.box, c.box.x + c.box.width / 2, c.box.y + c.box.height / 2);
    const kept = async (all: boolean, asked: Query) => {
      const answer = await this.locate(context, asked, { all });
      return { ...answer, candidates: answer.candidates.filter(inside) };
    };
    if (query.ordinal === null) {
      const best = await kept(!!options.all, inner);
      if (best.candidates.length || options.all) return best;
      return kept(true, inner);
    }
    const every = await kept(true, { ...inner, ordinal: null });
    const index = query.ordinal === -1 ? every.candidates.length - 1 : query.ordinal - 1;
    return { ...every, candidates: every.candidates[index] ? [every.candidates[index]] : [] };
  }

  /** One look: locate, then zoom, the confidence gate and verify, with the engine that answered. */
  async attempt(context: EngineContext, query: Query, settings: AttemptSettings): Promise<AttemptResult> {
    const { candidates: [first], engine, contradictions } = await this.locate(context, query);
    if (!first || !engine) return { candidate: null, best: null, rejection: contradictions?.length ? contradictions.join('; ') : 'nothing on the screen matched', engine: null };
    let candidate = settings.zoom ? await zoomIn(engine, context, query, first) : first;
    if (settings.confidence !== undefined && candidate.confidence < settings.confidence) {
      return { candidate: null, best: candidate, engine, rejection: `the best match scored ${candidate.confidence} (below the confidence of ${settings.confidence})` };
    }
    if (settings.verify) {
      const checker = engine.verify ? engine : this.engines.find((e) => e.verify);
      if (checker?.verify) {
        const verdict = await checker.verify(context, candidate, query);
        if (!verdict.ok) return { candidate: null, best: candidate, engine, rejection: `verify rejected the match: ${verdict.reason}` };
        candidate = { ...candidate, reason: `${candidate.reason}; verified: ${verdict.reason}` };
      }
    }
    return { candidate, best: candidate, rejection: '', engine };
  }

  /**
   * What a person would see instead: the texts nearest to what was asked. The
   * engines that read pixels speak first (what they read is on the screen);
   * the others fill in, without repeating a text.
   */
  async seenInstead(context: EngineContext, query: Query): Promise<string[]> {
    const speakers = this.engines.filter((e) => e.seenInstead).sort((a, b) => Number(!!a.exact) - Number(!!b.exact));
    const lists = await Promise.all(speakers.map((e) => e.seenInstead!(context, query).catch(() => [] as string[])));
    const seen = new Map<string, string>();
    for (const text of lists.flat()) if (!seen.has(normalise(text))) seen.set(normalise(text), text);
    return [...seen.values()].slice(0, SEEN_INSTEAD);
  }

  /** The phrases shown near a point, nearest first, from the first engine that reads the pixels. */
  async textsNear(context: EngineContext, point: { x: number; y: number }, radius: number): Promise<{ text: string; box: Box }[]> {
    await this.start();
    const reader = this.engines.find((e) => e.textsNear);
    return reader ? reader.textsNear!(context, point, radius) : [];
  }

  /** What a person would call the element in a box, from the engine that names (a vision model); null without one. */
  async nameAt(context: EngineContext, box: Box): Promise<string | null> {
    const namer = this.engines.find((e) => e.nameAt);
    return namer ? namer.nameAt!(context, box) : null;
  }

  /** The text inside a box, from the first engine that can tell (the tree's value before the pixels). */
  async readText(context: EngineContext, box: Box): Promise<string> {
    await this.start();
    const readers = this.able('readText').filter((e) => e.readText);
    for (const engine of readers) {
      const text = await engine.readText!(context, box);
      if (text !== null) return text;
    }
    if (!readers.length) throw new LocateRefusal(`No engine of the '${this.choice}' locator reads text; use locator 'ocr' or 'auto'.`);
    return '';
  }

  private refusal(query: Query): string {
    const names = this.engines.map((e) => e.name.toUpperCase()).join(' and ');
    const what = `'${query.description}'`;
    const why = query.relation !== null
      ? 'icons and images carry no text'
      : `it names no text to read${query.visualWords.length ? ` (only ${query.visualWords.join(', ')})` : ''}`;
    return `The ${names} engine cannot find ${what}: ${why}. ${NEEDS_VISION}`;
  }
}

/**
 * Zoom: crop 30% of the screen around the approximate match, upscale it,
 * locate again in the crop, and map the result back to screen coordinates.
 * When the closer look finds nothing, the approximate match stands.
 */
async function zoomIn(engine: LocateEngine, context: EngineContext, query: Query, rough: Candidate): Promise<Candidate> {
  if (engine.exact) return { ...rough, reason: `${rough.reason}; zoom skipped: the ${engine.name} engine's box is exact` };
  const region = zoomRegion(context.screen, rough.box);
  const crop = cropScreen(context.screen, region, ZOOM_SCALE);
  const [fine] = await engine.locate({ ...context, screen: crop, crop: { region, scale: ZOOM_SCALE } }, query).catch(() => []);
  if (!fine) return { ...rough, reason: `${rough.reason}; zoom found nothing closer, kept the first match` };
  const back = (b: Box): Box => ({
    x: Math.round(region.x + b.x / ZOOM_SCALE), y: Math.round(region.y + b.y / ZOOM_SCALE),
    width: Math.round(b.width / ZOOM_SCALE), height: Math.round(b.height / ZOOM_SCALE),
  });
  return { ...fine, box: back(fine.box), evidence: fine.evidence ? back(fine.evidence) : undefined, reason: `${fine.reason} (zoomed into ${region.width}x${region.height} at ${region.x},${region.y})` };
}

export function zoomRegion(screen: { width: number; height: number }, around: Box): Box {
  const width = Math.round(screen.width * ZOOM_SHARE);
  const height = Math.round(screen.height * ZOOM_SHARE);
  const cx = around.x + around.width / 2;
  const cy = around.y + around.height / 2;
  const x = Math.max(0, Math.min(screen.width - width, Math.round(cx - width / 2)));
  const y = Math.max(0, Math.min(screen.height - height, Math.round(cy - height / 2)));
  return { x, y, width, height };
}
