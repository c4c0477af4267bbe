import type { AgentEndpoint } from '../sandbox/agent-client';
import type { Os, Preview, ResolvedAssertOptions, ResolvedFindOptions } from '../config/options';
import type { VisionModelSettings } from '../config/vision';
import type { LocatorChoice } from '../config/locators';
import type { Box } from '../types/screen';
import type { AssertResult, LocateAllResult, LocateResult } from '../types/locate';
import type { CommandRecord } from '../types/analytics';
import type { DescribeRequest, ElementDescription, ViewInfo, ViewPictureRequest } from '../types/describe';

/**
 * The Service: API-key auth, sandboxes, and everything a session does with
 * pixels: find (screen capture, cache, engine chain, zoom, verify,
 * confidence), findAll, readText, assert, the element cache and usage
 * analytics.
 * Transport-neutral: every argument and result is plain data, so LocalService
 * runs in-process and a remote transport speaks the same interface over HTTP.
 */
import type { SandboxBackendName } from '../config/backends';

export type { SandboxBackendName };

export interface SandboxSpec {
  os: Os;
  width: number;
  height: number;
  keepAlive: number;
  environment: Record<string, string>;
  preview: Preview;
  /** Absolute path of a folder whose contents every new home starts with; null for an empty home. */
  sandboxHome?: string | null;
  /** Run programs as root rather than as the sandbox's user. */
  runAsRoot?: boolean;
  /** Where the sandbox runs: a process here ('local'), a container ('docker') or a pod ('kubernetes'); absent: the Service's default. */
  backend?: SandboxBackendName;
  sandboxAmi?: string;
  sandboxInstance?: string;
  /** How long connect() may wait for a free slot when the team is at its limit (the team server's queue), ms. */
  connectTimeout?: number;
}

/** The sandbox instance of interface spec 2.3, as `connect()` and `getInstance()` return it. */
export interface SandboxInstance {
  instanceId: string;
  ip: string;
  vncPort: number | null;
  os: Os;
  resolution: string;
  /** `local` for a sandbox on this machine, `ip` for an agent you run yourself. */
  provider: SandboxBackendName | 'ip';
  /** True when connect() joined a sandbox that was already running. */
  rejoined: boolean;
  display: string | null;
  agentPort: number;
  createdAt: string | null;
}

export interface SandboxSession {
  instance: SandboxInstance;
  /** How to reach the sandbox's agent; holds a secret, never logged. */
  agent: AgentEndpoint;
}

export interface AuthResult {
  token: string;
  expiresAt: string;
}

/** How a session finds: fixed at openSession. */
export interface SessionSettings {
  /** `auto` or one engine's name. */
  locator: LocatorChoice;
  os: Os;
  cache: { enabled: boolean; thresholds: { find: { screen: number; element: number }; assert: number }; maxEntries: number };
  /** The vision model, when one is configured (its key is a secret: never logged). */
  vision: VisionModelSettings | null;
}

export interface SessionInfo {
  sessionId: string;
  /** The engines finds go through, as the report shows them: `auto (ocr)`. */
  locator: string;
}

/** A find or findAll, as the Client sends it: the description and the call's resolved options. */
export interface LocateRequest extends Omit<ResolvedFindOptions, 'cacheKey'> {
  description: string;
  /** The cache key (the test file's hash unless the caller set one); null leaves the cache out. */
  cacheKey: string | null;
  /** Where a not-found screenshot goes, relative to the screenshots folder (`<test>/<seq>-find-notfound-L<line>-<description>.png`). */
  screenshotName?: string;
}

/** An assert(), as the Client sends it. */
export interface AssertRequest extends Omit<ResolvedAssertOptions, 'cacheKey'> {
  statement: string;
  /** The cache key (the test file's hash unless the caller set one); null leaves the cache out. */
  cacheKey: string | null;
}

export interface Service {
  auth(apiKey: string): Promise<AuthResult>;
  createSandbox(token: string, spec: SandboxSpec): Promise<SandboxSession>;
  rejoinSandbox(token: string, sandboxId: string): Promise<SandboxSession>;
  /** The id recorded by the last successful connect, if any. */
  lastSandboxId(token: string): Promise<string | null>;
  attachSandbox(token: string, address: { host: string; port: number; agentToken: string }): Promise<SandboxSession>;

  /** Starts a session on a sandbox this Service created, rejoined or attached. `log` receives progress lines (waiting for …). */
  openSession(token: string, instanceId: string, settings: SessionSettings, log?: (line: string) => void): Promise<SessionInfo>;
  locate(session: string, request: LocateRequest): Promise<LocateResult>;
  locateAll(session: string, request: LocateRequest): Promise<LocateAllResult>;
  /** The text shown inside a box of the screen now. */
  readText(session: string, box: Box): Promise<string>;
  /** A judgement of a statement about the whole screen (passed or not, with the reason). */
  assert(session: string, request: AssertRequest): Promise<AssertResult>;
  /** For the recorder: captures the screen and its tree now, kept as a view (the last few are kept). */
  captureView(session: string): Promise<ViewInfo>;
  /** For the recorder: the element at a point of a view, described in words that find it again on that view. */
  describeAt(session: string, request: DescribeRequest): Promise<ElementDescription>;
  /** For the recorder: where a description finds its element on a view, or null (did it show before a scroll?). */
  findOnView(session: string, viewId: string, description: string): Promise<Box | null>;
  /** For the recorder: the texts a view shows that an earlier one did not, found again on it (what to suggest checking). */
  textsAdded(session: string, beforeViewId: string, afterViewId: string): Promise<string[]>;
  /** For the recorder's step list: a step's picture on a view, as base64 PNG (the element outlined, password fields filled grey). */
  viewPicture(session: string, request: ViewPictureRequest): Promise<string>;
  /** Writes the elements located since the last commit to the cache; returns how many. */
  commitCache(session: string): Promise<number>;
  /** Drops them; returns how many. */
  discardCache(session: string): Promise<number>;
  /** Ends the session and releases its sandbox, which stays rejoinable for `keepAlive` ms (0 stops it). */
  stopSandbox(session: string, options: { keepAlive: number }): Promise<void>;
  /** Keeps usage analytics: one record per command, in the local store; returns how many were kept. */
  recordCommands(token: string, records: CommandRecord[]): Promise<number>;
  close(): void;
}
