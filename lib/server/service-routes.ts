import fs from 'fs';
import path from 'path';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { AuthError, noOpenSession, StateError } from '../config/errors';
import { hashKey } from '../service/api-keys';
import type { SandboxSession } from '../service/service';
import type { CacheInfo } from '../types/locate';
import type { TokenClaims } from '../service/tokens';
import { OWN_VERSION } from '../util/version';
import type { App, ServerContext } from './app';
import * as S from './schemas';

const answers = <T>(ok: T) => ({ 200: ok, '4xx': S.ErrorBody, '5xx': S.ErrorBody });

/** The Service's calls as routes: one route per method, each checking the caller's team. */
export function serviceRoutes(context: ServerContext): FastifyPluginAsync {
  const { service, limiter } = context;

  /** A session of the caller's team; another team's session is answered as if it did not exist. */
  const session = (request: FastifyRequest): { id: string; claims: TokenClaims } => {
    const claims = context.claims(request);
    const id = (request.params as { session: string }).session;
    if (service.sessionTeam(id) !== claims.team) throw noOpenSession(id);
    return { id, claims };
  };

  /** The sandbox as the client reaches it: its agent through this server, with a token for that sandbox alone. */
  const throughServer = (claims: TokenClaims, sandbox: SandboxSession) => ({
    instance: sandbox.instance,
    agent: { basePath: `/v1/sandboxes/${sandbox.instance.instanceId}/agent`, token: service.sandboxToken(claims, sandbox.instance.instanceId) },
  });

  return async (app: App) => {
    app.get('/v1/version', { schema: { response: answers(S.VersionInfo) } }, async () => OWN_VERSION);

    app.post('/v1/auth', { schema: { body: S.AuthBody, response: answers(S.AuthAnswer) } }, async (request, reply) => {
      const sources = [`ip:${request.ip}`, `key:${hashKey(request.body.apiKey)}`];
      const wait = limiter.waitSeconds(sources);
      if (wait) {
        reply.header('retry-after', String(wait));
        return reply.code(429).serializer(JSON.stringify).send({ error: { name: 'AuthError', code: 'GLANCE_AUTH_RATE', message: `Too many failed sign-ins from this address or for this key; try again in ${wait} s.` } });
      }
      try {
        return { ...(await service.auth(request.body.apiKey)), server: OWN_VERSION };
      } catch (error) {
        if (error instanceof AuthError) limiter.fail(sources);
        throw error;
      }
    });

    app.post('/v1/sandboxes', { schema: { body: S.SandboxSpec, response: answers(S.SandboxSession) } }, async (request) => {
      const claims = context.claims(request);
      return throughServer(claims, await service.createSandbox(context.bearer(request), request.body));
    });

    app.post('/v1/sandboxes/attach', { schema: { body: S.AttachBody, response: answers(S.SandboxSession) } }, async (request) => {
      const claims = context.claims(request);
      return throughServer(claims, await service.attachSandbox(context.bearer(request), request.body));
    });

    app.get('/v1/sandboxes/last', { schema: { response: answers(S.LastSandbox) } }, async (request) => {
      context.claims(request);
      return { sandboxId: await service.lastSandboxId(context.bearer(request)) };
    });

    app.post('/v1/sandboxes/:id/rejoin', { schema: { params: S.SandboxParams, response: answers(S.SandboxSession) } }, async (request) => {
      const claims = context.claims(request);
      return throughServer(claims, await service.rejoinSandbox(context.bearer(request), request.params.id));
    });

    app.post('/v1/sessions', { schema: { body: S.OpenSessionBody, response: answers(S.SessionInfo) } }, async (request) => {
      context.claims(request);
      const log: string[] = [];
      const info = await service.openSession(context.bearer(request), request.body.instanceId, request.body.settings as never, (line) => log.push(line));
      return { ...info, log };
    });

    app.post('/v1/sessions/:session/locate', { schema: { params: S.SessionParams, body: S.LocateRequest, response: answers(S.LocateResult) } }, async (request) => {
      const { id, claims } = session(request);
      const result = await service.locate(id, request.body);
      // The client fetches the screenshot by its name below the team's folder, and writes it in its own.
      // The message names it so too: the server's folders are none of the client's business.
      const written = result.debugScreenshot && path.relative(service.screenshotsDir(claims.team), result.debugScreenshot).split(path.sep).join('/');
      const notFound = result.notFound && written ? result.notFound.replace(result.debugScreenshot!, written) : result.notFound;
      return { ...result, cache: inConsole(request, result.cache), notFound, debugScreenshot: written || null };
    });

    app.post('/v1/sessions/:session/locate-all', { schema: { params: S.SessionParams, body: S.LocateRequest, response: answers(S.LocateAllResult) } }, async (request) => {
      const { id } = session(request);
      const result = await service.locateAll(id, request.body);
      return { ...result, cache: inConsole(request, result.cache) };
    });

    app.post('/v1/sessions/:session/read-text', { schema: { params: S.SessionParams, body: S.Box, response: answers(S.ReadTextAnswer) } }, async (request) => {
      return { text: await service.readText(session(request).id, request.body) };
    });

    app.post('/v1/sessions/:session/views', { schema: { params: S.SessionParams, response: answers(S.ViewInfo) } }, async (request) => {
      return service.captureView(session(request).id);
    });

    app.post('/v1/sessions/:session/views/find', { schema: { params: S.SessionParams, body: S.FindOnViewBody, response: answers(S.FoundOnView) } }, async (request) => {
      return { box: await service.findOnView(session(request).id, request.body.viewId, request.body.description) };
    });

    app.post('/v1/sessions/:session/views/texts-added', { schema: { params: S.SessionParams, body: S.TextsAddedBody, response: answers(S.TextsAdded) } }, async (request) => {
      return { texts: await service.textsAdded(session(request).id, request.body.beforeViewId, request.body.afterViewId) };
    });

    app.post('/v1/sessions/:session/views/picture', { schema: { params: S.SessionParams, body: S.ViewPictureRequest, response: answers(S.ViewPicture) } }, async (request) => {
      return { png: await service.viewPicture(session(request).id, request.body) };
    });

    app.post('/v1/sessions/:session/describe', { schema: { params: S.SessionParams, body: S.DescribeRequest, response: answers(S.ElementDescription) } }, async (request) => {
      return service.describeAt(session(request).id, request.body);
    });

    app.post('/v1/sessions/:session/assert', { schema: { params: S.SessionParams, body: S.AssertRequest, response: answers(S.AssertResult) } }, async (request) => {
      const result = await service.assert(session(request).id, request.body);
      return { ...result, cache: inConsole(request, result.cache) };
    });

    app.post('/v1/sessions/:session/cache/commit', { schema: { params: S.SessionParams, response: answers(S.Count) } }, async (request) => {
      return { count: await service.commitCache(session(request).id) };
    });

    app.post('/v1/sessions/:session/cache/discard', { schema: { params: S.SessionParams, response: answers(S.Count) } }, async (request) => {
      return { count: await service.discardCache(session(request).id) };
    });

    app.post('/v1/sessions/:session/stop', { schema: { params: S.SessionParams, body: S.StopBody, response: answers(S.Empty) } }, async (request) => {
      await service.stopSandbox(session(request).id, request.body);
      return {};
    });

    // A not-found screenshot, which the client writes to its own screenshots folder.
    app.get('/v1/screenshots/*', { schema: { params: S.ScreenshotPath } }, async (request, reply) => {
      const claims = context.claims(request);
      const root = service.screenshotsDir(claims.team);
      const file = path.resolve(root, request.params['*']);
      if (!file.startsWith(root + path.sep) || !fs.existsSync(file)) throw new StateError(`No screenshot '${request.params['*']}' for your team.`);
      return reply.type('image/png').send(fs.readFileSync(file));
    });

    app.post('/v1/commands', { schema: { body: S.CommandRecords, response: answers(S.Count) } }, async (request) => {
      return { count: await service.recordCommands(context.bearer(request), request.body.records) };
    });
  };
}

/** A cache entry's picture as the client can open it: its page in the console, not a file on the server's disk. */
function inConsole(request: FastifyRequest, cache: CacheInfo): CacheInfo {
  const id = /\/(\d+)\.png$/.exec(cache.imageUrl ?? '')?.[1];
  return { ...cache, imageUrl: id ? `${request.protocol}://${request.headers.host}/console/cache/${id}/crop.png` : null };
}
