import type { Box, Screen } from '../types/screen';
import type { Candidate, ModelCall } from '../types/locate';
import type { A11ySnapshot, A11yTextBox, A11yTextRequest } from '../types/a11y';
import type { AiOptions } from '../config/options';
import type { Query } from './query';

/**
 * The one interface every locate engine implements. The find pipeline
 * (polling, cache, zoom, verify, confidence) sits above it and is written once.
 */
export type { Candidate, Screen };

/** What an engine can answer: the chain only asks engines that can answer a description. */
export type Capability =
  /** quoted or plain text shown on the screen */
  | 'text'
  /** controls by their label (fields, checkboxes, radios, dropdowns) */
  | 'label'
  /** icons and images by what they show */
  | 'icon'
  /** colours, shapes, layout: what only a picture shows */
  | 'visual'
  | 'readText'
  | 'assert';

/** The sandbox as an engine may ask it for more than pixels (an accessibility tree, say). */
export interface SandboxHandle {
  call<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<T>;
  /** The visible accessibility tree, within a time bound; empty where the sandbox has none. With `texts`, where they stand in the nodes that hold them. */
  a11ySnapshot?(options?: { deadlineMs?: number; texts?: string[] }): Promise<A11ySnapshot>;
  /** Each copy of a text inside a node's text (of the last snapshot), with its box. */
  a11yTextBoxes?(requests: A11yTextRequest[], deadlineMs?: number): Promise<A11yTextBox[]>;
}

export interface EngineContext {
  screen: Screen;
  /** The session's sandbox; null when locating on a screenshot file. */
  sandbox: SandboxHandle | null;
  /** Epoch ms by which the engine must answer. */
  deadline: number;
  /** Sampling settings for model-backed engines (the client's `ai`, overridden per call). */
  ai: AiOptions;
  /** Set when `screen` is a zoomed crop of the sandbox's screen: where it was cut from, and how much it was enlarged. */
  crop?: { region: Box; scale: number };
  /** Told of every vision-model call made for this find (its tokens and latency). */
  onModelCall?: (call: ModelCall) => void;
  /**
   * Whether the screen has moved since `screen` was captured (a page that
   * painted meanwhile). The chain checks before each engine after the first,
   * and a slower engine that is still reading when the screen moves is left:
   * both stop with ScreenMoved rather than read a screen that is gone.
   */
  stale?: Staleness;
  /** Only the exact engines (the tree) look, where one can answer: the others read the screen later (see runFind). */
  exactOnly?: boolean;
  /** What engines began reading while `screen` was captured (see LocateEngine.beforeCapture), for this look only. */
  early?: Map<LocateEngine, Promise<unknown>>;
}

/** Whether the screen a find is reading is still the one shown. */
export interface Staleness {
  /** Aborted once the screen has changed beyond a caret (watched from the first check on). */
  readonly signal: AbortSignal;
  /** Looks now: true (and the signal aborted) when the screen has moved. */
  check(): Promise<boolean>;
}

export interface Verdict {
  ok: boolean;
  confidence: number;
  reason: string;
}

export interface LocateEngine {
  readonly name: string;
  /** The name with what it runs on, for the report (`vision (model, family)`); the name when unset. */
  readonly label?: string;
  readonly capabilities: readonly Capability[];
  /** Boxes come exact from the source (the accessibility tree): zoom has nothing to refine. */
  readonly exact?: boolean;
  /** Acquires what the engine runs on (workers, connections); called before first use. */
  start?(): Promise<void>;
  /** Releases it; the engine may be started again later. */
  stop?(): Promise<void>;
  /** Pays ahead, in the background, what its first use would wait for (workers that take long to start). */
  warm?(): Promise<void>;
  /**
   * Begins what a look will read besides the pixels (the tree), while the
   * screen is being captured: the look at that screen gets it as
   * `context.early`. Called only by a find that expects the engines to look.
   */
  beforeCapture?(sandbox: SandboxHandle, deadline: number, query: Query): Promise<unknown>;
  /** Best first for `find`; with `all`, every match in reading order for `findAll`. */
  locate(context: EngineContext, query: Query, options?: { all?: boolean }): Promise<Candidate[]>;
  /** An independent second look at a located box. */
  verify?(context: EngineContext, candidate: Candidate, query: Query): Promise<Verdict>;
  /** For a not-found message: the few texts on the screen nearest to what was asked, what a person would see instead. */
  seenInstead?(context: EngineContext, query: Query): Promise<string[]>;
  /** The text shown inside a box (a field's value, a cell's content); null when this engine cannot tell. */
  readText?(context: EngineContext, box: Box): Promise<string | null>;
  /** The phrases shown within `radius` px of a point, nearest first, with their boxes: what the recorder names an element by where there is no tree. */
  textsNear?(context: EngineContext, point: { x: number; y: number }, radius: number): Promise<{ text: string; box: Box }[]>;
  /** What a person would call the element in a box that shows no words (`the gear icon`): a vision model's naming, for the recorder; null when it gives none. */
  nameAt?(context: EngineContext, box: Box): Promise<string | null>;
  /** Reads one small box of the screen, cheaply (no full-screen read): to check another engine's box. Only what is read clearly; null when nothing is. */
  readBox?(context: EngineContext, box: Box): Promise<string | null>;
  /** Forgets memoised readings, so a screen is read as never seen (benchmarks measure that). */
  forget?(): void;
  /** A yes-or-no judgement of a statement about the whole screen, with the reason (a vision model's). */
  judge?(context: EngineContext, statement: string): Promise<Verdict>;
  /**
   * True for engines that can be wrong about what text a box shows (a model
   * guesses): where the description quotes text, the chain checks their
   * boxes against what the other engines read there.
   */
  readonly needsEvidence?: boolean;
}

/** Thrown when an engine cannot answer a kind of description at all (polling would not help). */
export class LocateRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocateRefusal';
  }
}

/** The screen moved while the chain looked at it: the find looks again, at the new one. */
export class ScreenMoved extends Error {
  constructor() {
    super('the screen moved while it was being read');
    this.name = 'ScreenMoved';
  }
}

/**
 * Thrown by an exact engine that knows the element is not there: the tree
 * shows 'Tables' twice, so there is no third. No other engine is asked, since
 * one that reads pixels could only guess.
 */
export class NotThere extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotThere';
  }
}

/** The capability a description needs. */
export function neededCapability(query: Query): Capability {
  const picture = query.role === 'icon' || query.role === 'image';
  // "Star link": the shape word may be the name the link shows; text engines try it first.
  if (query.text === null && query.wholeText) return 'text';
  if (query.text === null && query.relation === null && !query.column) return picture ? 'icon' : 'visual';
  // "the gear icon next to 'Alice'": the shape is the target, the text only the anchor.
  if (picture && query.text === null && query.visualWords.length) return 'icon';
  if (query.role === 'field' || query.role === 'dropdown' || query.role === 'checkbox' || query.role === 'radio') return 'label';
  return 'text';
}
