/**
 * The application factory: builds the Fastify app every process and every HTTP test uses. It never
 * listens, reads the environment or starts anything; `src/main/serve.ts` does that.
 */
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors.ts';
import type { DB } from '../store/schema.ts';
import { cachedProviderIds, facetSnapshot, type AppContext } from './context.ts';
import { errorHandler, sendApiError } from './errors.ts';
import { requireApiKey } from './plugins/auth.ts';
import { parseQueryString } from './query-string.ts';
import { UNMETERED, type RecordMeter } from './record-meter.ts';
import { keyedJobRoutes, keylessJobRoutes } from './routes/jobs.ts';
import { keyedMetaRoutes, keylessMetaRoutes } from './routes/meta.ts';
import { systemRoutes } from './routes/system.ts';

export interface AppOptions {
  db: Kysely<DB>;
  log: Logger;
  docsUrl: string;
  cursorSecret: string;
  /** `info.version` of the OpenAPI contract: a date (spec: Versioning). */
  contractVersion?: string;
}

/** Contract date: the day this API surface last changed (spec: Versioning, "info.version is a date"). */
export const CONTRACT_VERSION = '2026-11-22';

/** Request log lines carry the path and parameter names only: values could hold secrets. */
function requestSerializer(request: { method: string; url: string; ip?: string }) {
  const [path, query] = request.url.split('?');
  return {
    method: request.method,
    path,
    params: query ? [...new URLSearchParams(query).keys()] : undefined,
    ip: request.ip,
  };
}

/** Build the app with every route registered. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.log.child({ component: 'http' }, { serializers: { req: requestSerializer } }) as FastifyBaseLogger,
    routerOptions: { querystringParser: parseQueryString, caseSensitive: true, ignoreTrailingSlash: true },
    // Keyed requests need the real client address only for the keyless limit; proxies are a deployment
    // choice handled where that limit is enforced.
    trustProxy: false,
  });

  const ctx: AppContext = {
    db: options.db,
    log: options.log,
    docsUrl: options.docsUrl,
    cursorSecret: options.cursorSecret,
    providerIds: cachedProviderIds(options.db),
    facets: facetSnapshot(options.db, options.log),
  };

  app.decorateRequest('apiKey', null);
  app.decorateRequest('recordMeter', null as unknown as RecordMeter);
  // Every request starts unmetered; the keyed surface's access layer replaces the meter after auth.
  app.addHook('onRequest', async (request) => {
    request.recordMeter = UNMETERED;
  });
  app.setErrorHandler(errorHandler(options.docsUrl));
  app.setNotFoundHandler((request, reply) =>
    sendApiError(reply, options.docsUrl, new ApiError('not_found', `No endpoint answers ${request.method} ${request.url.split('?')[0]}.`)),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'jobledger',
        description: 'Employer-direct job vacancies with per-field provenance. Keyed surface under /v1, keyless read-only mirror under /public.',
        version: options.contractVersion ?? CONTRACT_VERSION,
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY> (also bearer/BEARER, or the bare key).' } } },
      tags: [
        { name: 'jobs', description: 'Keyed job listings' },
        { name: 'public', description: 'Keyless read-only mirror' },
        { name: 'meta', description: 'Controlled vocabularies and providers with live counts' },
        { name: 'system', description: 'Liveness and contract' },
      ],
    },
  });

  // Cross-origin access is open on the keyless surface only (spec: Keyless endpoints).
  await app.register(cors, {
    delegator: (request, callback) => {
      const open = (request.url ?? '').startsWith('/public/');
      callback(null, { origin: open ? '*' : false, methods: ['GET', 'HEAD', 'OPTIONS'] });
    },
  });

  await app.register(systemRoutes());
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', requireApiKey(ctx));
      await v1.register(keyedJobRoutes(ctx));
      await v1.register(keyedMetaRoutes(ctx));
    },
    { prefix: '/v1' },
  );
  await app.register(keylessJobRoutes(ctx), { prefix: '/public' });
  await app.register(keylessMetaRoutes(ctx), { prefix: '/public' });

  return app;
}
