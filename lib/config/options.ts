import { SANDBOX_BACKENDS, SandboxBackendName } from './backends';
import fs from 'fs';
import path from 'path';
import {
  booleanOr, Check, checkShape, either, isBoolean, isIntegerAtLeast, isNumberIn, isOneOf, isResolution, isString, isStringRecord,
  Shape,
} from './validate';
import { InvalidOptionError } from './errors';
import { LocatorChoice, LOCATORS, ocrReaderFromEnv, PLANNED_ENGINES } from './locators';
import { resolveVisionModel, VisionModelSettings } from './vision';
import { defaultStateDir } from './state-dir';

/** The desktops a sandbox can be: linux here, windows on a machine of your own running the agent. */
export const OSES = ['linux', 'windows'] as const;
export type Os = (typeof OSES)[number];
export type Preview = 'browser' | 'ide' | 'none';

/** Sampling settings for model-backed checks (the spec's `ai` object). */
export interface AiOptions {
  temperature?: number;
  top?: { p?: number; k?: number };
}

export interface CacheThresholds {
  find?: { screen?: number; element?: number };
  assert?: number;
}

export interface CacheOptions {
  enabled?: boolean;
  thresholds?: CacheThresholds;
  /** Most entries kept; the least recently used go first (default 5000). */
  maxEntries?: number;
}

export interface RedrawOptions {
  enabled?: boolean;
  /** screen: share of the screen an action must change to be waited for (0.05; false: do not watch the screen); network: also wait until the sandbox's network is quiet (false). */
  thresholds?: { screen?: number | false; network?: boolean };
  /** Milliseconds an action's redraw wait may take at most (default 3000). */
  timeout?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5 * 60 * 1000;

/** Every option of the Client constructor (interface spec 2.2). */
export interface ClientOptions {
  os?: Os;
  resolution?: string;
  apiRoot?: string;
  /** Milliseconds connect() may wait in the team server's queue when the team is at its sandbox limit (default 5 minutes). */
  connectTimeout?: number;
  analytics?: boolean;
  logging?: boolean;
  autoScreenshots?: boolean;
  newSandbox?: boolean;
  reconnect?: boolean;
  sandboxId?: string;
  preview?: Preview;
  /** @deprecated use `preview: 'none'` */
  headless?: boolean;
  debugOnFailure?: boolean;
  ip?: string;
  sandboxAmi?: string;
  sandboxInstance?: string;
  cache?: boolean | CacheOptions;
  cacheKey?: string;
  verify?: boolean;
  dashcam?: boolean;
  redraw?: boolean | RedrawOptions;
  environment?: Record<string, string>;
  ai?: AiOptions;
  /** Milliseconds a sandbox stays rejoinable after `disconnect()` (default 60000). */
  keepAlive?: number;
  /** Folder for Glance's state (default `.glance` in the working directory). */
  stateDir?: string;
  /** Locate engines: `auto` (every engine that can answer, best first) or one engine by name, e.g. `ocr` (default GLANCE_LOCATOR, else `auto`). */
  locator?: LocatorChoice;
  /** A folder whose contents are copied into every new sandbox's home: dotfiles, an app's config, bookmarks (default GLANCE_SANDBOX_HOME; none: an empty home). */
  sandboxHome?: string;
  /** Run the sandbox's programs as root instead of as the unprivileged user `glance-sandbox` (default GLANCE_RUN_AS_ROOT, else false; only matters when Glance runs as root). */
  runAsRoot?: boolean;
  /** Where a new sandbox runs: `local` (a process on this machine), `docker` (a container from the image `glance image build` makes) or `kubernetes` (a pod of that image, in the cluster the kubeconfig names) (default GLANCE_SANDBOX_BACKEND; else the Service's: local, or the team server's `--backend`). */
  sandboxBackend?: SandboxBackendName;
}

/** Options of `find()` (interface spec 4.3); a bare number is `cacheThreshold`. */
export interface FindOptions {
  cacheKey?: string;
  cacheThreshold?: number;
  timeout?: number;
  confidence?: number;
  type?: 'text' | 'image' | 'ui' | 'any';
  zoom?: boolean;
  verify?: boolean;
  ai?: AiOptions;
}

/** Options of `findAll()` (interface spec 4.4). */
export interface FindAllOptions {
  cacheKey?: string;
  cacheThreshold?: number;
  type?: 'text' | 'image' | 'ui' | 'any';
}

/** Options of `assert()`. */
export interface AssertOptions {
  /** Pixel-diff share within which a passed assertion on an earlier screen is reused (default `cache.thresholds.assert`); -1 leaves the cache out. */
  threshold?: number;
  cacheKey?: string;
  ai?: AiOptions;
}

/** Options of `connect()` (interface spec 4.2). */
export interface ConnectOptions {
  newSandbox?: boolean;
  sandboxId?: string;
  ip?: string;
  sandboxAmi?: string;
  sandboxInstance?: string;
  preview?: Preview;
  /** @deprecated use `preview: 'none'` */
  headless?: boolean;
  keepAlive?: number;
}

const ai: Shape = {
  temperature: isNumberIn(0, 2),
  top: { p: isNumberIn(0, 1), k: isIntegerAtLeast(0) },
};
const fraction = isNumberIn(0, 1);
const cacheObject: Shape = {
  enabled: isBoolean,
  thresholds: { find: { screen: fraction, element: fraction }, assert: fraction },
  maxEntries: isIntegerAtLeast(1),
};
const redrawObject: Shape = {
  enabled: isBoolean,
  thresholds: { screen: either('a number from 0 to 1, or false', fraction, (p, v) => { if (v !== false) throw new Error(p); }), network: isBoolean },
  timeout: isNumberIn(0, 60_000),
};
const previewModes = ['browser', 'ide', 'none'] as const;

function isApiRoot(path: string, value: unknown): void {
  isString(path, value);
  if (!/^https?:\/\/[^\s]+$/.test(value as string)) {
    throw new InvalidOptionError(path, `Invalid option '${path}': got '${value}'; expected an http(s) URL such as 'http://127.0.0.1:4780'.`);
  }
}


export const clientShape: Shape = {
  os: isOneOf([...OSES]),
  resolution: isResolution,
  apiRoot: isApiRoot,
  connectTimeout: isIntegerAtLeast(0),
  analytics: isBoolean,
  logging: isBoolean,
  autoScreenshots: isBoolean,
  newSandbox: isBoolean,
  reconnect: isBoolean,
  sandboxId: isString,
  preview: isOneOf(previewModes),
  headless: isBoolean,
  debugOnFailure: isBoolean,
  ip: isString,
  sandboxAmi: isString,
  sandboxInstance: isString,
  cache: booleanOr(cacheObject),
  cacheKey: isString,
  verify: isBoolean,
  dashcam: isBoolean,
  redraw: booleanOr(redrawObject),
  environment: isStringRecord,
  ai,
  keepAlive: isIntegerAtLeast(0),
  stateDir: isString,
  locator: isLocator,
  sandboxHome: isFolder,
  runAsRoot: isBoolean,
  sandboxBackend: isOneOf(SANDBOX_BACKENDS),
};

/** An existing folder (the seed of a sandbox's home). */
function isFolder(path: string, value: unknown): void {
  isString(path, value);
  let folder = false;
  try {
    folder = fs.statSync(value as string).isDirectory();
  } catch {
    /* missing: said below */
  }
  if (!folder) throw new InvalidOptionError(path, `Invalid option '${path}': '${value}' is not a folder. Give the path of a folder whose contents every sandbox's home starts with (relative paths are from ${process.cwd()}), or leave '${path}' out for an empty home.`);
}

/** `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`, from an environment variable named in the error. */
function envBoolean(name: string, value: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new InvalidOptionError(name, `Invalid ${name}: got '${value}'; use true or false.`);
}

/** `auto` or an engine this version has; a planned engine's name says it is not here yet. */
function isLocator(path: string, value: unknown): void {
  if (typeof value === 'string' && PLANNED_ENGINES[value]) {
    throw new InvalidOptionError(path, `Invalid option '${path}': '${value}' (${PLANNED_ENGINES[value]}) is not available in this version of Glance; use one of ${LOCATORS.map((l) => `'${l}'`).join(', ')}.`);
  }
  isOneOf(LOCATORS)(path, value);
}

const cacheThreshold = isNumberIn(0, 1, [-1]);
const findShape: Shape = {
  cacheKey: isString, cacheThreshold, timeout: isIntegerAtLeast(0), confidence: fraction,
  type: isOneOf(['text', 'image', 'ui', 'any']), zoom: isBoolean, verify: isBoolean, ai,
};
/** findAll looks once and returns every match: a zoomed or verified look is one element's, so they are refused by name. */
const oneElementOnly = (what: string): Check => (path) => {
  throw new InvalidOptionError(path, `findAll() does not take '${path}': ${what} refines one element. Use find(description, { ${path}: true }) for one element, or leave '${path}' out.`);
};
const findAllShape: Shape = {
  cacheKey: isString, cacheThreshold, type: isOneOf(['text', 'image', 'ui', 'any']),
  zoom: oneElementOnly('zoom'), verify: oneElementOnly('verify'),
};

export interface ResolvedFindOptions {
  cacheKey?: string;
  cacheThreshold: number;
  timeout: number;
  confidence?: number;
  type: 'text' | 'image' | 'ui' | 'any';
  zoom: boolean;
  verify: boolean;
  ai: AiOptions;
}

/** Validates find()/findAll() options; a bare number is the cacheThreshold. Defaults per interface spec 4.3 and 4.4. */
export function resolveFindOptions(input: unknown, kind: 'find' | 'findAll', client: Pick<ResolvedClientOptions, 'verify' | 'ai' | 'cacheKey' | 'cache'>): ResolvedFindOptions {
  const raw = typeof input === 'number' ? { cacheThreshold: input } : input ?? {};
  assertPlainObject(`${kind} options`, raw);
  checkShape(kind === 'find' ? findShape : findAllShape, raw);
  const o = raw as FindOptions;
  return {
    cacheKey: o.cacheKey ?? client.cacheKey,
    cacheThreshold: o.cacheThreshold ?? (kind === 'find' ? client.cache.thresholds.find.screen : -1),
    timeout: kind === 'find' ? o.timeout ?? 10_000 : 0,
    confidence: o.confidence,
    type: o.type ?? 'any',
    zoom: o.zoom ?? false,
    verify: kind === 'find' ? o.verify ?? client.verify : false,
    ai: mergeAi(client.ai, o.ai),
  };
}

/** The call's `ai` over the client's, field by field (a call's `top.k` keeps the client's `top.p`). */
export function mergeAi(client: AiOptions, call: AiOptions | undefined): AiOptions {
  const merged: AiOptions = { ...client, ...call };
  if (client.top || call?.top) merged.top = { ...client.top, ...call?.top };
  return merged;
}

const assertShape: Shape = { threshold: cacheThreshold, cacheKey: isString, ai };

export interface ResolvedAssertOptions {
  threshold: number;
  cacheKey?: string;
  ai: AiOptions;
}

/** Validates assert() options; the client's `ai`, `cacheKey` and assert threshold fill in what the call leaves out. */
export function resolveAssertOptions(input: unknown, client: Pick<ResolvedClientOptions, 'ai' | 'cacheKey' | 'cache'>): ResolvedAssertOptions {
  const raw = input ?? {};
  assertPlainObject('assert options', raw);
  checkShape(assertShape, raw);
  const o = raw as AssertOptions;
  return { threshold: o.threshold ?? client.cache.thresholds.assert, cacheKey: o.cacheKey ?? client.cacheKey, ai: mergeAi(client.ai, o.ai) };
}

export const connectShape: Shape = {
  newSandbox: isBoolean,
  sandboxId: isString,
  ip: isString,
  sandboxAmi: isString,
  sandboxInstance: isString,
  preview: isOneOf(previewModes),
  headless: isBoolean,
  keepAlive: isIntegerAtLeast(0),
};

/** Client options with every default filled in. */
export interface ResolvedClientOptions {
  os: Os;
  resolution: string;
  width: number;
  height: number;
  apiRoot?: string;
  connectTimeout: number;
  analytics: boolean;
  logging: boolean;
  autoScreenshots: boolean;
  newSandbox: boolean;
  reconnect: boolean;
  sandboxId?: string;
  preview: Preview;
  debugOnFailure: boolean;
  ip?: string;
  sandboxAmi?: string;
  sandboxInstance?: string;
  cache: { enabled: boolean; thresholds: { find: { screen: number; element: number }; assert: number }; maxEntries: number };
  cacheKey?: string;
  verify: boolean;
  dashcam: boolean;
  redraw: { enabled: boolean; thresholds: { screen: number | false; network: boolean }; timeout: number };
  environment: Record<string, string>;
  ai: AiOptions;
  keepAlive: number;
  stateDir: string;
  locator: LocatorChoice;
  /** Absolute path of the home's seed folder; null for an empty home. */
  sandboxHome: string | null;
  runAsRoot: boolean;
  /** null: the Service's default. */
  sandboxBackend: SandboxBackendName | null;
  /** The vision model from GLANCE_AI_* (or OPENAI_*) variables; null when none is set. */
  vision: VisionModelSettings | null;
  /** Set when the deprecated `headless` option was used. */
  usedHeadless: boolean;
}

export const DEFAULT_KEEP_ALIVE_MS = 60_000;
/** An action's redraw wait ends by then even on a screen that never stops moving. */
export const DEFAULT_REDRAW_TIMEOUT_MS = 3000;

function assertPlainObject(name: string, value: unknown): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidOptionError(name, `Invalid ${name}: expected an object of options, got ${JSON.stringify(value)}.`);
  }
}

/** Validates constructor options and fills in the spec's defaults. */
export function resolveClientOptions(input: unknown = {}): ResolvedClientOptions {
  assertPlainObject('client options', input);
  checkShape(clientShape, input);
  const o = input as ClientOptions;
  // Settings from the environment are checked as strictly as options, and named by their variable.
  const envLocator = process.env.GLANCE_LOCATOR || undefined;
  if (o.locator === undefined && envLocator !== undefined) isLocator('GLANCE_LOCATOR', envLocator);
  ocrReaderFromEnv();
  const envApiRoot = process.env.GLANCE_API_ROOT || undefined;
  if (o.apiRoot === undefined && envApiRoot !== undefined) isApiRoot('GLANCE_API_ROOT', envApiRoot);
  const vision = resolveVisionModel(process.env);
  const envHome = process.env.GLANCE_SANDBOX_HOME || undefined;
  if (o.sandboxHome === undefined && envHome !== undefined) isFolder('GLANCE_SANDBOX_HOME', envHome);
  const sandboxHome = o.sandboxHome ?? envHome;
  const envRoot = process.env.GLANCE_RUN_AS_ROOT || undefined;
  const runAsRoot = o.runAsRoot ?? (envRoot !== undefined && envBoolean('GLANCE_RUN_AS_ROOT', envRoot));
  const envBackend = process.env.GLANCE_SANDBOX_BACKEND || undefined;
  if (o.sandboxBackend === undefined && envBackend !== undefined) isOneOf(SANDBOX_BACKENDS)('GLANCE_SANDBOX_BACKEND', envBackend);
  const sandboxBackend = o.sandboxBackend ?? (envBackend as SandboxBackendName | undefined) ?? null;
  const locator = o.locator ?? ((envLocator ?? 'auto') as LocatorChoice);
  if (locator === 'vision' && !vision) {
    throw new InvalidOptionError(o.locator ? 'locator' : 'GLANCE_LOCATOR', "The 'vision' locator needs a vision model, and none is set: set GLANCE_AI_MODEL (and GLANCE_AI_BASE_URL, GLANCE_AI_API_KEY) to an OpenAI-compatible model, or use locator 'auto'.");
  }
  const resolution = o.resolution ?? '1366x768';
  const [width, height] = resolution.split('x').map(Number);
  const cache = typeof o.cache === 'object' ? o.cache : { enabled: o.cache ?? true };
  const redraw = typeof o.redraw === 'object' ? o.redraw : { enabled: o.redraw ?? true };
  return {
    os: o.os ?? 'linux',
    resolution,
    width,
    height,
    apiRoot: o.apiRoot ?? envApiRoot,
    connectTimeout: o.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS,
    analytics: o.analytics ?? true,
    logging: o.logging ?? true,
    autoScreenshots: o.autoScreenshots ?? false,
    newSandbox: o.newSandbox ?? true,
    reconnect: o.reconnect ?? false,
    sandboxId: o.sandboxId,
    preview: o.headless ? 'none' : o.preview ?? 'browser',
    debugOnFailure: o.debugOnFailure ?? false,
    ip: o.ip,
    sandboxAmi: o.sandboxAmi,
    sandboxInstance: o.sandboxInstance,
    cache: {
      enabled: cache.enabled ?? true,
      thresholds: {
        find: { screen: cache.thresholds?.find?.screen ?? 0.05, element: cache.thresholds?.find?.element ?? 0.8 },
        assert: cache.thresholds?.assert ?? 0.05,
      },
      maxEntries: cache.maxEntries ?? 5000,
    },
    cacheKey: o.cacheKey,
    verify: o.verify ?? false,
    dashcam: o.dashcam ?? true,
    redraw: {
      enabled: redraw.enabled ?? true,
      thresholds: { screen: redraw.thresholds?.screen ?? 0.05, network: redraw.thresholds?.network ?? false },
      timeout: redraw.timeout ?? DEFAULT_REDRAW_TIMEOUT_MS,
    },
    environment: o.environment ?? {},
    ai: o.ai ?? {},
    keepAlive: o.keepAlive ?? DEFAULT_KEEP_ALIVE_MS,
    stateDir: o.stateDir ?? defaultStateDir(),
    locator,
    sandboxHome: sandboxHome ? path.resolve(sandboxHome) : null,
    runAsRoot,
    sandboxBackend,
    vision,
    usedHeadless: o.headless !== undefined,
  };
}

export interface ResolvedConnectOptions {
  newSandbox: boolean;
  sandboxId?: string;
  ip?: string;
  sandboxAmi?: string;
  sandboxInstance?: string;
  preview?: Preview;
  keepAlive?: number;
  usedHeadless: boolean;
}

/** Validates `connect()` options; defaults per interface spec 4.2 (`newSandbox` false). */
export function resolveConnectOptions(input: unknown = {}): ResolvedConnectOptions {
  assertPlainObject('connect options', input);
  checkShape(connectShape, input);
  const o = input as ConnectOptions;
  return {
    newSandbox: o.newSandbox ?? false,
    sandboxId: o.sandboxId,
    ip: o.ip,
    sandboxAmi: o.sandboxAmi,
    sandboxInstance: o.sandboxInstance,
    preview: o.headless ? 'none' : o.preview,
    keepAlive: o.keepAlive,
    usedHeadless: o.headless !== undefined,
  };
}
