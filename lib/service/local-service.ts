import fs from 'fs';
import path from 'path';
import { createHash, randomBytes } from 'crypto';
import { AuthError, SandboxError, StateError } from '../config/errors';
import type { Box } from '../types/screen';
import type { AssertResult, LocateAllResult, LocateResult } from '../types/locate';
import { buildChain } from '../locate/registry';
import { EngineChain } from '../locate/chain';
import type { LocateEngine } from '../locate/engine';
import type { EngineName } from '../config/locators';
import { AgentClient, AgentEndpoint } from '../sandbox/agent-client';
import { LocalProvider } from '../sandbox/local-provider';
import { SandboxRecord, SandboxRegistry } from '../sandbox/registry';
import { findKey, looksLikeKey } from './api-keys';
import { Db, dbPath, openDb } from '../store/db';
import { insertCommands } from '../store/analytics';
import type { CommandRecord } from '../types/analytics';
import { issueToken, signingSecret, verifyToken } from './tokens';
import { AssertRequest, AuthResult, LocateRequest, SandboxSession, SandboxSpec, Service, SessionInfo, SessionSettings } from './service';
import { FindSession } from './find-session';

const HOW_TO_GET_A_KEY = "Run 'npx glance init' to create a key (it is written to .env as GLANCE_API_KEY).";
/** Engines stay warm this long after the last session ends, for the next test's session. */
const ENGINE_IDLE_STOP_MS = 2000;

/** The embedded Service of each state folder, shared by the clients of a process so engines stay warm between tests. */
const embedded = new Map<string, LocalService>();

/** The embedded Service: state in `.glance/`, sandboxes on this machine, finds in this process. */
export class LocalService implements Service {
  private db: Db | null = null;
  private readonly registry: SandboxRegistry;
  private readonly provider: LocalProvider;
  /** Sandboxes this Service created, rejoined or attached, by instance id: where their agents listen. */
  private readonly sandboxes = new Map<string, { agent: AgentEndpoint; resolution: string }>();
  private readonly sessions = new Map<string, FindSession>();
  /** Engine chains by locator and vision model, shared by the sessions that use the same. */
  private readonly chains = new Map<string, EngineChain>();
  /** The engines that need no model (the tree, OCR), shared by every chain. */
  private readonly pool = new Map<EngineName, LocateEngine>();
  private idleStop: NodeJS.Timeout | null = null;

  constructor(private readonly stateDir: string) {
    this.registry = new SandboxRegistry(stateDir);
    this.provider = new LocalProvider(this.registry);
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

  private check(token: string): void {
    verifyToken(signingSecret(this.store()), token);
  }

  async auth(apiKey: string): Promise<AuthResult> {
    const db = this.store();
    const found = looksLikeKey(apiKey) ? findKey(db, apiKey) : null;
    if (!found) throw new AuthError(`The API key is not valid for the state in ${this.stateDir} (unknown or revoked). ${HOW_TO_GET_A_KEY}`);
    const token = issueToken(signingSecret(db), { team: found.teamId, key: found.keyId });
    const { exp } = verifyToken(signingSecret(db), token);
    return { token, expiresAt: new Date(exp).toISOString() };
  }

  async createSandbox(token: string, spec: SandboxSpec): Promise<SandboxSession> {
    this.check(token);
    if (spec.os !== 'linux') {
      throw new SandboxError(`os '${spec.os}' needs a ${spec.os} machine running the Glance agent: start 'npx glance agent --listen HOST:PORT --token T' there and connect with ip: 'HOST:PORT'. Local sandboxes are linux.`);
    }
    const record = await this.provider.create({
      width: spec.width, height: spec.height, keepAlive: spec.keepAlive, environment: spec.environment, vnc: spec.preview !== 'none',
      homeSeed: spec.sandboxHome, runAsRoot: spec.runAsRoot,
    });
    return this.remember(toSession(record, false));
  }

  async rejoinSandbox(token: string, sandboxId: string): Promise<SandboxSession> {
    this.check(token);
    return this.remember(toSession(await this.provider.rejoin(sandboxId), true));
  }

  async lastSandboxId(token: string): Promise<string | null> {
    this.check(token);
    return this.registry.last();
  }

  async attachSandbox(token: string, address: { host: string; port: number; agentToken: string }): Promise<SandboxSession> {
    this.check(token);
    const agent = new AgentClient({ host: address.host, port: address.port, token: address.agentToken });
    try {
      const health = await agent.call<{ id: string; display: string; width: number; height: number; vncPort: number | null }>('GET', '/health', undefined, 5_000);
      return this.remember({
        instance: {
          instanceId: health.id, ip: address.host, vncPort: health.vncPort ?? null, os: 'linux',
          resolution: `${health.width}x${health.height}`, provider: 'ip', rejoined: true,
          display: health.display, agentPort: address.port, createdAt: null,
        },
        agent: agent.endpoint,
      });
    } catch (error) {
      throw new SandboxError(`Could not reach a Glance agent at ${address.host}:${address.port}: ${(error as Error).message}. Start one there with 'npx glance agent --listen ${address.host}:${address.port} --token T' and set GLANCE_AGENT_TOKEN to the same T.`);
    } finally {
      agent.close();
    }
  }

  private remember(session: SandboxSession): SandboxSession {
    this.sandboxes.set(session.instance.instanceId, { agent: session.agent, resolution: session.instance.resolution });
    return session;
  }

  async openSession(token: string, instanceId: string, settings: SessionSettings, log: (line: string) => void = () => undefined): Promise<SessionInfo> {
    this.check(token);
    const sandbox = this.sandboxes.get(instanceId);
    if (!sandbox) throw new SandboxError(`Sandbox '${instanceId}' was not created, rejoined or attached through this service; connect to it first.`);
    if (this.idleStop) clearTimeout(this.idleStop);
    this.idleStop = null;
    const chainKey = chainIdentity(settings);
    let chain = this.chains.get(chainKey);
    if (!chain) this.chains.set(chainKey, (chain = buildChain(settings.locator, settings.vision, this.pool)));
    const sessionId = `${instanceId}-${randomBytes(6).toString('hex')}`;
    this.sessions.set(sessionId, new FindSession(this.stateDir, new AgentClient(sandbox.agent), chain, settings, sandbox.resolution, log));
    return { sessionId, locator: chain.label };
  }

  private session(id: string): FindSession {
    const session = this.sessions.get(id);
    if (!session) throw new StateError(`No open session '${id}': it ended (disconnect) or never began; connect again.`);
    return session;
  }

  async locate(session: string, request: LocateRequest): Promise<LocateResult> {
    return this.session(session).locate(request);
  }

  async locateAll(session: string, request: LocateRequest): Promise<LocateAllResult> {
    return this.session(session).locateAll(request);
  }

  async readText(session: string, box: Box): Promise<string> {
    return this.session(session).readText(box);
  }

  async assert(session: string, request: AssertRequest): Promise<AssertResult> {
    return this.session(session).assert(request);
  }

  async commitCache(session: string): Promise<number> {
    return this.session(session).commitCache();
  }

  async discardCache(session: string): Promise<number> {
    return this.session(session).discardCache();
  }

  async stopSandbox(sessionId: string, { keepAlive }: { keepAlive: number }): Promise<void> {
    const session = this.session(sessionId);
    this.sessions.delete(sessionId);
    try {
      await session.release(keepAlive);
    } finally {
      session.close();
      if (!this.sessions.size) this.idle();
    }
  }

  async recordCommands(token: string, records: CommandRecord[]): Promise<number> {
    this.check(token);
    const kept = records.length ? insertCommands(this.store(), records) : 0;
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
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
    if (this.idleStop) clearTimeout(this.idleStop);
    this.idleStop = null;
    this.close();
    await this.stopEngines();
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
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
      resolution: `${record.width}x${record.height}`, provider: 'local', rejoined,
      display: record.display, agentPort: record.port, createdAt: record.createdAt,
    },
    agent: { host: '127.0.0.1', port: record.port, token: record.token },
  };
}
