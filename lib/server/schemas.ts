import type { SandboxBackendName } from '../config/backends';
import { Type, Static, TSchema } from 'typebox';

/**
 * The team server's contract: a JSON Schema for every route's body, params
 * and answers. Requests are validated on the way in, answers on the way out
 * (see app.ts), so neither side can drift from these.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Closed = { additionalProperties: false };

/** Where a sandbox runs (lib/sandbox/backend.ts); the check below keeps the two lists the same. */
const BackendName = Type.Union([Type.Literal('local'), Type.Literal('docker'), Type.Literal('kubernetes')]);
const sameBackends: [Static<typeof BackendName>, SandboxBackendName] = ['' as SandboxBackendName, '' as Static<typeof BackendName>];
void sameBackends;

export const Box = Type.Object({ x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() }, Closed);
const Ai = Type.Object({
  temperature: Type.Optional(Type.Number()),
  top: Type.Optional(Type.Object({ p: Type.Optional(Type.Number()), k: Type.Optional(Type.Number()) }, Closed)),
}, Closed);
const Os = Type.Union([Type.Literal('linux'), Type.Literal('windows')]);
const Id = Type.String({ pattern: '^[\\w.-]{1,128}$' });

export const ErrorBody = Type.Object({
  error: Type.Object({
    name: Type.String(), code: Nullable(Type.String()), message: Type.String(),
    option: Type.Optional(Type.String()), exitCode: Type.Optional(Nullable(Type.Number())), stdout: Type.Optional(Type.String()),
    stderr: Type.Optional(Type.String()), statement: Type.Optional(Type.String()), reason: Type.Optional(Type.String()),
    fatal: Type.Optional(Type.Boolean()), status: Type.Optional(Nullable(Type.Number())),
  }, Closed),
}, Closed);

export const VersionInfo = Type.Object({ glance: Type.String(), protocol: Type.Integer() }, Closed);

export const AuthBody = Type.Object({ apiKey: Type.String({ maxLength: 200 }) }, Closed);
export const AuthAnswer = Type.Object({ token: Type.String(), expiresAt: Type.String(), server: VersionInfo }, Closed);

export const SandboxSpec = Type.Object({
  os: Os,
  width: Type.Integer({ minimum: 1, maximum: 10000 }),
  height: Type.Integer({ minimum: 1, maximum: 10000 }),
  keepAlive: Type.Integer({ minimum: 0 }),
  environment: Type.Record(Type.String(), Type.String()),
  preview: Type.Union([Type.Literal('browser'), Type.Literal('ide'), Type.Literal('none')]),
  sandboxHome: Type.Optional(Nullable(Type.String())),
  runAsRoot: Type.Optional(Type.Boolean()),
  backend: Type.Optional(BackendName),
  sandboxAmi: Type.Optional(Type.String()),
  sandboxInstance: Type.Optional(Type.String()),
  /** How long connect() may wait in the queue for a slot, ms. */
  connectTimeout: Type.Optional(Type.Integer({ minimum: 0 })),
}, Closed);

export const AttachBody = Type.Object({ host: Type.String({ minLength: 1, maxLength: 255 }), port: Type.Integer({ minimum: 1, maximum: 65535 }), agentToken: Type.String({ maxLength: 500 }) }, Closed);

export const SandboxSession = Type.Object({
  instance: Type.Object({
    instanceId: Type.String(), ip: Type.String(), vncPort: Nullable(Type.Integer()), os: Os, resolution: Type.String(),
    provider: Type.Union([...BackendName.anyOf, Type.Literal('ip')]), rejoined: Type.Boolean(), display: Nullable(Type.String()),
    agentPort: Type.Integer(), createdAt: Nullable(Type.String()),
  }, Closed),
  /** The sandbox's agent as the client reaches it: a path of this server, with a token for that sandbox alone. */
  agent: Type.Object({ basePath: Type.String(), token: Type.String() }, Closed),
}, Closed);

export const LastSandbox = Type.Object({ sandboxId: Nullable(Type.String()) }, Closed);

export const SessionSettings = Type.Object({
  locator: Type.Union([Type.Literal('auto'), Type.Literal('a11y'), Type.Literal('ocr'), Type.Literal('vision')]),
  os: Os,
  cache: Type.Object({
    enabled: Type.Boolean(),
    thresholds: Type.Object({ find: Type.Object({ screen: Type.Number(), element: Type.Number() }, Closed), assert: Type.Number() }, Closed),
    maxEntries: Type.Integer({ minimum: 1 }),
  }, Closed),
  vision: Nullable(Type.Object({
    baseURL: Type.String(), apiKey: Type.String(), model: Type.String(), family: Type.String(), familyGuessed: Type.Boolean(),
    timeoutMs: Type.Number(), retries: Type.Integer({ minimum: 0 }),
  }, Closed)),
}, Closed);

export const OpenSessionBody = Type.Object({ instanceId: Id, settings: SessionSettings }, Closed);
export const SessionInfo = Type.Object({ sessionId: Type.String(), locator: Type.String(), log: Type.Array(Type.String()) }, Closed);

export const LocateRequest = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 2000 }),
  cacheKey: Nullable(Type.String({ maxLength: 500 })),
  cacheThreshold: Type.Number(),
  timeout: Type.Number({ minimum: 0 }),
  confidence: Type.Optional(Type.Number()),
  type: Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('ui'), Type.Literal('any')]),
  zoom: Type.Boolean(),
  verify: Type.Boolean(),
  ai: Ai,
  screenshotName: Type.Optional(Type.String({ maxLength: 500 })),
}, Closed);

export const AssertRequest = Type.Object({
  statement: Type.String({ minLength: 1, maxLength: 2000 }),
  cacheKey: Nullable(Type.String({ maxLength: 500 })),
  threshold: Type.Number(),
  ai: Ai,
}, Closed);

const CacheInfo = Type.Object({
  hit: Type.Boolean(),
  strategy: Type.Union([Type.Literal('pixel-diff'), Type.Literal('template-match'), Type.Literal('absent'), Type.Literal('miss')]),
  createdAt: Type.String(), diffPercent: Nullable(Type.Number()), imageUrl: Nullable(Type.String()),
}, Closed);
const ModelCall = Type.Object({
  model: Type.String(), purpose: Type.String(), promptTokens: Type.Number(), completionTokens: Type.Number(), totalTokens: Type.Number(),
  latencyMs: Type.Number(), attempts: Type.Number(), answer: Type.String(),
}, Closed);
const LocatedElement = Type.Object({
  box: Box, text: Nullable(Type.String()), confidence: Type.Number(), engine: Type.String(), reason: Type.String(),
  selector: Nullable(Type.String()), crop: Nullable(Type.String()), aiResponse: Nullable(Type.String()),
}, Closed);

export const LocateResult = Type.Object({
  description: Type.String(),
  element: Nullable(LocatedElement),
  best: Nullable(Type.Object({ box: Box, text: Nullable(Type.String()), confidence: Type.Number() }, Closed)),
  notFound: Nullable(Type.String()),
  engine: Type.String(),
  attempts: Type.Number(),
  elapsedMs: Type.Number(),
  cache: CacheInfo,
  similarity: Nullable(Type.Number()),
  /** On the wire, the screenshot's name below the session's screenshots; the client fetches it and writes it locally. */
  debugScreenshot: Nullable(Type.String()),
  modelCalls: Type.Array(ModelCall),
  aiResponse: Nullable(Type.String()),
  phases: Type.Object({ capture: Type.Number(), cache: Type.Number(), engine: Type.Number(), change: Type.Number() }, Closed),
}, Closed);

export const LocateAllResult = Type.Object({
  description: Type.String(), elements: Type.Array(LocatedElement), cache: CacheInfo, similarity: Nullable(Type.Number()),
  refusal: Nullable(Type.String()), modelCalls: Type.Array(ModelCall),
}, Closed);

export const AssertResult = Type.Object({
  passed: Type.Boolean(), reason: Type.String(), engine: Type.String(), cache: CacheInfo, modelCalls: Type.Array(ModelCall), elapsedMs: Type.Number(),
}, Closed);

export const ReadTextAnswer = Type.Object({ text: Type.String() }, Closed);
export const ViewInfo = Type.Object({ viewId: Type.String(), width: Type.Integer(), height: Type.Integer(), tree: Type.Boolean() }, Closed);
export const DescribeRequest = Type.Object({
  viewId: Type.String({ maxLength: 64 }), x: Type.Number(), y: Type.Number(), intent: Type.Union([Type.Literal('click'), Type.Literal('field')]),
}, Closed);
export const FindOnViewBody = Type.Object({ viewId: Type.String({ maxLength: 64 }), description: Type.String({ maxLength: 2000 }) }, Closed);
export const FoundOnView = Type.Object({ box: Nullable(Box) }, Closed);
export const TextsAddedBody = Type.Object({ beforeViewId: Type.String({ maxLength: 64 }), afterViewId: Type.String({ maxLength: 64 }) }, Closed);
export const TextsAdded = Type.Object({ texts: Type.Array(Type.String()) }, Closed);
export const ViewPictureRequest = Type.Object({ viewId: Type.String({ maxLength: 64 }), box: Nullable(Box), masks: Type.Array(Box, { maxItems: 50 }) }, Closed);
export const ViewPicture = Type.Object({ png: Type.String() }, Closed);
export const ElementDescription = Type.Object({
  description: Nullable(Type.String()), box: Nullable(Box), role: Nullable(Type.String()), name: Nullable(Type.String()),
  source: Type.Union([Type.Literal('a11y'), Type.Literal('ocr'), Type.Literal('vision'), Type.Literal('point')]), refound: Type.Boolean(), secret: Type.Boolean(),
  flags: Type.Array(Type.String()), tried: Type.Array(Type.String()), tookMs: Type.Number(),
}, Closed);
export const Count = Type.Object({ count: Type.Integer() }, Closed);
export const StopBody = Type.Object({ keepAlive: Type.Integer({ minimum: 0 }) }, Closed);
export const Empty = Type.Object({}, Closed);

export const CommandRecords = Type.Object({
  records: Type.Array(Type.Object({
    runId: Type.String({ maxLength: 200 }), sessionId: Nullable(Type.String({ maxLength: 200 })), command: Type.String({ maxLength: 100 }),
    description: Nullable(Type.String({ maxLength: 2000 })), startedAt: Type.String({ maxLength: 40 }), durationMs: Type.Number(),
    outcome: Type.Union([Type.Literal('success'), Type.Literal('error'), Type.Literal('not-found')]), errorName: Nullable(Type.String({ maxLength: 200 })),
    cacheHit: Nullable(Type.Boolean()), engine: Nullable(Type.String({ maxLength: 100 })),
    modelCalls: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))), modelTokens: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  }, Closed), { maxItems: 10000 }),
}, Closed);

export const SandboxParams = Type.Object({ id: Id }, Closed);
export const SessionParams = Type.Object({ session: Id }, Closed);
export const ScreenshotPath = Type.Object({ '*': Type.String({ maxLength: 500 }) }, Closed);
export const AgentParams = Type.Object({ id: Id, '*': Type.String({ maxLength: 2000 }) }, Closed);

export type SandboxSessionWire = Static<typeof SandboxSession>;
export type LocateResultWire = Static<typeof LocateResult>;

const Outcome = Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('skipped'), Type.Literal('pending'), Type.Literal('undefined'), Type.Literal('ambiguous'), Type.Literal('unknown')]);
export const ScenarioReport = Type.Object({
  scenario: Type.String({ minLength: 1, maxLength: 1000 }), feature: Type.String({ maxLength: 500 }), name: Type.String({ maxLength: 500 }),
  attempt: Type.Integer({ minimum: 1, maximum: 100 }), outcome: Outcome, willRetry: Type.Boolean(), durationMs: Type.Number({ minimum: 0 }),
  failingStep: Nullable(Type.String({ maxLength: 2000 })), error: Nullable(Type.String({ maxLength: 10000 })),
}, Closed);
export const RunParams = Type.Object({ run: Type.String({ pattern: '^[\\w.:-]{1,200}$' }) }, Closed);
/** A row id in a path: digits (paths are text; routes turn it into a number). */
export const RowId = Type.String({ pattern: '^[1-9][0-9]{0,15}$' });
export const ResultParams = Type.Object({ id: RowId }, Closed);
export const EvidenceQuery = Type.Object({ kind: Type.Union([Type.Literal('failure'), Type.Literal('clip'), Type.Literal('picture')]) }, Closed);
export const Created = Type.Object({ id: Type.Integer() }, Closed);
export const RunSummaries = Type.Array(Type.Object({
  runId: Type.String(), startedAt: Type.String(), finishedAt: Type.String(), scenarios: Type.Integer(), passed: Type.Integer(),
  failed: Type.Integer(), flaky: Type.Integer(), durationMs: Type.Number(),
}, Closed));
export const RunResults = Type.Array(Type.Object({
  id: Type.Integer(), runId: Type.String(), scenario: Type.String(), feature: Type.String(), name: Type.String(), attempt: Type.Integer(),
  outcome: Outcome, willRetry: Type.Boolean(), durationMs: Type.Number(), failingStep: Nullable(Type.String()), error: Nullable(Type.String()),
  finishedAt: Type.String(),
  evidence: Type.Array(Type.Object({ id: Type.Integer(), kind: Type.String(), contentType: Type.String(), bytes: Type.Integer() }, Closed)),
}, Closed));
