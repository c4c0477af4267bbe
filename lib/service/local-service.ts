import fs from 'fs';
import { AuthError, SandboxError } from '../config/errors';
import { AgentClient } from '../sandbox/agent-client';
import { LocalProvider } from '../sandbox/local-provider';
import { SandboxRecord, SandboxRegistry } from '../sandbox/registry';
import { findKey, looksLikeKey } from './api-keys';
import { Db, dbPath, openDb } from './store';
import { issueToken, signingSecret, verifyToken } from './tokens';
import { AuthResult, SandboxSession, SandboxSpec, Service } from './service';

const HOW_TO_GET_A_KEY = "Run 'npx glance init' to create a key (it is written to .env as GLANCE_API_KEY).";

/** The embedded Service: state in `.glance/`, sandboxes on this machine. */
export class LocalService implements Service {
  private db: Db | null = null;
  private readonly registry: SandboxRegistry;
  private readonly provider: LocalProvider;

  constructor(private readonly stateDir: string) {
    this.registry = new SandboxRegistry(stateDir);
    this.provider = new LocalProvider(this.registry);
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
    });
    return toSession(record, false);
  }

  async rejoinSandbox(token: string, sandboxId: string): Promise<SandboxSession> {
    this.check(token);
    return toSession(await this.provider.rejoin(sandboxId), true);
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
      return {
        instance: {
          instanceId: health.id, ip: address.host, vncPort: health.vncPort ?? null, os: 'linux',
          resolution: `${health.width}x${health.height}`, provider: 'ip', rejoined: true,
          display: health.display, agentPort: address.port, createdAt: null,
        },
        agent: agent.endpoint,
      };
    } catch (error) {
      throw new SandboxError(`Could not reach a Glance agent at ${address.host}:${address.port}: ${(error as Error).message}. Start one there with 'npx glance agent --listen ${address.host}:${address.port} --token T' and set GLANCE_AGENT_TOKEN to the same T.`);
    } finally {
      agent.close();
    }
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
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
