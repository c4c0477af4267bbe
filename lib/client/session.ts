import path from 'path';
import { Preview, ResolvedClientOptions, resolveConnectOptions } from '../config/options';
import { AuthError, InvalidOptionError, SandboxError, StateError } from '../config/errors';
import { AgentClient } from '../sandbox/agent-client';
import { SandboxInstance, SandboxSession, Service } from '../service/service';
import { CommandRunner } from './command-runner';
import { SessionEvidence } from './evidence';

/** How long a sandbox stays rejoinable after a failure with debugOnFailure. */
export const DEBUG_KEEP_ALIVE_MS = 30 * 60 * 1000;
const HEARTBEAT_MS = 10_000;
const DEFAULT_AGENT_PORT = 4780;

/**
 * The session side of the Client: the token, the sandbox it is connected to,
 * the Service session that finds on it, keep-alive and failure state.
 */
export class ClientSession {
  token: string | null = null;
  agent: AgentClient | null = null;
  instance: SandboxInstance | null = null;
  /** The Service's session id: finds, the cache and the sandbox's release go through it. */
  serviceSession: string | null = null;
  /** The engines finds go through, as the Service names them. */
  locator: string | null = null;
  sessionId: string | null = null;
  failed = false;
  /** Rejoined sandboxes already run their apps, so provisioning is skipped until resetApps(). */
  skipProvision = false;
  private keepAlive: number;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly options: ResolvedClientOptions,
    private readonly service: Service,
    private readonly apiKey: string,
    private readonly runner: CommandRunner,
    private readonly evidence: SessionEvidence,
  ) {
    this.keepAlive = options.keepAlive;
  }

  async auth(): Promise<string> {
    const { token } = await this.service.auth(this.apiKey);
    this.token = token;
    this.runner.redactor.add(token);
    return token;
  }

  /** `test` names the session's clip (the test's name, as its screenshot folder has it). */
  async connect(options: unknown, test: string): Promise<SandboxInstance> {
    const o = resolveConnectOptions(options);
    if (!this.token) throw new StateError('connect() needs a session token: call await client.auth() before client.connect().');
    if (this.instance) throw new StateError(`Already connected to sandbox '${this.instance.instanceId}'; call disconnect() first.`);
    if (o.usedHeadless) this.runner.log("The 'headless' option is deprecated; use preview: 'none' instead.");
    this.keepAlive = o.keepAlive ?? this.options.keepAlive;
    const preview = this.throughServer(this.evidence.preview.resolve(o.preview ?? this.options.preview));
    const sandbox = await this.openSandbox(this.token, o, preview);
    const agent = new AgentClient(sandbox.agent);
    this.runner.redactor.add(sandbox.agent.token);
    let previewPort: number | null = null;
    try {
      ({ previewPort = null } = await agent.call<{ previewPort?: number | null }>('POST', '/session', { keepAlive: this.keepAlive }));
      const { sessionId, locator } = await this.service.openSession(this.token, sandbox.instance.instanceId, {
        locator: this.options.locator, os: this.options.os, cache: this.options.cache, vision: this.options.vision,
      }, (line) => this.runner.log(line));
      this.serviceSession = sessionId;
      this.locator = locator;
    } catch (error) {
      agent.close();
      throw error;
    }
    this.agent = agent;
    this.instance = sandbox.instance;
    // A rejoined sandbox already runs its scenario's apps; an agent of your own is a machine the scenario sets up each time.
    this.skipProvision = sandbox.instance.rejoined && sandbox.instance.provider !== 'ip';
    this.sessionId = `${sandbox.instance.instanceId}-${Date.now().toString(36)}`;
    this.failed = false;
    this.heartbeat = setInterval(() => this.agent?.call('GET', '/health').catch(() => undefined), HEARTBEAT_MS);
    this.heartbeat.unref();
    const how = sandbox.instance.rejoined ? 'Rejoined' : 'Started';
    this.runner.log(`${how} sandbox ${sandbox.instance.instanceId} (${sandbox.instance.resolution}${sandbox.instance.display ? `, display ${sandbox.instance.display}` : ''}).`);
    this.noteVisionModel();
    if (sandbox.instance.rejoined && Object.keys(this.options.environment).length) {
      this.runner.log(`The 'environment' option applies to sandboxes Glance starts; ${sandbox.instance.instanceId} was already running, so its programs keep the environment it started with.`);
    }
    await this.evidence.begin(agent, { host: sandbox.agent.host, previewPort }, preview, test);
    return { ...sandbox.instance };
  }

  /** Behind the team server, the live preview is not opened from the client: the server's console shows the sandbox. */
  private throughServer(preview: Preview): Preview {
    if (!this.options.apiRoot || preview === 'none') return preview;
    this.runner.log(`Live preview not opened: the sandbox runs behind the team server at ${this.options.apiRoot}, whose console lists it; going on without it (preview: 'none' silences this).`);
    return 'none';
  }

  /** Which model answers what the tree and OCR cannot, and in which convention it is read. */
  private noteVisionModel(): void {
    const vision = this.options.vision;
    if (!vision) return;
    const where = vision.baseURL.replace(/\/\/[^/@\s]*@/, '//'); // no user or password from the URL
    const family = vision.familyGuessed ? `family ${vision.family}, guessed from its name; GLANCE_AI_FAMILY sets it` : `family ${vision.family}`;
    this.runner.log(`Vision model: ${vision.model} at ${where} (${family}).`);
  }

  private async openSandbox(token: string, o: ReturnType<typeof resolveConnectOptions>, preview: Preview): Promise<SandboxSession> {
    const ip = o.ip ?? this.options.ip;
    const sandboxId = o.sandboxId ?? this.options.sandboxId;
    if (ip) return this.service.attachSandbox(token, this.parseAgentAddress(ip));
    if (sandboxId) return this.service.rejoinSandbox(token, sandboxId);
    if (this.options.reconnect) {
      const last = await this.service.lastSandboxId(token);
      if (!last) throw new SandboxError(`reconnect: true, but no sandbox is recorded in ${path.join(this.options.stateDir, 'last-sandbox')}. Connect once without reconnect first.`);
      return this.service.rejoinSandbox(token, last);
    }
    const spec = {
      os: this.options.os, width: this.options.width, height: this.options.height, keepAlive: this.keepAlive,
      environment: this.options.environment, preview, sandboxHome: this.options.sandboxHome, runAsRoot: this.options.runAsRoot,
      ...(this.options.sandboxBackend ? { backend: this.options.sandboxBackend } : {}),
      sandboxAmi: o.sandboxAmi ?? this.options.sandboxAmi, sandboxInstance: o.sandboxInstance ?? this.options.sandboxInstance,
      connectTimeout: this.options.connectTimeout,
    };
    if (spec.sandboxAmi || spec.sandboxInstance) this.runner.log('sandboxAmi and sandboxInstance apply to cloud sandboxes; the local sandbox ignores them.');
    // Either level can force a new sandbox; only when neither does (constructor
    // newSandbox: false, connect default) is the last sandbox reused while alive.
    if (!o.newSandbox && !this.options.newSandbox) {
      const last = await this.service.lastSandboxId(token);
      if (last) {
        try {
          return await this.service.rejoinSandbox(token, last);
        } catch {
          /* gone: start a new one below */
        }
      }
    }
    return this.service.createSandbox(token, spec);
  }

  private parseAgentAddress(ip: string): { host: string; port: number; agentToken: string } {
    const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(ip.trim());
    if (!match) throw new InvalidOptionError('ip', `Invalid option 'ip': got '${ip}'; expected 'HOST' or 'HOST:PORT', e.g. '10.0.0.5:${DEFAULT_AGENT_PORT}'.`);
    const agentToken = process.env.GLANCE_AGENT_TOKEN ?? '';
    // Through the team server, an agent registered there ('glance agents add') needs no token here.
    if (!agentToken && !this.options.apiRoot) throw new AuthError("Connecting with 'ip' needs the agent's token in GLANCE_AGENT_TOKEN (the --token given to 'glance agent').");
    if (agentToken) this.runner.redactor.add(agentToken);
    return { host: match[1], port: match[2] ? Number(match[2]) : DEFAULT_AGENT_PORT, agentToken };
  }

  /** Ends the session: commits or discards the cache, releases the sandbox, closes handles. Safe to call twice. */
  async disconnect(): Promise<{ instanceId: string; keepAlive: number } | null> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    // Cache entries are written only for a session that did not fail.
    if (this.failed) await this.discardCache();
    else await this.commitCache();
    const { agent, instance, serviceSession } = this;
    this.agent = null;
    this.instance = null;
    this.serviceSession = null;
    this.sessionId = null;
    if (!agent || !instance || !serviceSession) return null;
    const keepAlive = this.failed && this.options.debugOnFailure ? Math.max(this.keepAlive, DEBUG_KEEP_ALIVE_MS) : this.keepAlive;
    try {
      await this.evidence.end(agent);
      await this.service.stopSandbox(serviceSession, { keepAlive });
    } catch (error) {
      this.runner.log(`Sandbox ${instance.instanceId} did not answer the release (${(error as Error).message}); it ends by itself when its lease runs out.`);
    } finally {
      agent.close();
    }
    return { instanceId: instance.instanceId, keepAlive };
  }

  markFailed(reason?: string): void {
    this.failed = true;
    if (this.options.debugOnFailure && this.instance) {
      const id = this.instance.instanceId;
      const message = `Test failed${reason ? ` (${this.runner.redactor.text(reason)})` : ''}. Sandbox ${id} is kept alive for ${DEBUG_KEEP_ALIVE_MS / 60000} minutes. Rejoin it with new Client({ sandboxId: '${id}' }) or GLANCE_SANDBOX_ID=${id}.`;
      console.log(`[glance] ${message}`);
      this.runner.emitter.emit('log:info', message);
    }
  }

  async commitCache(): Promise<number> {
    if (!this.serviceSession) return 0;
    const written = await this.service.commitCache(this.serviceSession);
    if (written) this.runner.log(`Cached ${written} located element(s).`);
    return written;
  }

  async discardCache(): Promise<number> {
    return this.serviceSession ? this.service.discardCache(this.serviceSession) : 0;
  }

  requireAgent(): AgentClient {
    if (!this.agent) throw new StateError('Not connected to a sandbox: call await client.auth() and await client.connect() first.');
    return this.agent;
  }

  /** The Service, with the session of the connected sandbox in it: for the recorder, which describes through it. */
  requireService(): { service: Service; session: string } {
    return { service: this.service, session: this.requireSession() };
  }

  /** The Service session of the connected sandbox. */
  requireSession(): string {
    if (!this.serviceSession) throw new StateError('Not connected to a sandbox: call await client.auth() and await client.connect() first.');
    return this.serviceSession;
  }

  /** The connected screen's size, or the configured one before connect. */
  screenSize(): { width: number; height: number } {
    const [width, height] = (this.instance?.resolution ?? this.options.resolution).split('x').map(Number);
    return { width, height };
  }
}
