import fs from 'fs';
import path from 'path';
import { InvalidOptionError, noOpenSession, StateError } from '../config/errors';
import type { Box } from '../types/screen';
import type { AssertResult, LocateAllResult, LocateResult } from '../types/locate';
import type { CommandRecord } from '../types/analytics';
import type { DescribeRequest, ElementDescription, ViewInfo, ViewPictureRequest } from '../types/describe';
import type { ResultRow, ScenarioReport } from '../types/runs';
import { ConnectionError, HttpClient, HttpTarget } from '../sandbox/http-client';
import { OWN_VERSION, VersionInfo, versionMismatch } from '../util/version';
import { sleep } from '../util/wait';
import { fromWire, WireError } from './wire-errors';
import type { AssertRequest, AuthResult, LocateRequest, SandboxSession, SandboxSpec, Service, SessionInfo, SessionSettings } from './service';

/** Safe calls are repeated over this long when the server cannot be reached (a restart takes a few seconds). */
const RETRY_WINDOW_MS = 15_000;
const FIRST_RETRY_DELAY_MS = 200;
const MAX_RETRY_DELAY_MS = 2_000;
/** A call's own bound, beyond the time it asked to wait (a find's timeout). */
const CALL_MARGIN_MS = 60_000;
/** A token is renewed with the key once a quarter of its life is left, at most this long before it expires. */
const RENEW_BEFORE_MS = 5 * 60_000;

/** A session as this process opened it: enough to open it again on a server that restarted. */
interface OpenSession {
  signIn: SignIn;
  instanceId: string;
  settings: SessionSettings;
  /** The server's id of the session now (it changes when the session is opened again). */
  serverId: string;
}

const EVIDENCE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.mp4': 'video/mp4' };

interface SignIn {
  apiKey: string;
  token: string;
  /** ms since the epoch. */
  issuedAt: number;
  expiresAt: number;
}

interface CallOptions {
  /** Safe to send again when the connection dropped after sending (finds, reads): nothing happens twice. */
  repeatable: boolean;
  /** The bearer token; null for none (signing in). */
  token: string | null;
  timeoutMs?: number;
}

/**
 * The Service of a team server (`apiRoot`, `GLANCE_API_ROOT`), over HTTP.
 * It answers as LocalService does: the same results, errors and messages.
 * A call that cannot reach the server is sent again within a bound only
 * when that cannot do anything twice; other calls fail with an error that
 * says whether the request may have been carried out. The token is renewed
 * with the key before it expires, so a long suite never sees it lapse.
 */
export class RemoteService implements Service {
  private static readonly shared_ = new Map<string, RemoteService>();
  private readonly http: HttpClient;
  private readonly basePath: string;
  private readonly root: string;
  /** Each sign-in by the tokens ever issued for it (renewed ones too), so that a renewed token replaces them all. */
  private readonly signIns = new Map<string, SignIn>();
  /** The sessions this process opened, by the id the Client knows them by. */
  private readonly sessions = new Map<string, OpenSession>();

  /** `stateDir` is the client's: not-found screenshots are written there, as the embedded Service writes them. */
  constructor(apiRoot: string, private readonly stateDir: string, options: { ca?: string } = {}) {
    const url = parseApiRoot(apiRoot);
    this.root = url.origin + url.pathname.replace(/\/$/, '');
    this.basePath = url.pathname.replace(/\/$/, '');
    const target: HttpTarget = {
      host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), token: '',
      basePath: this.basePath, secure: url.protocol === 'https:', ca: options.ca,
    };
    this.http = new HttpClient(target, 16);
  }

  /** The process's Service for a server and a state folder, shared by its clients so that connections are reused. */
  static shared(apiRoot: string, stateDir: string): RemoteService {
    const key = `${apiRoot}\n${path.resolve(stateDir)}`;
    let service = RemoteService.shared_.get(key);
    if (!service) RemoteService.shared_.set(key, (service = new RemoteService(apiRoot, stateDir)));
    return service;
  }

  async auth(apiKey: string): Promise<AuthResult> {
    const answer = await this.call<AuthResult & { server: VersionInfo }>('POST', '/v1/auth', { apiKey }, { repeatable: true, token: null });
    const mismatch = versionMismatch(OWN_VERSION, 'client', answer.server, `team server at ${this.root}`);
    if (mismatch) throw new InvalidOptionError('apiRoot', mismatch);
    this.signIns.set(answer.token, { apiKey, token: answer.token, issuedAt: Date.now(), expiresAt: Date.parse(answer.expiresAt) });
    return { token: answer.token, expiresAt: answer.expiresAt };
  }

  /** A sign-in's current token, renewed with its key when it is about to expire. */
  private async fresh(signIn: SignIn): Promise<string> {
    const renewAt = signIn.expiresAt - Math.min(RENEW_BEFORE_MS, (signIn.expiresAt - signIn.issuedAt) / 4);
    if (Date.now() >= renewAt) {
      const renewed = await this.auth(signIn.apiKey);
      Object.assign(signIn, { token: renewed.token, issuedAt: Date.now(), expiresAt: Date.parse(renewed.expiresAt) });
      this.signIns.set(renewed.token, signIn);
    }
    return signIn.token;
  }

  async createSandbox(token: string, spec: SandboxSpec): Promise<SandboxSession> {
    return this.sandbox(await this.call('POST', '/v1/sandboxes', spec, { repeatable: false, token, timeoutMs: 120_000 + (spec.connectTimeout ?? 0) }));
  }

  async rejoinSandbox(token: string, sandboxId: string): Promise<SandboxSession> {
    return this.sandbox(await this.call('POST', `/v1/sandboxes/${encodeURIComponent(sandboxId)}/rejoin`, undefined, { repeatable: true, token }));
  }

  async lastSandboxId(token: string): Promise<string | null> {
    return (await this.call<{ sandboxId: string | null }>('GET', '/v1/sandboxes/last', undefined, { repeatable: true, token })).sandboxId;
  }

  async attachSandbox(token: string, address: { host: string; port: number; agentToken: string }): Promise<SandboxSession> {
    return this.sandbox(await this.call('POST', '/v1/sandboxes/attach', address, { repeatable: true, token }));
  }

  /** The sandbox's agent, reached through the server with a token for that sandbox alone. */
  private sandbox(wire: { instance: SandboxSession['instance']; agent: { basePath: string; token: string } }): SandboxSession {
    const { host, port, secure, ca } = this.http.target;
    return { instance: wire.instance, agent: { host, port, secure, ca, basePath: `${this.basePath}${wire.agent.basePath}`, token: wire.agent.token } };
  }

  async openSession(token: string, instanceId: string, settings: SessionSettings, log: (line: string) => void = () => undefined): Promise<SessionInfo> {
    const answer = await this.call<SessionInfo & { log: string[] }>('POST', '/v1/sessions', { instanceId, settings }, { repeatable: false, token });
    const signIn = this.signIns.get(token) ?? { apiKey: '', token, issuedAt: Date.now(), expiresAt: Infinity };
    this.sessions.set(answer.sessionId, { signIn, instanceId, settings, serverId: answer.sessionId });
    for (const line of answer.log) log(line);
    return { sessionId: answer.sessionId, locator: answer.locator };
  }

  async locate(session: string, request: LocateRequest): Promise<LocateResult> {
    const result = await this.onSession<LocateResult>(session, 'locate', request, { repeatable: true, timeoutMs: request.timeout + CALL_MARGIN_MS });
    if (!result.debugScreenshot) return result;
    const file = await this.fetchScreenshot(session, result.debugScreenshot);
    const notFound = file && result.notFound ? result.notFound.replace(`screenshot: ${result.debugScreenshot}`, `screenshot: ${file}`) : result.notFound;
    return { ...result, notFound, debugScreenshot: file };
  }

  /** The server's not-found screenshot, written where the embedded Service would have written it. */
  private async fetchScreenshot(session: string, name: string): Promise<string | null> {
    const root = path.join(this.stateDir, 'screenshots');
    const file = path.resolve(root, name);
    if (!file.startsWith(root + path.sep)) return null;
    const token = this.openedSession(session).signIn.token;
    const answer = await this.http.send('GET', `/v1/screenshots/${name.split('/').map(encodeURIComponent).join('/')}`, undefined, CALL_MARGIN_MS, undefined, await this.extras(token));
    if (answer.status !== 200) return null;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, answer.data);
    return file;
  }

  async locateAll(session: string, request: LocateRequest): Promise<LocateAllResult> {
    return this.onSession(session, 'locate-all', request, { repeatable: true, timeoutMs: request.timeout + CALL_MARGIN_MS });
  }

  async readText(session: string, box: Box): Promise<string> {
    return (await this.onSession<{ text: string }>(session, 'read-text', box, { repeatable: true })).text;
  }

  async assert(session: string, request: AssertRequest): Promise<AssertResult> {
    return this.onSession(session, 'assert', request, { repeatable: true });
  }

  async captureView(session: string): Promise<ViewInfo> {
    return this.onSession(session, 'views', undefined, { repeatable: false });
  }

  async describeAt(session: string, request: DescribeRequest): Promise<ElementDescription> {
    return this.onSession(session, 'describe', request, { repeatable: true });
  }

  async findOnView(session: string, viewId: string, description: string): Promise<Box | null> {
    return (await this.onSession<{ box: Box | null }>(session, 'views/find', { viewId, description }, { repeatable: true })).box;
  }

  async textsAdded(session: string, beforeViewId: string, afterViewId: string): Promise<string[]> {
    return (await this.onSession<{ texts: string[] }>(session, 'views/texts-added', { beforeViewId, afterViewId }, { repeatable: true })).texts;
  }

  async viewPicture(session: string, request: ViewPictureRequest): Promise<string> {
    return (await this.onSession<{ png: string }>(session, 'views/picture', request, { repeatable: true })).png;
  }

  async commitCache(session: string): Promise<number> {
    return (await this.onSession<{ count: number }>(session, 'cache/commit', undefined, { repeatable: false })).count;
  }

  async discardCache(session: string): Promise<number> {
    return (await this.onSession<{ count: number }>(session, 'cache/discard', undefined, { repeatable: false })).count;
  }

  async stopSandbox(session: string, options: { keepAlive: number }): Promise<void> {
    try {
      await this.onSession(session, 'stop', options, { repeatable: false });
    } finally {
      this.sessions.delete(session);
    }
  }

  private openedSession(session: string): OpenSession {
    const open = this.sessions.get(session);
    if (!open) throw noOpenSession(session);
    return open;
  }

  /**
   * A call on a session, with the token of the sign-in that opened it. A
   * server that restarted has forgotten its sessions (never its sandboxes):
   * the session is opened again on the same sandbox, with the same settings,
   * and the call made once more. Finds it made but had not committed to the
   * cache are lost with the old session.
   */
  private async onSession<T>(session: string, route: string, body: unknown, options: Omit<CallOptions, 'token'>): Promise<T> {
    const open = this.openedSession(session);
    const send = () => this.call<T>('POST', `${sessionPath(open.serverId)}/${route}`, body, { ...options, token: open.signIn.token });
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof StateError) || error.message !== noOpenSession(open.serverId).message) throw error;
      await this.rejoinSandbox(open.signIn.token, open.instanceId);
      const again = await this.call<SessionInfo>('POST', '/v1/sessions', { instanceId: open.instanceId, settings: open.settings }, { repeatable: false, token: open.signIn.token });
      open.serverId = again.sessionId;
      return send();
    }
  }

  /**
   * Reports a scenario attempt of a run to the team server, then uploads its
   * evidence files (the console cannot read this machine's disk); returns the
   * result's id. Files that are gone are skipped.
   */
  async reportScenario(token: string, runId: string, report: Omit<ScenarioReport, 'runId'>, files: { kind: 'failure' | 'clip' | 'picture'; file: string }[]): Promise<number> {
    const { id } = await this.call<{ id: number }>('POST', `/v1/runs/${encodeURIComponent(runId)}/results`, report, { repeatable: false, token });
    for (const { kind, file } of files) {
      const type = EVIDENCE_TYPES[path.extname(file).toLowerCase()];
      if (!type || !fs.existsSync(file)) continue;
      const extras = await this.extras(token);
      const answer = await this.http.send('POST', `/v1/results/${id}/evidence?kind=${kind}`, fs.readFileSync(file), CALL_MARGIN_MS, undefined, { ...extras, headers: { ...extras.headers, 'content-type': type } });
      if (answer.status >= 400) throw fromWire(JSON.parse(answer.data.toString('utf8')).error as WireError);
    }
    return id;
  }

  /** Every scenario attempt the team server holds of a run, with its evidence files. */
  async runResults(token: string, runId: string): Promise<ResultRow[]> {
    return this.call<ResultRow[]>('GET', `/v1/runs/${encodeURIComponent(runId)}`, undefined, { repeatable: true, token });
  }

  /** The bytes of an evidence file the team server keeps. */
  async evidenceBytes(token: string, id: number): Promise<Buffer> {
    const answer = await this.http.send('GET', `/v1/evidence/${id}`, undefined, CALL_MARGIN_MS, undefined, await this.extras(token));
    if (answer.status >= 400) throw fromWire(this.json(answer.data, answer.status, `/v1/evidence/${id}`).error as WireError);
    return answer.data;
  }

  async recordCommands(token: string, records: CommandRecord[]): Promise<number> {
    return (await this.call<{ count: number }>('POST', '/v1/commands', { records }, { repeatable: false, token })).count;
  }

  close(): void {
    this.http.close();
  }

  /** The headers of a call: the versions, and the token (a token this service issued is renewed when about to expire). */
  private async extras(given: string | null): Promise<{ token: string; headers: Record<string, string> }> {
    const headers = { 'x-glance-version': OWN_VERSION.glance, 'x-glance-protocol': String(OWN_VERSION.protocol) };
    const signIn = given === null ? undefined : this.signIns.get(given);
    return { token: signIn ? await this.fresh(signIn) : given ?? '', headers };
  }

  /** An answer's JSON; anything else means apiRoot names something other than a team server (a proxy's error page). */
  private json(data: Buffer, status: number, route: string): { error?: WireError } & Record<string, unknown> {
    if (!data.length) return {};
    try {
      return JSON.parse(data.toString('utf8'));
    } catch {
      throw new InvalidOptionError('apiRoot', `${this.root}${route} answered ${status} with something other than JSON (${JSON.stringify(data.subarray(0, 80).toString('utf8'))}). Is apiRoot the team server's URL ('glance serve'), and is any proxy before it passing requests on?`);
    }
  }

  private async call<T>(method: 'GET' | 'POST', route: string, body: unknown, options: CallOptions): Promise<T> {
    const deadline = Date.now() + RETRY_WINDOW_MS;
    let delay = FIRST_RETRY_DELAY_MS;
    for (let tries = 1; ; tries++) {
      try {
        const extras = await this.extras(options.token);
        const answer = await this.http.send(method, route, body, options.timeoutMs ?? CALL_MARGIN_MS, undefined, extras);
        // 503: the server is shutting down; a call it refused did nothing.
        if (answer.status === 503 && Date.now() + delay < deadline) throw new ConnectionError('the team server is restarting', false);
        const json = this.json(answer.data, answer.status, route);
        if (answer.status >= 400) throw fromWire((json.error ?? { name: 'Error', code: null, message: `The team server answered ${answer.status}.` }) as WireError);
        return json as unknown as T;
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        const mayRepeat = error.retryable && (!error.sent || options.repeatable);
        if (!mayRepeat || Date.now() + delay >= deadline) {
          throw new ConnectionError(`The team server at ${this.root} could not be reached (${tries} ${tries === 1 ? 'try' : 'tries'}): ${error.message}`, error.sent, error.retryable);
        }
        await sleep(delay);
        delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
      }
    }
  }
}

function sessionPath(session: string): string {
  return `/v1/sessions/${encodeURIComponent(session)}`;
}

function parseApiRoot(apiRoot: string): URL {
  let url: URL;
  try {
    url = new URL(apiRoot);
  } catch {
    throw new InvalidOptionError('apiRoot', `Invalid option 'apiRoot': got '${apiRoot}'; expected the team server's URL, e.g. 'http://glance.example.com:4790'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidOptionError('apiRoot', `Invalid option 'apiRoot': got '${apiRoot}'; the team server is reached over http: or https:.`);
  }
  return url;
}
