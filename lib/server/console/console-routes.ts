import fs from 'fs';
import path from 'path';
import { createHmac, timingSafeEqual } from 'crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AuthError, StateError } from '../../config/errors';
import { CacheStore } from '../../cache/store';
import { entryImages } from '../../cache/entry-images';
import { teamCacheKey } from '../../service/local-service';
import { teamById } from '../../service/teams';
import { hashKey } from '../../service/api-keys';
import type { TokenClaims } from '../../service/tokens';
import { AgentClient } from '../../sandbox/agent-client';
import type { App, ServerContext } from '../app';
import { commandRuns, evidenceDir, evidenceFile, listRuns, runCommands, runResults, scenarioHistory } from '../runs';
import { reapedCount, recentSessions } from '../../service/session-log';
import * as S from '../schemas';
import { analyticsView } from './analytics';
import { analyticsPage, cachePage, flakyPage, healthPage, loginPage, PageContext, runPage, runsPage, sandboxesPage } from './pages';
import { CONSOLE_CSS } from './style';
import { liveView } from './live-view';

const COOKIE = 'glance_console';
const LoginBody = Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 200 }) });
const CsrfBody = Type.Object({ csrf: Type.String({ maxLength: 100 }) });
const EntryParams = Type.Object({ id: S.RowId });
const ImageParams = Type.Object({ id: S.RowId, image: Type.Union([Type.Literal('crop.png'), Type.Literal('screen.png')]) });

/**
 * The team console: server-rendered pages (no build step, no client
 * framework, nothing from a CDN) that a team lead opens in a browser. Log-in
 * exchanges an API key for an HttpOnly, SameSite=Strict session cookie; every
 * form that changes something carries a token bound to that session, and its
 * Origin must be this server.
 */
export function consoleRoutes(context: ServerContext): FastifyPluginAsync {
  const { service, stateDir } = context;

  const tokenOf = (request: { headers: { cookie?: string } }): string | null => {
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === COOKIE) return value.join('=');
    }
    return null;
  };
  const csrfFor = (token: string) => createHmac('sha256', token).update('glance-console-form').digest('base64url').slice(0, 32);

  /** The signed-in team, or null (the page then sends the browser to log in). */
  const signedIn = (request: { headers: { cookie?: string } }): { claims: TokenClaims; page: PageContext } | null => {
    const token = tokenOf(request);
    if (!token) return null;
    try {
      const claims = service.check(token);
      const team = service.withStore((db) => teamById(db, claims.team));
      return { claims, page: { team: team?.name ?? String(claims.team), csrf: csrfFor(token) } };
    } catch {
      return null;
    }
  };

  /** A form sent from another site's page is refused (the browser names the page's origin). */
  const checkOrigin = (request: FastifyRequest): void => {
    const origin = request.headers.origin;
    if (origin && origin !== `${request.protocol}://${request.headers.host}`) throw new AuthError(`A form of the console was sent from another site (${origin}); refused.`);
  };

  /** A form that changes state: from this console's own page, in this session. */
  const checkForm = (request: FastifyRequest, csrf: string): TokenClaims => {
    const token = tokenOf(request);
    checkOrigin(request);
    const expected = token ? Buffer.from(csrfFor(token)) : null;
    const given = Buffer.from(csrf);
    if (!token || !expected || expected.length !== given.length || !timingSafeEqual(expected, given)) throw new AuthError('The form is not from this console session (stale or forged); reload the page and try again.');
    return service.check(token);
  };

  const page = (render: (claims: TokenClaims, page: PageContext, request: FastifyRequest) => string | Promise<string>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const who = signedIn(request);
      if (!who) return reply.redirect('/', 303);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(await render(who.claims, who.page, request));
    };

  return async (app: App) => {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    app.addHook('onSend', async (_request, reply) => {
      reply.header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'self'; img-src 'self' data:; media-src 'self'; style-src 'self'; frame-ancestors 'none'; form-action 'self'");
    });

    const home = async (request: FastifyRequest, reply: FastifyReply) => (signedIn(request)
      ? reply.redirect('/console/runs', 303)
      : reply.type('text/html; charset=utf-8').send(loginPage(null)));
    app.get('/', home);
    app.get('/console', home);
    liveView(app, context, (cookie) => signedIn({ headers: { cookie } })?.claims ?? null);
    app.get('/console/style.css', async (_request, reply) => reply.type('text/css').header('cache-control', 'max-age=300').send(CONSOLE_CSS));

    app.post('/console/login', { schema: { body: LoginBody } }, async (request, reply) => {
      checkOrigin(request);
      const { apiKey } = request.body as { apiKey: string };
      const sources = [`ip:${request.ip}`, `key:${hashKey(apiKey)}`];
      const wait = context.limiter.waitSeconds(sources);
      if (wait) return reply.code(429).type('text/html; charset=utf-8').send(loginPage(`Too many failed log-ins; try again in ${wait} s.`));
      try {
        const { token } = await service.auth(apiKey);
        const secure = request.protocol === 'https' ? '; Secure' : '';
        reply.header('set-cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/${secure}`);
        return reply.redirect('/console/runs', 303);
      } catch (error) {
        if (!(error instanceof AuthError)) throw error;
        context.limiter.fail(sources);
        return reply.code(401).type('text/html; charset=utf-8').send(loginPage('That API key is not valid for this server (unknown or revoked).'));
      }
    });

    app.post('/console/logout', { schema: { body: CsrfBody } }, async (request, reply) => {
      checkForm(request, (request.body as { csrf: string }).csrf);
      reply.header('set-cookie', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
      return reply.redirect('/', 303);
    });

    app.get('/console/runs', page((claims, ctx) => service.withStore((db) => runsPage(ctx, listRuns(db, claims.team), commandRuns(db, claims.team)))));
    app.get('/console/runs/:run', { schema: { params: S.RunParams } }, page((claims, ctx, request) => {
      const { run } = request.params as { run: string };
      return service.withStore((db) => runPage(ctx, run, runResults(db, claims.team, run), runCommands(db, claims.team, run)));
    }));
    app.get('/console/flaky', page((claims, ctx) => flakyPage(ctx, service.withStore((db) => scenarioHistory(db, claims.team)))));
    app.get('/console/sandboxes', page((claims, ctx) => {
      const team = service.withStore((db) => teamById(db, claims.team));
      return sandboxesPage(ctx, service.runningSandboxes(claims.team), team?.sandboxLimit ?? null, service.queue.depth(claims.team), service.withStore((db) => recentSessions(db, claims.team)));
    }));
    app.get('/console/analytics', page((claims, ctx) => analyticsPage(ctx, service.withStore((db) => analyticsView(db, claims.team)))));
    app.get('/console/health', page(async (claims, ctx) => {
      const team = service.withStore((db) => teamById(db, claims.team));
      const running = service.runningSandboxes(claims.team);
      const agents = await Promise.all(running.filter((r) => r.provider === 'ip').map(async (r) => ({ sandboxId: r.sandboxId, address: '', lastSeen: await lastAnswer(service.agentEndpoint(r.sandboxId)) })));
      return healthPage(ctx, {
        teams: [{ name: team?.name ?? String(claims.team), limit: team?.sandboxLimit ?? null, running: running.length, queued: service.queue.depth(claims.team) }],
        reapedSessions: service.withStore((db) => reapedCount(db, claims.team)),
        agents,
        storage: [
          { label: 'evidence files', bytes: folderBytes(evidenceDir(stateDir, claims.team)) },
          { label: 'not-found screenshots', bytes: folderBytes(service.screenshotsDir(claims.team)) },
          { label: 'state database', bytes: folderBytes(stateDir, /^glance\.db/) },
        ],
      });
    }));

    app.get('/console/cache', page((claims, ctx) => {
      const prefix = teamCacheKey(claims.team, '');
      const { rows, bytes } = service.withStore((db) => ({
        rows: new CacheStore(db).listUnder(prefix),
        bytes: (db.prepare('SELECT COALESCE(SUM(length(crop)), 0) AS b FROM cache_entries WHERE substr(cache_key, 1, ?) = ?').get(prefix.length, prefix) as { b: number }).b,
      }));
      return cachePage(ctx, rows.map((r) => ({
        id: r.id, description: r.description, key: r.cache_key.slice(prefix.length), resolution: r.resolution, hits: r.hits,
        lastUsed: new Date(r.last_used_at).toISOString(), engine: r.engine,
      })), bytes);
    }));
    app.get('/console/cache/:id/:image', { schema: { params: ImageParams } }, async (request, reply) => {
      const who = signedIn(request);
      if (!who) throw new AuthError('Log in to the console first.');
      const { id, image } = request.params as { id: string; image: string };
      const row = teamEntry(who.claims, Number(id));
      const images = await service.withStore((db) => entryImages(new CacheStore(db), row));
      const png = image === 'crop.png' ? images.crop : images.screen;
      if (!png) throw new StateError(`Cache entry ${id} has no stored screen.`);
      return reply.type('image/png').header('cache-control', 'private, max-age=60').send(png);
    });
    app.post('/console/cache/:id/delete', { schema: { params: EntryParams, body: CsrfBody } }, async (request, reply) => {
      const claims = checkForm(request, (request.body as { csrf: string }).csrf);
      const id = Number((request.params as { id: string }).id);
      teamEntry(claims, id);
      const { cropPath } = service.withStore((db) => new CacheStore(db).delete(id));
      if (cropPath) fs.rmSync(cropPath, { force: true });
      return reply.redirect('/console/cache', 303);
    });

    app.get('/console/evidence/:id', { schema: { params: S.ResultParams } }, async (request, reply) => {
      const who = signedIn(request);
      if (!who) throw new AuthError('Log in to the console first.');
      const found = service.withStore((db) => evidenceFile(db, stateDir, who.claims.team, Number((request.params as { id: string }).id)));
      if (!found || !fs.existsSync(found.file)) throw new StateError('No such evidence file of your team.');
      return reply.type(found.contentType).header('cache-control', 'private, max-age=3600').send(fs.createReadStream(found.file));
    });
  };

  /** A cache entry of the team, or the error any other entry gets. */
  function teamEntry(claims: TokenClaims, id: number) {
    const row = service.withStore((db) => new CacheStore(db).get(id));
    if (!row || !row.cache_key.startsWith(teamCacheKey(claims.team, ''))) throw new StateError(`No cache entry ${id} of your team.`);
    return row;
  }
}

/** When an agent of your own last answered: now, or null when it does not. */
async function lastAnswer(endpoint: ReturnType<ServerContext['service']['agentEndpoint']>): Promise<string | null> {
  if (!endpoint) return null;
  const agent = new AgentClient(endpoint);
  try {
    await agent.call('GET', '/health', undefined, 1_000);
    return new Date().toISOString();
  } catch {
    return null;
  } finally {
    agent.close();
  }
}

function folderBytes(dir: string, only?: RegExp): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (only && !only.test(entry.name)) continue;
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(full) : fs.statSync(full).size;
  }
  return total;
}
