import fs from 'fs';
import type { FastifyPluginAsync } from 'fastify';
import { InvalidOptionError, StateError } from '../config/errors';
import type { App, ServerContext } from './app';
import { addEvidence, EVIDENCE_CONTENT_TYPES, evidenceFile, listRuns, ownsResult, recordResult, runResults } from './runs';
import * as S from './schemas';

/** The largest evidence file accepted: a scenario's dashcam clip. */
const EVIDENCE_LIMIT = 200 * 1024 * 1024;
const answers = <T>(ok: T) => ({ 200: ok, '4xx': S.ErrorBody, '5xx': S.ErrorBody });

/**
 * Runs reported by the Cucumber hooks of clients with apiRoot: each scenario
 * attempt, then its evidence files as binary bodies (the console cannot read
 * another machine's disk). Every route is the caller's team's only.
 */
export function runRoutes(context: ServerContext): FastifyPluginAsync {
  return async (app: App) => {
    app.addContentTypeParser(EVIDENCE_CONTENT_TYPES, { parseAs: 'buffer', bodyLimit: EVIDENCE_LIMIT }, (_request, body, done) => done(null, body));

    app.post('/v1/runs/:run/results', { schema: { params: S.RunParams, body: S.ScenarioReport, response: answers(S.Created) } }, async (request) => {
      const { team } = context.claims(request);
      return { id: context.service.withStore((db) => recordResult(db, team, { ...request.body, runId: request.params.run })) };
    });

    app.post('/v1/results/:id/evidence', { schema: { params: S.ResultParams, querystring: S.EvidenceQuery, response: answers(S.Created) } }, async (request) => {
      const { team } = context.claims(request);
      const type = String(request.headers['content-type'] ?? '');
      const body = request.body;
      if (!Buffer.isBuffer(body) || !body.length) throw new InvalidOptionError('body', `Evidence is sent as the file's bytes, with its type (${EVIDENCE_CONTENT_TYPES.join(', ')}); got ${type || 'no type'}.`);
      return {
        id: context.service.withStore((db) => {
          const resultId = Number(request.params.id);
          if (!ownsResult(db, team, resultId)) throw new StateError(`No result ${resultId} of your team.`);
          return addEvidence(db, context.stateDir, team, resultId, request.query.kind, type, body);
        }),
      };
    });

    app.get('/v1/runs', { schema: { response: answers(S.RunSummaries) } }, async (request) => {
      const { team } = context.claims(request);
      return context.service.withStore((db) => listRuns(db, team));
    });

    app.get('/v1/runs/:run', { schema: { params: S.RunParams, response: answers(S.RunResults) } }, async (request) => {
      const { team } = context.claims(request);
      return context.service.withStore((db) => runResults(db, team, request.params.run));
    });

    app.get('/v1/evidence/:id', { schema: { params: S.ResultParams } }, async (request, reply) => {
      const { team } = context.claims(request);
      const found = context.service.withStore((db) => evidenceFile(db, context.stateDir, team, Number(request.params.id)));
      if (!found || !fs.existsSync(found.file)) throw new StateError(`No evidence file ${request.params.id} of your team.`);
      return reply.type(found.contentType).send(fs.createReadStream(found.file));
    });
  };
}
