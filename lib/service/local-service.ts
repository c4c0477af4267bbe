import fs from 'fs';
import path from 'path';
import { createHash, randomBytes } from 'crypto';
import { AuthError, noOpenSession, SandboxError } from '../config/errors';
import type { Box } from '../types/screen';
import type { AssertResult, LocateAllResult, LocateResult } from '../types/locate';
import type { DescribeRequest, ElementDescription, ViewInfo, ViewPictureRequest } from '../types/describe';
import { buildChain } from '../locate/registry';
import { EngineChain } from '../locate/chain';
import type { LocateEngine } from '../locate/engine';
import type { EngineName } from '../config/locators';
import { AgentClient, AgentEndpoint } from '../sandbox/agent-client';
import { LocalProvider, localSandboxAlive } from '../sandbox/local-provider';
import { SandboxRecord, SandboxRegistry } from '../sandbox/registry';
import { findKey, looksLikeKey } from './api-keys';
import { Db, dbPath, openDb } from '../store/db';
import { insertCommands } from '../store/analytics';
import type { CommandRecord } from '../types/analytics';
import { DEFAULT_TOKEN_TTL_MS, issueToken, signingSecret, TokenClaims, verifyToken } from './tokens';
import { keyActive, teamById } from './teams';
import { markEnded, openSandboxesOf, OwnerRow, ownerOf, recordOwner } from './sandbox-owners';
import { SandboxQueue } from './sandbox-queue';
import { sessionEnded, sessionOpened, sessionOpenOn } from './session-log';
import { DockerProvider } from '../sandbox/docker-provider';
import { KubernetesProvider } from '../sandbox/kubernetes-provider';
import type { SandboxBackend } from '../sandbox/backend';
import type { SandboxBackendName } from '../config/backends';
import { DEFAULT_CONNECT_TIMEOUT_MS, Os } from '../config/options';
import { AssertRequest, AuthResult, LocateRequest, SandboxSession, SandboxSpec, Service, SessionInfo, SessionSettings } from './service';
import { FindSession } from './find-session';
import { agentAt, agentById, agentsFor } from './agent-registry';
import { ConnectionError } from '../sandbox/http-client';

const HOW_TO_GET_A_KEY = "Run 'npx glance init' to create a key (it is written to .env as GLANCE_API_KEY).";
const HOW_TO_GET_A_SERVER_KEY = "Ask the server's admin for a key of your team ('glance keys create --team NAME') and set it as GLANCE_API_KEY.";
const SANDBOX_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
/** Engines stay warm this long after the last session ends, for the next test's session. */
const ENGINE_IDLE_STOP_MS = 2000;

/** The embedded Service of each state folder, shared by the clients of a process so engines stay warm between tests. */
const embedded = new Map<string, LocalService>();

export interface LocalServiceOptions {
  /** How long a token from auth() is valid. */
  tokenTtlMs?: number;
  /**
   * Many teams share this Service (the team server): each team's finds are
   * cached apart and its screenshots kept apart, and messages point at the
   * server's admin rather than at this machine's state folder.
   */
  teamServer?: boolean;
  /** Where sandboxes run when a client does not say (`glance serve --backend`; default 'local'). */
  backend?: SandboxBackendName;
  /** The longest a connect waits in the queue of a team at its limit, whatever the client asks (default 10 minutes). */
  maxQueueWaitMs?: number;
}

const DEFAULT_MAX_QUEUE_WAIT_MS = 10 * 60 * 1000;

/**
 * The embedded Service: state in `.glance/`, sandboxes on this machine, finds
 * in this process. The team server serves the same class to many teams: every
 * sandbox has an owning team, and only that team's tokens reach it.
 */
export class LocalService implements Service {
  private db: Db | null = null;
  private readonly registry: SandboxRegistry;
  /** Where sandboxes run; the docker and kubernetes backends are made on first use, since only they talk to their engines. */
  private readonly backends: { local: SandboxBackend; docker?: SandboxBackend; kubernetes?: SandboxBackend };
  /** Sandboxes this Service created, rejoined or attached, by instance id: where their agents listen. */
  private readonly sandboxes = new Map<string, { agent: AgentEndpoint; resolution: string }>();
  private readonly sessions = new Map<string, { find: FindSession; team: number; sandboxId: string }>();
  /** Engine chains by locator and vision model, shared by the sessions that use the same. */
  private readonly chains = new Map<string, EngineChain>();
  /** The engines that need no model (the tree, OCR), shared by every chain. */
  private readonly pool = new Map<EngineName, LocateEngine>();
  private idleStop: NodeJS.Timeout | null = null;
  /** Connects of a team at its sandbox limit wait here. */
  readonly queue = new SandboxQueue((team) => this.runningSandboxes(team).length);

  constructor(private readonly stateDir: string, private readonly options: LocalServiceOptions = {}) {
    this.registry = new SandboxRegistry(stateDir);
    this.backends = { local: new LocalProvider(this.registry) };
  }

  private backend(name: SandboxBackendName): SandboxBackend {
    if (name === 'local') return this.backends.local;
    if (name === 'kubernetes') return (this.backends.kubernetes ??= new KubernetesProvider(this.registry));
    return (this.backends.docker ??= new DockerProvider(this.registry));
  }

  /** The backend a known sandbox runs on. */
  private backendOf(sandboxId: string): SandboxBackend {
    return this.backend(this.registry.read(sandboxId)?.backend ?? 'local');
  }

  /** After a restart: the default backend's sandboxes are taken from its own record, and those past their deadline ended. */
  async reconcileBackends(): Promise<string[]> {
    return this.backend(this.options.backend ?? 'local').reconcile();
  }

  /** The process's Service for a state folder. */
  static embedded(stateDir: string): LocalService {
    const dir = path.resolve(stateDir);
    let service = embedded.get(dir);
    if (!service) embedded.set(dir, (service = new LocalService(dir)));
    return service;
  }

  /**
   * Ends the engines of every embedded service of this process at once: a
   * test runner that has run its last test calls it, so that the process
   * ends without waiting for the engines' idle stop.
   */
  static async shutdownEmbedded(): Promise<void> {
    await Promise.all([...embedded.values()].map((service) => service.shutdown()));
  }

  private store(): Db {
    if (!this.db) {
      if (!fs.existsSync(dbPath(this.stateDir))) throw new AuthError(`No Glance state database at ${dbPath(this.stateDir)}. ${HOW_TO_GET_A_KEY}`);
      this.db = openDb(this.stateDir);
    }
    return this.db;
  }

  /** The claims of a valid token for the Service's calls: signed here, not expired, its key not revoked, not scoped to one sandbox. */
  check(token: string): TokenClaims {
    const db = this.store();
    const claims = verifyToken(signingSecret(db), token);
    if (!keyActive(db, claims.key)) throw new AuthError(`The API key this token was issued for has been revoked. Ask your Glance admin for a new key ('glance keys create --team NAME').`);
    if (claims.sandbox) throw new AuthError(`This token opens sandbox '${claims.sandbox}' only; call auth() with your API key for a token of the Service.`);
    return claims;
  }

  /** The claims of a valid token scoped to one sandbox (the team server's agent route). */
  checkSandboxToken(token: string, sandboxId: string): TokenClaims {
    const db = this.store();
    const claims = verifyToken(signingSecret(db), token);
    if (claims.sandbox !== sandboxId || !keyActive(db, claims.key)) throw new AuthError(`The token does not open sandbox '${sandboxId}' (issued for another sandbox, or its key was revoked); connect again.`);
    return claims;
  }

  /**
   * A token that opens one sandbox's agent and nothing else. It is not
   * renewed during a session, so it lasts a day; every call still checks
   * that its key is not revoked and that its team owns the sandbox.
   */
  sandboxToken(claims: TokenClaims, sandboxId: string): string {
    return issueToken(signingSecret(this.store()), { team: claims.team, key: claims.key, sandbox: sandboxId }, SANDBOX_TOKEN_TTL_MS);
  }

  private tokenTtl(): number {
    return this.options.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
  }

  /**
   * A sandbox the token's team may use: one it owns, or one no team owns yet
   * (started before owners were recorded), which it then owns. Any other is
   * answered as unknown, so that a team cannot learn of another's sandboxes.
   */
  private claim(claims: TokenClaims, sandboxId: string, provider: OwnerRow['provider'], resolution: string): void {
    const db = this.store();
    const owner = ownerOf(db, sandboxId);
    const released = owner?.provider === 'ip' && owner.endedAt !== null;
    if (owner && owner.teamId !== claims.team && !released) throw this.unknownSandbox(sandboxId);
    if (!owner || released || owner.endedAt) recordOwner(db, { sandboxId, teamId: claims.team, keyId: claims.key, provider, resolution });
  }

  private unknownSandbox(id: string): SandboxError {
    return new SandboxError(`No sandbox with id '${id}' is known to your team. Check the id, or connect with newSandbox: true to start a new one.`);
  }

  /** The team's sandboxes that the backend says still run: the local registry's live processes, and attached agents not released. */
  runningSandboxes(team: number): OwnerRow[] {
    return openSandboxesOf(this.store(), team).filter((row) => row.provider === 'ip' || this.localAlive(row.sandboxId));
  }

  /** Whether a sandbox still runs by its record: a local supervisor's process, or a container Docker's events have not reported ended. */
  private localAlive(sandboxId: string): boolean {
    return localSandboxAlive(this.registry, sandboxId);
  }

  /**
   * Ends the sessions whose local sandbox is gone (its lease ran out after its
   * client vanished, or its agent died), and frees their slots; returns how many.
   */
  reapSessions(): number {
    let reaped = 0;
    for (const [id, session] of this.sessions) {
      const provider = ownerOf(this.store(), session.sandboxId)?.provider ?? 'local';
      if (provider === 'ip' || this.localAlive(session.sandboxId)) continue;
      session.find.close();
      this.sessions.delete(id);
      markEnded(this.store(), session.sandboxId, 'found gone while a session was open');
      sessionEnded(this.store(), id, 'reaped: its sandbox was gone');
      this.queue.wakeAll(session.team);
      reaped++;
    }
    return reaped;
  }

  /** Work on the state database (the team server's runs and console read and write it beside the Service). */
  withStore<T>(work: (db: Db) => T): T {
    return work(this.store());
  }

  /** Whether the team owns the sandbox. */
  owns(team: number, sandboxId: string): boolean {
    return ownerOf(this.store(), sandboxId)?.teamId === team;
  }

  /** Where a sandbox's agent listens: one this Service connected to, or a local one still running (after a restart). */
  agentEndpoint(sandboxId: string): AgentEndpoint | null {
    const known = this.sandboxes.get(sandboxId);
    if (known) return known.agent;
    const record = this.registry.read(sandboxId);
    if (record) return record.state === 'running' ? { host: '127.0.0.1', port: record.port, token: record.token } : null;
    const registered = agentById(this.store(), this.stateDir, sandboxId);
    return registered ? { host: registered.host, port: registered.port, token: registered.token } : null;
  }

  /** Where a team's not-found screenshots are written: with team caches, each team has a folder of its own. */
  screenshotsDir(team: number): string {
    const root = path.join(this.stateDir, 'screenshots');
    return this.options.teamServer ? path.join(root, `team-${team}`) : root;
  }

  /** The team of an open session, or null when there is no such session. */
  sessionTeam(sessionId: string): number | null {
    return this.sessions.get(sessionId)?.team ?? null;
  }

  async auth(apiKey: string): Promise<AuthResult> {
    const db = this.store();
    const found = looksLikeKey(apiKey) ? findKey(db, apiKey) : null;
    if (!found) {
      throw new AuthError(this.options.teamServer
        ? `The API key is not valid for this team server (unknown or revoked). ${HOW_TO_GET_A_SERVER_KEY}`
        : `The API key is not valid for the state in ${this.stateDir} (unknown or revoked). ${HOW_TO_GET_A_KEY}`);
    }
    const token = issueToken(signingSecret(db), { team: found.teamId, key: found.keyId }, this.tokenTtl());
    const { exp } = verifyToken(signingSecret(db), token);
    return { token, expiresAt: new Date(exp).toISOString() };
  }

  async createSandbox(token: string, spec: SandboxSpec): Promise<SandboxSession> {
    const claims = this.check(token);
    if (spec.os !== 'linux') return this.attachRegisteredAgent(token, claims.team, spec.os);
    const team = teamById(this.store(), claims.team);
    const wait = Math.min(spec.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS, this.options.maxQueueWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS);
    const endReservation = team ? await this.queue.acquire(team, wait) : () => undefined;
    try {
      const sandbox = {
        // The team server's console shows every sandbox live, whatever the client's own preview.
        width: spec.width, height: spec.height, keepAlive: spec.keepAlive, environment: spec.environment, vnc: spec.preview !== 'none' || Boolean(this.options.teamServer),
        homeSeed: spec.sandboxHome, runAsRoot: spec.runAsRoot,
      };
      const backend = spec.backend ?? this.options.backend ?? 'local';
      const record = await this.backend(backend).create(sandbox, { team: claims.team });
      recordOwner(this.store(), { sandboxId: record.id, teamId: claims.team, keyId: claims.key, provider: backend, resolution: `${record.width}x${record.height}` });
      return this.remember(toSession(record, false));
    } finally {
      endReservation();
    }
  }

  async rejoinSandbox(token: string, sandboxId: string): Promise<SandboxSession> {
    const claims = this.check(token);
    const owner = ownerOf(this.store(), sandboxId);
    if (owner && owner.teamId !== claims.team) throw this.unknownSandbox(sandboxId);
    let record: SandboxRecord;
    try {
      record = await this.backendOf(sandboxId).rejoin(sandboxId);
    } catch (error) {
      // The backend's word on liveness wins: a sandbox it finds gone is recorded as ended.
      if (owner && !owner.endedAt) markEnded(this.store(), sandboxId, (error as Error).message);
      throw error;
    }
    this.claim(claims, sandboxId, record.backend ?? 'local', `${record.width}x${record.height}`);
    return this.remember(toSession(record, true));
  }

  /** The newest sandbox connected to, when the token's team may use it. */
  async lastSandboxId(token: string): Promise<string | null> {
    const claims = this.check(token);
    const last = this.registry.last();
    if (!last) return null;
    const owner = ownerOf(this.store(), last);
    return !owner || owner.teamId === claims.team ? last : null;
  }

  /**
   * An agent of your own. Without a token, one registered on this server
   * (`glance agents add`) is used, if your team may use it.
   */
  async attachSandbox(token: string, address: { host: string; port: number; agentToken: string }): Promise<SandboxSession> {
    const claims = this.check(token);
    let agentToken = address.agentToken;
    if (!agentToken) {
      const registered = agentAt(this.store(), this.stateDir, address.host, address.port);
      if (!registered || (registered.teamId !== null && registered.teamId !== claims.team)) {
        throw new SandboxError(`No agent at ${address.host}:${address.port} is registered for your team. Give its token in GLANCE_AGENT_TOKEN, or ask the admin to run 'glance agents add ${address.host}:${address.port} --token T --team NAME'.`);
      }
      agentToken = registered.token;
    }
    const agent = new AgentClient({ host: address.host, port: address.port, token: agentToken });
    try {
      const health = await agent.health();
      this.claim(claims, health.id, 'ip', `${health.width}x${health.height}`);
      return this.remember({
        instance: {
          instanceId: health.id, ip: address.host, vncPort: health.vncPort ?? null, os: health.os === 'windows' ? 'windows' : 'linux',
          resolution: `${health.width}x${health.height}`, provider: 'ip', rejoined: true,
          display: health.display, agentPort: address.port, createdAt: null,
        },
        agent: agent.endpoint,
      });
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      throw new SandboxError(`Could not reach a Glance agent at ${address.host}:${address.port}: ${(error as Error).message}. Start one there with 'npx glance agent --listen ${address.host}:${address.port} --token T' and set GLANCE_AGENT_TOKEN to the same T.`);
    } finally {
      agent.close();
    }
  }

  /**
   * A sandbox of another desktop is a machine of the team's own: the first
   * agent registered for that os (`glance agents add --os`) that nobody is
   * using and that answers.
   */
  private async attachRegisteredAgent(token: string, team: number, os: Os): Promise<SandboxSession> {
    const howTo = `start 'npx glance agent --listen HOST:PORT --token T' on a ${os} machine, then connect with ip: 'HOST:PORT', or register it on the team server with 'glance agents add HOST:PORT --token T --os ${os} --team NAME' so that connect({ os: '${os}' }) finds it. Local sandboxes are linux.`;
    const agents = agentsFor(this.store(), this.stateDir, team, os);
    if (!agents.length) throw new SandboxError(`os '${os}' needs a ${os} machine running the Glance agent, and none is registered for your team: ${howTo}`);
    const free = agents.filter((a) => !sessionOpenOn(this.store(), a.agentId));
    if (!free.length) throw new SandboxError(`Every ${os} agent registered for your team is in use (${agents.map((a) => `${a.host}:${a.port}`).join(', ')}). Try again when one is free, or register another with 'glance agents add HOST:PORT --token T --os ${os} --team NAME'.`);
    const unreachable: string[] = [];
    for (const agent of free) {
      try {
        return await this.attachSandbox(token, { host: agent.host, port: agent.port, agentToken: agent.token });
      } catch (error) {
        unreachable.push(`${agent.host}:${agent.port} (${(error as Error).message.split('. ')[0]})`);
      }
    }
    throw new SandboxError(`No ${os} agent registered for your team answered: ${unreachable.join('; ')}. Start 'npx glance agent' on those machines again.`);
  }

  private remember(session: SandboxSession): SandboxSession {
    this.sandboxes.set(session.instance.instanceId, { agent: session.agent, resolution: session.instance.resolution });
    return session;
  }

  async openSession(token: string, instanceId: string, settings: SessionSettings, log: (line: string) => void = () => undefined): Promise<SessionInfo> {
    const claims = this.check(token);
    const sandbox = this.sandboxes.get(instanceId);
    if (sandbox && !this.owns(claims.team, instanceId)) throw this.unknownSandbox(instanceId);
    if (!sandbox) throw new SandboxError(`Sandbox '${instanceId}' was not created, rejoined or attached through this service; connect to it first.`);
    if (this.idleStop) clearTimeout(this.idleStop);
    this.idleStop = null;
    const chainKey = chainIdentity(settings);
    let chain = this.chains.get(chainKey);
    if (!chain) this.chains.set(chainKey, (chain = buildChain(settings.locator, settings.vision, this.pool)));
    const sessionId = `${instanceId}-${randomBytes(6).toString('hex')}`;
    const find = new FindSession(this.stateDir, new AgentClient(sandbox.agent), chain, settings, sandbox.resolution, log, this.screenshotsDir(claims.team));
    this.sessions.set(sessionId, { find, team: claims.team, sandboxId: instanceId });
    sessionOpened(this.store(), { id: sessionId, teamId: claims.team, keyId: claims.key, sandboxId: instanceId });
    return { sessionId, locator: chain.label };
  }

  private session(id: string): FindSession {
    const session = this.sessions.get(id);
    if (!session) throw noOpenSession(id);
    return session.find;
  }

  /**
   * Work on a session's sandbox. When its agent cannot be reached, the error
   * says whether the sandbox is gone (its agent ended or crashed), rather
   * than naming a failed request.
   */
  private async onSandbox<T>(sessionId: string, work: (find: FindSession) => Promise<T>): Promise<T> {
    const find = this.session(sessionId);
    try {
      return await work(find);
    } catch (error) {
      const sandboxId = this.sessions.get(sessionId)?.sandboxId;
      if (!(error instanceof ConnectionError) || !sandboxId || ownerOf(this.store(), sandboxId)?.provider === 'ip' || await this.backendOf(sandboxId).confirmAlive(sandboxId)) throw error;
      const record = this.registry.read(sandboxId);
      const why = (record?.backend ?? 'local') === 'local' ? 'its agent ended or crashed' : record?.stopReason ?? `its ${record?.backend === 'docker' ? 'container' : 'pod'} ended`;
      throw new SandboxError(`Sandbox '${sandboxId}' is gone: ${why} (${error.message}). Connect again for a new sandbox.`);
    }
  }

  /** The cache key a request is stored under: with team caches, each team's keys live apart. */
  private scoped<T extends { cacheKey: string | null }>(sessionId: string, request: T): T {
    const team = this.sessionTeam(sessionId);
    if (!this.options.teamServer || request.cacheKey === null || team === null) return request;
    return { ...request, cacheKey: teamCacheKey(team, request.cacheKey) };
  }

  async locate(session: string, request: LocateRequest): Promise<LocateResult> {
    return this.onSandbox(session, (find) => find.locate(this.scoped(session, request)));
  }

  async locateAll(session: string, request: LocateRequest): Promise<LocateAllResult> {
    return this.onSandbox(session, (find) => find.locateAll(this.scoped(session, request)));
  }

  async readText(session: string, box: Box): Promise<string> {
    return this.onSandbox(session, (find) => find.readText(box));
  }

  async assert(session: string, request: AssertRequest): Promise<AssertResult> {
    return this.onSandbox(session, (find) => find.assert(this.scoped(session, request)));
  }

  async captureView(session: string): Promise<ViewInfo> {
    return this.onSandbox(session, (find) => find.views.capture());
  }

  async describeAt(session: string, request: DescribeRequest): Promise<ElementDescription> {
    return this.onSandbox(session, (find) => find.views.describeAt(request));
  }

  async findOnView(session: string, viewId: string, description: string): Promise<Box | null> {
    return this.onSandbox(session, (find) => find.views.findOnView(viewId, description));
  }

  async textsAdded(session: string, beforeViewId: string, afterViewId: string): Promise<string[]> {
    return this.onSandbox(session, (find) => find.views.textsAdded(beforeViewId, afterViewId));
  }

  async viewPicture(session: string, request: ViewPictureRequest): Promise<string> {
    return this.onSandbox(session, async (find) => (await find.views.picture(request)).toString('base64'));
  }

  async commitCache(session: string): Promise<number> {
    return this.onSandbox(session, async (find) => find.commitCache());
  }

  async discardCache(session: string): Promise<number> {
    return this.onSandbox(session, async (find) => find.discardCache());
  }

  async stopSandbox(sessionId: string, { keepAlive }: { keepAlive: number }): Promise<void> {
    const session = this.session(sessionId);
    const { sandboxId } = this.sessions.get(sessionId)!;
    this.sessions.delete(sessionId);
    sessionEnded(this.store(), sessionId, keepAlive === 0 ? 'disconnected, sandbox stopped' : `disconnected, sandbox kept ${Math.round(keepAlive / 1000)} s`);
    try {
      await session.release(keepAlive);
      // A stopped sandbox and a released agent of your own end their ownership; one kept alive stays its team's.
      const owner = ownerOf(this.store(), sandboxId);
      if (owner && (keepAlive === 0 || owner.provider === 'ip')) markEnded(this.store(), sandboxId, keepAlive === 0 ? 'stopped' : 'released');
      if (owner) this.queue.wakeAll(owner.teamId);
    } finally {
      // A stopped container (or one that died) is waited for until it is gone: nothing of it is left when disconnect returns.
      if (keepAlive === 0) await this.backendOf(sandboxId).removed(sandboxId);
      session.close();
      if (!this.sessions.size) this.idle();
    }
  }

  async recordCommands(token: string, records: CommandRecord[]): Promise<number> {
    const claims = this.check(token);
    const kept = records.length ? insertCommands(this.store(), records, undefined, claims.team) : 0;
    if (!this.sessions.size) this.close();
    return kept;
  }

  /** No session left: the database closes now, the engines shortly after unless a new session comes. */
  private idle(): void {
    this.db?.close();
    this.db = null;
    this.idleStop = setTimeout(() => {
      this.idleStop = null;
      if (!this.sessions.size) void this.stopEngines();
    }, ENGINE_IDLE_STOP_MS);
    this.idleStop.unref();
  }

  private async stopEngines(): Promise<void> {
    const chains = [...this.chains.values()];
    this.chains.clear();
    await Promise.all(chains.map((c) => c.stop()));
  }

  /** Forgets what the engines memoised, so the next find reads the screen afresh (benchmarks of uncached finds). */
  forgetReadings(): void {
    for (const chain of this.chains.values()) chain.forget();
  }

  /** Ends every session's handles and the engines at once (tests and the CLI, so the process can exit). */
  async shutdown(): Promise<void> {
    for (const session of this.sessions.values()) session.find.close();
    this.sessions.clear();
    if (this.idleStop) clearTimeout(this.idleStop);
    this.idleStop = null;
    this.close();
    for (const backend of Object.values(this.backends)) backend.close();
    await this.stopEngines();
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
}

/** Where a team's cache entries live in a shared store: apart from every other team's. */
export function teamCacheKey(team: number, cacheKey: string): string {
  return `team-${team}/${cacheKey}`;
}

/** A chain is shared by sessions with the same locator and model; the key is hashed, never kept as text. */
function chainIdentity(settings: SessionSettings): string {
  if (!settings.vision) return settings.locator;
  return `${settings.locator}:${createHash('sha256').update(JSON.stringify(settings.vision)).digest('hex')}`;
}

function toSession(record: SandboxRecord, rejoined: boolean): SandboxSession {
  return {
    instance: {
      instanceId: record.id, ip: '127.0.0.1', vncPort: record.vncPort, os: record.os,
      resolution: `${record.width}x${record.height}`, provider: record.backend ?? 'local', rejoined,
      display: record.display, agentPort: record.port, createdAt: record.createdAt,
    },
    // A container's agent cannot reach this machine's shared memory.
    agent: { host: record.host ?? '127.0.0.1', port: record.port, token: record.token, ...((record.backend ?? 'local') === 'local' ? {} : { sharedMemory: false }) },
  };
}
