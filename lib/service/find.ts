import type { Screen } from '../types/screen';
import type { Candidate, ModelCall } from '../types/locate';
import type { AiOptions } from '../config/options';
import type { CacheLookup } from '../cache/element-cache';
import { EngineChain } from '../locate/chain';
import { LocateEngine, LocateRefusal, SandboxHandle, ScreenMoved } from '../locate/engine';
import { ChangeSource, MovedScreen, ScreenWatch, WatchedStaleness } from './screen-watch';
import { parseQuery, Query, TypeHint, wrapDescription } from '../locate/query';

/**
 * The find pipeline, written once for every engine: polling within the
 * timeout, the cache, then the engine chain (with zoom, verify and the
 * confidence gate).
 *
 * Polling: the spec's 5 s interval is a ceiling. The screen is watched in
 * between (the sandbox says when something is drawn), and a screen that
 * changed is looked at again at once, so a find that succeeds on its second
 * look does not wait out a whole interval. An unchanged screen is re-checked
 * every 5 s. A look whose screen moves while a slower engine reads it is
 * left for a look at the new screen.
 */
export interface FindSettings {
  timeout: number;
  confidence?: number;
  type: TypeHint;
  zoom: boolean;
  verify: boolean;
  ai: AiOptions;
}

export interface FindOutcome {
  description: string;
  query: Query;
  candidate: Candidate | null;
  /** The best candidate seen, also when it was rejected. */
  best: Candidate | null;
  /** The engine that answered, when one did. */
  engine: LocateEngine | null;
  /** Why nothing was found, when nothing was. */
  rejection: string | null;
  /** No engine could answer this kind of description: nothing was looked for. */
  refused: boolean;
  attempts: number;
  elapsedMs: number;
  screen: Screen | null;
  /** The last cache lookup, when the cache was consulted. */
  cache: CacheLookup | null;
  /** Where the find's time went. */
  phases: FindPhases;
}

/** Where a find's time went, in ms: capturing the screen, the cache, the engines, and waiting for the screen to change between looks. */
export interface FindPhases {
  capture: number;
  cache: number;
  engine: number;
  change: number;
}

/** Adds the time `work` takes to `phases[phase]`. */
async function timed<T>(phases: FindPhases, phase: keyof FindPhases, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    phases[phase] += performance.now() - started;
  }
}

export interface FindInputs extends ChangeSource {
  chain: EngineChain;
  sandbox: SandboxHandle | null;
  log: (line: string) => void;
  /**
   * The element cache, consulted before the engines on every look, where the
   * element stood. With `wholeScreen`, it also searches the whole screen for
   * a cached element that moved: once in a find, on the first look whose
   * screen held still while the cache looked where the element stood. A
   * later look, on a screen that changed while the find waits, looks only
   * where the element stood (the engines find it elsewhere), so that a
   * waiting find's looks stay cheap.
   */
  lookup?: (screen: Screen, wholeScreen: boolean) => CacheLookup | Promise<CacheLookup>;
  /** Told of every vision-model call. */
  onModelCall?: (call: ModelCall) => void;
  /** `capture` gives a screen taken before the find: no engine reads ahead of it. */
  screenGiven?: boolean;
}

type Early = Map<LocateEngine, Promise<unknown>> | undefined;

/**
 * The tree's reading begun before a capture (EngineChain.beforeCapture), at
 * most one under way: a screen drawn on again while one is under way shares
 * it, since it began before that capture too. So a caret blinking, or an
 * animation, under a slow look costs one reading at a time, not one each.
 */
class EarlyRead {
  private underWay: Early;

  constructor(private readonly start: () => Early) {}

  /** `fresh`: a new reading even while one is under way (a look's own, which must not share one begun before its mark). */
  begin(fresh: boolean): Early {
    if (!fresh && this.underWay) return this.underWay;
    const early = this.start();
    this.underWay = early;
    if (early) {
      const done = () => { if (this.underWay === early) this.underWay = undefined; };
      Promise.allSettled(early.values()).then(done, done);
    }
    return early;
  }
}

export const RETRY_CEILING_MS = 5000;
/** Looks cut short because the screen moved, at most, in one find: a screen that never holds still is read as it is. */
const MAX_MOVED_LOOKS = 3;
/**
 * A cached element the tree found, missing from the very screen it was found
 * on (the same but where it stood), is most likely about to show there: for
 * this long from the find's start, only the exact engines look for it (the
 * tree answers in milliseconds), and the engines that read pixels (a whole
 * screen's OCR, and its workers' start) look once the window has closed.
 * The window closes this long before the find's timeout at the latest, so a
 * find with this long or less to wait has none.
 */
const TREE_FIRST_MS = 2000;

export async function runFind(inputs: FindInputs, description: string, settings: FindSettings): Promise<FindOutcome> {
  const { chain, capture, sandbox, log, lookup, onModelCall } = inputs;
  const watch = new ScreenWatch(inputs);
  const wrapped = wrapDescription(description, settings.type);
  const query = parseQuery(wrapped);
  const started = Date.now();
  const deadline = started + settings.timeout;
  // A look, once begun, has its time even past the find's deadline (a find with no timeout looks once, whole).
  const lookDeadline = () => Math.max(deadline, Date.now() + RETRY_CEILING_MS);
  let attempts = 0;
  let best: Candidate | null = null;
  let engine: LocateEngine | null = null;
  let rejection = 'nothing on the screen matched';
  let lastScreen: Screen | null = null;
  let lastAttemptAt = 0;
  let nextProgress = started + RETRY_CEILING_MS;
  let cache: CacheLookup | null = null;
  let movedLooks = 0;
  // A look cut short because the screen moved is no look: the next one happens even on the same pixels
  // (a redraw that changed nothing, a flash that went again), or a find that does not wait would end unanswered.
  let lookAgain = false;
  let searchedWholeScreen = false;
  let refused = false;
  const treeFirstUntil = Math.min(started + TREE_FIRST_MS, deadline - TREE_FIRST_MS);
  // A look left the pixel engines out: they look once the tree's window has closed, changed screen or not.
  let pixelsDue = false;
  const phases: FindPhases = { capture: 0, cache: 0, engine: 0, change: 0 };
  const done = (candidate: Candidate | null, screen: Screen | null): FindOutcome => ({
    description: wrapped, query, candidate, best: candidate ?? best, engine, rejection: candidate ? null : rejection, refused,
    attempts, elapsedMs: Date.now() - started, screen, cache,
    phases: { capture: Math.round(phases.capture), cache: Math.round(phases.cache), engine: Math.round(phases.engine), change: Math.round(phases.change) },
  });
  // The change count a wait for a change ended on: the next look's mark, without asking again.
  let woke: number | null | undefined;
  // A look that will ask the engines reads the tree while the screen is captured, not after: every look
  // of a find with no cache to consult, and the looks after the first of a find the cache did not answer.
  const earlyRead = new EarlyRead(() => ((attempts > 0 || !lookup) && sandbox && !inputs.screenGiven && !cache?.candidate && !cache?.evictStale ? chain.beforeCapture(sandbox, lookDeadline(), query) : undefined));
  // The screen a look was left for, captured when it moved (its tree read begun before): the next look's own.
  let movedTo: MovedScreen<Early> | null = null;
  for (;;) {
    const reused = movedTo as MovedScreen<Early> | null; // (set in the loop, below: the compiler sees only the null)
    movedTo = null;
    const mark: number | null = reused ? reused.mark : woke === undefined ? await watch.mark() : woke;
    woke = undefined;
    const early = reused ? reused.begun : earlyRead.begin(true);
    const screen: Screen = reused ? reused.screen : await timed(phases, 'capture', capture);
    const changed = !lastScreen || !screen.data.equals(lastScreen.data);
    if (changed || lookAgain || Date.now() - lastAttemptAt >= RETRY_CEILING_MS || (pixelsDue && Date.now() >= treeFirstUntil)) {
      lookAgain = false;
      attempts++;
      lastAttemptAt = Date.now();
      lastScreen = screen;
      if (lookup) {
        const hit = (found: CacheLookup) => !!found.candidate && (settings.confidence === undefined || found.candidate.confidence >= settings.confidence);
        cache = await timed(phases, 'cache', () => lookup(screen, false));
        if (hit(cache)) return done(cache.candidate, screen);
        if (!searchedWholeScreen && !cache.absent) {
          // The search over the whole screen, for a cached element that moved, costs up to half a second of
          // this thread: not on a screen that moved meanwhile (a drawer still sliding in), which is looked at afresh.
          if (movedLooks < MAX_MOVED_LOOKS && mark !== null && (await watch.mark()) !== mark) {
            movedLooks++;
            lookAgain = true;
            continue;
          }
          searchedWholeScreen = true;
          cache = await timed(phases, 'cache', () => lookup(screen, true));
          if (hit(cache)) return done(cache.candidate, screen);
        }
        if (cache.absent) {
          rejection = cache.absent;
          return done(null, screen);
        }
      }
      // When the screen moves under the look, its tree is read again from that moment, while the new screen is captured.
      const stale: WatchedStaleness<Early> | undefined = movedLooks < MAX_MOVED_LOOKS ? watch.staleness<Early>(screen, mark, () => earlyRead.begin(false)) : undefined;
      // A find that is waiting (a second look, or a cached element not there yet) watches from the look's
      // start: what it waits for may paint while the tree is read. A first look pays nothing for it.
      if (stale && (attempts > 1 || cache?.evictStale)) stale.check().catch(() => undefined);
      try {
        pixelsDue = Date.now() < treeFirstUntil && chain.engines.some((e) => e.exact && e.name === cache?.foundBy);
        const context = { screen, sandbox, deadline: lookDeadline(), ai: settings.ai, onModelCall, stale, exactOnly: pixelsDue, early };
        const result = await timed(phases, 'engine', () => chain.attempt(context, query, settings));
        if (result.engine) engine = result.engine;
        if (result.candidate) {
          cache?.evictStale?.(); // the cached entry said the element was elsewhere, or looked different
          return done(result.candidate, screen);
        }
        // The tree read early may be older than what the capture shows: the next drawing brings a look, same pixels or not.
        if (early) lookAgain = true;
        rejection = result.rejection;
        if (result.best && (!best || result.best.confidence >= best.confidence)) best = result.best;
      } catch (error) {
        if (error instanceof ScreenMoved) {
          movedLooks++;
          lookAgain = true;
          movedTo = stale?.movedTo() ?? null;
          continue;
        }
        if (!(error instanceof LocateRefusal)) throw error;
        // No engine can answer this kind of description: waiting would not change that.
        rejection = error.message;
        refused = true;
        return done(null, screen);
      } finally {
        stale?.stop();
      }
    }
    const now = Date.now();
    if (settings.timeout === 0 || now >= deadline) break;
    if (now >= nextProgress) {
      log(`waiting for '${description}' (${Math.round((now - started) / 1000)} s of ${Math.round(settings.timeout / 1000)} s)`);
      nextProgress += RETRY_CEILING_MS;
    }
    // Until something is drawn (or the unchanged screen is due another look).
    woke = await timed(phases, 'change', () => watch.changeAfter(mark, Math.min(deadline, lastAttemptAt + RETRY_CEILING_MS, nextProgress, pixelsDue ? treeFirstUntil : Infinity) - now));
  }
  return done(null, lastScreen);
}
