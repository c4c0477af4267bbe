import type { FastifyPluginAsync } from 'fastify';
import { SandboxError } from '../config/errors';
import { HttpClient } from '../sandbox/http-client';
import type { AgentEndpoint } from '../sandbox/agent-client';
import type { App, ServerContext } from './app';
import * as S from './schemas';

/** The agent's own body limit: its requests are small JSON. */
const AGENT_BODY_LIMIT = 1024 * 1024;
/** The longest an agent call may take through the server (a program's launch, a long exec). */
const AGENT_CALL_LIMIT_MS = 10 * 60 * 1000;
/** Headers of the agent's answer that the client reads: the type, the frame size. */
const PASSED_HEADERS = /^(content-type|x-[\w-]+)$/i;

/**
 * Each sandbox's agent, reached through the server at
 * `/v1/sandboxes/ID/agent/...`: the client needs no route to the sandbox,
 * and the server checks the team on every call. The token is one the server
 * issued for that sandbox; the agent's own token never leaves the server.
 * Frames written to shared memory are refused: through the server, they
 * travel as binary bodies.
 */
export function agentProxy(context: ServerContext): FastifyPluginAsync {
  const clients = new Map<string, HttpClient>();
  const clientFor = (endpoint: AgentEndpoint) => {
    const key = `${endpoint.host}:${endpoint.port}:${endpoint.token}`;
    let client = clients.get(key);
    if (!client) clients.set(key, (client = new HttpClient(endpoint, 8)));
    return client;
  };

  return async (app: App) => {
    app.addHook('onClose', async () => {
      for (const client of clients.values()) client.close();
    });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: AGENT_BODY_LIMIT }, (_request, body, done) => done(null, body));

    app.route({
      method: ['GET', 'POST'],
      url: '/v1/sandboxes/:id/agent/*',
      schema: { params: S.AgentParams },
      handler: async (request, reply) => {
        const { id, '*': rest } = request.params as { id: string; '*': string };
        const claims = context.service.checkSandboxToken(context.bearer(request), id);
        if (!context.service.owns(claims.team, id)) throw new SandboxError(`No sandbox with id '${id}' is known to your team.`);
        const endpoint = context.service.agentEndpoint(id);
        if (!endpoint) throw new SandboxError(`Sandbox '${id}' is not running (it stopped, or its lease ran out). Connect again for a new one.`);
        const path = `/${rest}`;
        if (path.startsWith('/screen/shared')) throw new SandboxError('Frames in shared memory are for a client on the sandbox\'s own machine; through the team server, ask GET /screen.');
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        const abort = new AbortController();
        // A client that hangs up (a long-polled wait it gave up on) ends the call to the agent too.
        reply.raw.once('close', () => { if (!reply.raw.writableEnded) abort.abort(); });
        const body = request.body as Buffer | undefined;
        const answer = await clientFor(endpoint).send(request.method, `${path}${query}`, body?.length ? body : undefined, AGENT_CALL_LIMIT_MS, abort.signal);
        for (const [name, value] of Object.entries(answer.headers)) if (PASSED_HEADERS.test(name) && value !== undefined) reply.header(name, value);
        return reply.code(answer.status).send(answer.data);
      },
    });
  };
}
