import type { SandboxBackendName } from '../config/backends';
import Fastify, { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Ajv from 'ajv';
import { AuthError, InvalidOptionError } from '../config/errors';
import { LocalService } from '../service/local-service';
import type { TokenClaims } from '../service/tokens';
import { statusOf, toWire } from '../service/wire-errors';
import { OWN_VERSION, versionMismatch } from '../util/version';
import { serviceRoutes } from './service-routes';
import { agentProxy } from './agent-proxy';
import { runRoutes } from './run-routes';
import { consoleRoutes } from './console/console-routes';
import { AuthLimiter } from './auth-limiter';
import { DEFAULT_RETAIN_DAYS, prune } from './retention';

export interface ServerOptions {
  /** The state folder: its SQLite database holds teams, keys, sandbox owners, the cache and analytics. */
  stateDir: string;
  /** How long a token from /v1/auth is valid (default one hour). */
  tokenTtlMs?: number;
  /** Largest JSON body accepted, bytes (default 4 MiB). */
  bodyLimit?: number;
  /** HTTPS: PEM certificate and key. */
  tls?: { cert: string; key: string };
  /** Failed sign-ins allowed per address and per key in a minute (default 10). */
  authAttemptsPerMinute?: number;
  /**
   * Behind a reverse proxy: the client's address and the scheme come from
   * X-Forwarded-For and X-Forwarded-Proto (rate limits per address, secure
   * cookies, the console's origin check). Off, those headers are ignored.
   */
  trustProxy?: boolean;
  /** The longest a connect waits in a full team's queue (default 10 minutes). */
  maxQueueWaitMs?: number;
  /** Runs, evidence, screenshots, cache entries and usage records older than this are pruned (default 30). */
  retainDays?: number;
  /** Where sandboxes run when a client does not say (default 'local'). */
  backend?: SandboxBackendName;
}

export const DEFAULT_SERVER_TOKEN_TTL_MS = 60 * 60 * 1000;
const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
const REAP_EVERY_MS = 5_000;
const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;
/** Requests state the client's version in these headers; the server refuses a protocol it does not speak. */
export const VERSION_HEADER = 'x-glance-version';
export const PROTOCOL_HEADER = 'x-glance-protocol';

export type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

/** What the route modules share: the Service, and the caller's verified token. */
export interface ServerContext {
  service: LocalService;
  stateDir: string;
  /** The claims of the request's bearer token, for the Service's routes; throws an AuthError without a valid one. */
  claims(request: FastifyRequest): TokenClaims;
  /** The bearer token as sent, or an AuthError. */
  bearer(request: FastifyRequest): string;
  /** Failed sign-ins, by address and key: the API's and the console's alike. */
  limiter: AuthLimiter;
}

/**
 * The team server: the Service that LocalService implements, over HTTP, with
 * a JSON Schema for every route (checked on the way in and on the way out),
 * and each sandbox's agent reached through it.
 */
export async function buildServer(options: ServerOptions): Promise<{ app: App; service: LocalService }> {
  const service = new LocalService(options.stateDir, { tokenTtlMs: options.tokenTtlMs ?? DEFAULT_SERVER_TOKEN_TTL_MS, teamServer: true, maxQueueWaitMs: options.maxQueueWaitMs, backend: options.backend });
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
    // The server never logs requests: their headers hold tokens and their bodies model keys.
    logger: false,
    return503OnClosing: true,
    trustProxy: options.trustProxy ?? false,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  checkAnswers(app);
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { name: 'NotFound', code: null, message: `No route ${request.method} ${request.url.split('?')[0]}. The Service's routes are under /v1; see docs/server.md.` } });
  });
  app.addHook('onRequest', async (request) => {
    const protocol = request.headers[PROTOCOL_HEADER];
    if (protocol === undefined) return;
    const mismatch = versionMismatch(OWN_VERSION, 'team server', { glance: String(request.headers[VERSION_HEADER] ?? 'unknown'), protocol: Number(protocol) }, 'client');
    if (mismatch) throw new InvalidOptionError('apiRoot', mismatch);
  });
  // Sessions whose sandbox is gone (a client vanished and its lease ran out, an agent died) are ended, so no slot stays held.
  const sweep = setInterval(() => service.reapSessions(), REAP_EVERY_MS);
  sweep.unref();
  // What is older than the retention goes at start, then once a day.
  const retainDays = options.retainDays ?? DEFAULT_RETAIN_DAYS;
  const pruneOld = () => service.withStore((db) => prune(db, options.stateDir, retainDays));
  pruneOld();
  const daily = setInterval(pruneOld, PRUNE_EVERY_MS);
  daily.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    clearInterval(daily);
    await service.shutdown();
  });

  const context: ServerContext = {
    service,
    stateDir: options.stateDir,
    bearer,
    claims: (request) => service.check(bearer(request)),
    limiter: new AuthLimiter(options.authAttemptsPerMinute ?? 10),
  };
  await app.register(serviceRoutes(context));
  await app.register(consoleRoutes(context));
  await app.register(agentProxy(context));
  await app.register(runRoutes(context));
  return { app, service };
}

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match) throw new AuthError(`The request to ${request.method} ${request.url.split('?')[0]} has no bearer token. Sign in with POST /v1/auth and your API key, then send 'Authorization: Bearer TOKEN'.`);
  return match[1];
}

/**
 * Answers are validated against their route's schema before they are sent:
 * an answer that leaves the contract is a server fault (500), never a
 * surprise for the client.
 */
function checkAnswers(app: App): void {
  const ajv = new Ajv({ strict: false, allErrors: false });
  app.setSerializerCompiler(({ schema, method, url }) => {
    const validate = ajv.compile(schema as object);
    return (data: unknown) => {
      if (!validate(data)) {
        const problem = validate.errors?.map((e) => `${e.instancePath || 'answer'} ${e.message}`).join('; ');
        throw new Error(`The server's answer to ${method} ${url} does not match its schema (${problem}).`);
      }
      return JSON.stringify(data);
    };
  });
}

/** Every failure is an answer with a status and a message: the server itself never falls over on a request. */
function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const route = `${request.method} ${request.url.split('?')[0]}`;
  let status: number;
  let body;
  if (error.validation) {
    const where = `${error.validationContext ?? 'body'}${error.validation[0]?.instancePath ?? ''}`;
    status = 400;
    body = toWire(new InvalidOptionError(where, `Invalid request to ${route}: ${where} ${error.validation[0]?.message ?? 'is not valid'}. See docs/server.md for the route's schema.`));
  } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    status = 413;
    body = toWire(new InvalidOptionError('body', `The body sent to ${route} is larger than the server accepts (${Math.round(((error as { bodyLimit?: number }).bodyLimit ?? 0) / 1024) || 'its limit in'} KiB). Send less at once.`));
  } else if (error.code?.startsWith('FST_') && error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own refusals: malformed JSON, an unsupported media type, a bad URL.
    status = error.statusCode;
    body = toWire(new InvalidOptionError('body', `Invalid request to ${route}: ${error.message}.`));
  } else {
    status = statusOf(error);
    body = toWire(error);
  }
  if (!reply.sent) void reply.code(status).serializer(JSON.stringify).send({ error: body });
}
