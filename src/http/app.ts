/**
 * The application factory: builds the Fastify app every process and every HTTP test uses. It never
 * listens, reads the environment or starts anything; `src/main/serve.ts` does that.
 */
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CounterStore } from '../access/counters.ts';
import { KeylessLimiter } from '../access/keyless-limit.ts';
import { systemClock, type Clock } from '../access/periods.ts';
import { RecordBlocks, type RecordBlockSettings } from '../access/record-blocks.ts';
import { RequestLimiter } from '../access/request-limits.ts';
import { ApiError } from '../domain/errors.ts';
import { Billing } from '../billing/billing.ts';
import type { DB } from '../store/schema.ts';
import { cachedProviderIds, facetSnapshot, type AppContext } from './context.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, MAX_HEADER_BYTES, MAX_PARAM_LENGTH, sendApiError } from './errors.ts';
import { installCompression } from './compression.ts';
import { documentConditionalRequests, installConditionalRequests } from './conditional.ts';
import { frontCachedServer, KeylessFrontCache } from './keyless-front-cache.ts';
import type { KeylessPageCache } from './keyless-page-cache.ts';
import { documentBudgetHeaders } from './openapi-headers.ts';
import { namedSchemaComponents, referenceNamedResponses } from './openapi-components.ts';
import { documentOpenEnums } from './openapi-open-enums.ts';
import { documentExamples, documentOptionalParameterExamples } from './openapi-examples.ts';
import { requireApiKey } from './plugins/auth.ts';
import { KeyCache } from '../access/key-cache.ts';
import type { KeyChangeSignal } from '../store/key-changes.ts';
import { installKeyedAccess } from './plugins/keyed-access.ts';
import { installKeylessAccess } from './plugins/keyless-access.ts';
import { parseQueryString } from './query-string.ts';
import { DID_YOU_MEAN_HEADER, IGNORED_PARAMS_HEADER, installIgnoredParams } from './plugins/ignored-params.ts';
import { documentCommaLists, storablePathValue, type ParamTable, type QueryContract } from './query-table.ts';
import { UNMETERED, type RecordMeter } from './record-meter.ts';
import { createReportReader, defaultReportSettings, type ReportSettings } from '../reports/snapshots.ts';
import { keyedCompanyRoutes, keylessCompanyRoutes } from './routes/companies.ts';
import { checkoutRoutes, checkoutStartRoute, checkoutWebhookRoute, type CheckoutReturnUrls, type SignedInAccount } from './routes/checkout.ts';
import { exportRoutes } from './routes/export.ts';
import { keyedJobRoutes, keylessJobRoutes } from './routes/jobs.ts';
import { meRoutes } from './routes/me.ts';
import { planRoutes } from './routes/plans.ts';
import { installRequestObservability, requestId } from './plugins/metrics.ts';
import { keyedReportRoutes, keylessReportRoutes } from './routes/reports.ts';
import { syncRoutes } from './routes/sync.ts';
import { keyedMetaRoutes, keylessMetaRoutes } from './routes/meta.ts';
import { systemRoutes } from './routes/system.ts';
import { inContract, sitePlugin, type SiteOptions } from '../site/site.ts';
import { mcpRoutes } from '../mcp/http-route.ts';

export interface AppOptions {
  /** The primary: keys, meters, the feeds, the export and every write. */
  db: Kysely<DB>;
  /**
   * Where listings, companies, facets and reports are read: a streaming replica
   * (DATABASE_REPLICA_URL, docs/deploy.md "Read replica"). Default: `db`.
   */
  reader?: Kysely<DB>;
  /**
   * The reader's database in sessions with one generic plan per named statement
   * (store/database.ts Database.genericReader): cursor pages of listings without filters and single-job
   * lookups run there.
   * Default: `reader` (every statement planned with its values).
   */
  genericReader?: Kysely<DB>;
  log: Logger;
  docsUrl: string;
  cursorSecret: string;
  /** `info.version` of the OpenAPI contract: a date (spec: Versioning). */
  contractVersion?: string;
  /** Where request counters live (Redis, PostgreSQL or this process); default: this process. */
  requestCounters?: CounterStore;
  /** Clock of the meters; tests move it across day and month edges. Default: the system clock. */
  clock?: Clock;
  /**
   * Reverse-proxy hops whose X-Forwarded-For is trusted for the client address (keyless limit).
   * 0 (default): the socket address, so a forged X-Forwarded-For changes nothing.
   */
  trustProxyHops?: number;
  /** Keyless requests per 5 seconds and client address (default 10, about 2 per second); 0: no limit. */
  keylessBurst?: number;
  /**
   * `/public/jobs` answers kept as bytes per normalized query (keyless-page-cache.ts, issue 22);
   * `serve` and the bench pass one. Absent (tests' default): every request reads the ledger.
   */
  keylessPageCache?: KeylessPageCache;
  /**
   * Answer repeated `GET /public/jobs` requests from the responses stored ahead of the router
   * (keyless-front-cache.ts, issue 22); needs `keylessPageCache`. Only what the app's own HTTP server
   * receives is answered so (`inject` always goes through the router). `serve` turns it on unless
   * OpenTelemetry tracing is on; default off.
   */
  keylessFrontCache?: boolean;
  /** Report snapshot settings (FX rates, refresh interval); defaults to the bundled rates and 900 s. */
  reports?: ReportSettings;
  /**
   * Request limits, record meter and budget headers on /v1 (default true). Only the benchmark turns
   * them off, to measure what metering costs per request (bench/README.md); no setting exposes it,
   * and without it /v1/me cannot answer.
   */
  keyedLimits?: boolean;
  /**
   * Blocks of records each process takes from the durable record meter (access/record-blocks.ts,
   * issue 22); default DEFAULT_RECORD_BLOCKS. `serve` passes the JOBLEDGER_RECORD_BLOCK settings.
   */
  recordBlocks?: RecordBlockSettings;
  /** The billing service (src/billing); default: one with no payment provider, which sells nothing. */
  billing?: Billing;
  /** The session check for POST /public/checkout without a website (tests); with `site`, the site's own is used. Default: 401 `session_required`. */
  signedInAccount?: SignedInAccount;
  /** Where the payment provider returns the buyer (routes/checkout.ts); default: /account on the request's origin. */
  checkoutReturnUrls?: CheckoutReturnUrls;
  /** The website (pages at `/`, forms under `/public/...`, docs/website.md); absent: no website. */
  site?: SiteOptions;
  /**
   * The key-change signal (store/key-changes.ts `listenForKeyChanges`); with it, keyed requests read
   * their key through a per-process cache of at most a second (access/key-cache.ts). Absent: every
   * keyed request reads its key from the database.
   */
  keyChanges?: KeyChangeSignal;
  /**
   * The service's public base URL (`JOBLEDGER_SITE_URL`), the OpenAPI document's `servers` entry, so a
   * client generated from the document, or the /docs page's try-it, knows where to call. Absent: `/`,
   * the origin the document was fetched from.
   */
  publicUrl?: string;
}

/** One registered route: method and URL pattern (`:param` syntax), and its query contract if it has one. */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** The table its query is documented and parsed from (`route.ts serveRoute`); none: it reads no query. */
  query?: QueryContract<ParamTable<never>, never, unknown>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on the app, HEAD and OPTIONS included. */
    registeredRoutes: readonly RegisteredRoute[];
  }
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

/**
 * Fastify's trust function for `hops` trusted proxies: addresses are walked from the socket outwards,
 * and the first `hops` of them are proxies (proxy-addr's "hop count" rule). 0: trust nothing.
 */
function trustedHops(hops: number): false | ((address: string, hop: number) => boolean) {
  return hops > 0 ? (_address, hop) => hop < hops : false;
}

/** A path as a 404 or 405 message may show it: quoted, and cut to 200 characters. */
function quotedPath(path: string): string {
  return JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
}

/**
 * Fastify's request logging with one line per request (issue 22): nothing when the request arrives,
 * and the request (path and parameter names, `requestSerializer`) on the line of its outcome.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Build the app with every route registered. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  // Every refusal below the routes answers in the error catalogue too (docs/errors.md): what Node.js's
  // parser refuses (clientError), what the router refuses (frameworkErrors), a missing Host.
  // Set below once the limiter exists; the server's listener asks it first (keyless-front-cache.ts).
  let front: KeylessFrontCache | undefined;
  // The client address matters for the keyless limit only. Behind N proxies, the Nth address from the
  // right of X-Forwarded-For is the client; with no trusted hop the socket address is.
  const trustProxy = trustedHops(options.trustProxyHops ?? 0);
  const app = Fastify({
    loggerInstance: options.log.child({ component: 'http' }, { serializers: { req: requestSerializer } }) as FastifyBaseLogger,
    // One access line per request, not Fastify's two (AccessLog).
    logController: new AccessLog(),
    routerOptions: { querystringParser: parseQueryString, caseSensitive: true, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Node.js would answer a missing Host with a bare 400 of its own; the hook below answers instead.
    http: { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false },
    clientErrorHandler: clientErrorHandler(options.docsUrl),
    frameworkErrors: frameworkErrorHandler(options.docsUrl),
    trustProxy,
    requestIdHeader: false,
    genReqId: requestId,
    ...(options.keylessPageCache && options.keylessFrontCache ? { serverFactory: frontCachedServer(() => front) } : {}),
  });
  installRequestObservability(app);
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is refused with 400. First hook of all.
  app.addHook('onRequest', async (request, reply) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return sendApiError(reply, options.docsUrl, new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.'));
    }
  });

  const reader = options.reader ?? options.db;
  const ctx: AppContext = {
    db: options.db,
    reader,
    genericReader: options.genericReader ?? reader,
    log: options.log,
    docsUrl: options.docsUrl,
    cursorSecret: options.cursorSecret,
    providerIds: cachedProviderIds(reader),
    reports: createReportReader(options.db, options.reports ?? defaultReportSettings(), reader),
    facets: facetSnapshot(options.db, reader, options.log),
    keyCache: options.keyChanges ? new KeyCache(options.keyChanges) : undefined,
    keylessPageCache: options.keylessPageCache,
  };
  const contractVersion = options.contractVersion ?? CONTRACT_VERSION;

  // Every route as registered, for the contract check (each one must be in the OpenAPI document).
  const registeredRoutes: RegisteredRoute[] = [];
  // The website's pages and forms are no part of the data API's contract (spec: "Website routes ... not
  // part of the data API"): they are registered while this is set, and left out, except billing's
  // checkout, which is in the document whether or not the website is mounted (site.ts inContract).
  let registeringWebsite = false;
  // "METHOD /path/{param}" of the routes the keyless limit skips: their documented responses carry no
  // keyless RateLimit fields (openapi-headers.ts).
  const keylessLimitExempt = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (registeringWebsite && !inContract(route)) return;
    const config = route.config as { query?: RegisteredRoute['query']; keylessLimit?: boolean } | undefined;
    const query = config?.query;
    for (const method of [route.method].flat()) {
      registeredRoutes.push({ method: String(method), url: route.url, ...(query ? { query } : {}) });
      if (config?.keylessLimit === false) keylessLimitExempt.add(`${String(method)} ${route.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    }
  });
  app.decorate('registeredRoutes', registeredRoutes);

  app.decorateRequest('apiKey', null);
  app.decorateRequest('recordMeter', null as unknown as RecordMeter);
  // Every request starts unmetered; the keyed surface's access layer replaces the meter after auth.
  app.addHook('onRequest', async (request) => {
    request.recordMeter = UNMETERED;
  });
  app.setErrorHandler(errorHandler(options.docsUrl));
  // Path ids and slugs reach SQL like query values: a NUL character is refused before any handler.
  app.addHook('preValidation', async (request) => {
    for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string') storablePathValue(name === 'id' ? 'id' : name, value);
    }
  });
  const clock = options.clock ?? systemClock;
  const counters: CounterStore = options.requestCounters ?? { kind: 'memory' };
  const requestLimiter = new RequestLimiter(counters, clock);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // The path exists but only for reading: 405 with Allow, not a 404 that says the path is unknown.
    if (request.method !== 'GET' && request.method !== 'HEAD' && app.findRoute({ method: 'GET', url: path })) {
      return sendApiError(reply, options.docsUrl, new ApiError('method_not_allowed', `${quotedPath(path)} answers GET and HEAD only, not ${request.method}.`, { headers: { Allow: 'GET, HEAD' } }));
    }
    // A POST-only path (/mcp): 405 with Allow, which also tells an MCP client there is no GET stream.
    if (request.method !== 'POST' && app.findRoute({ method: 'POST', url: path })) {
      return sendApiError(reply, options.docsUrl, new ApiError('method_not_allowed', `${quotedPath(path)} answers POST only, not ${request.method}.`, { headers: { Allow: 'POST' } }));
    }
    return sendApiError(reply, options.docsUrl, new ApiError('not_found', `No endpoint answers ${request.method} ${quotedPath(path)}.`));
  });

  await app.register(swagger, {
    transform: referenceNamedResponses,
    transformObject: (document) =>
      'openapiObject' in document
        ? documentOptionalParameterExamples(documentExamples(documentOpenEnums(documentCommaLists(documentBudgetHeaders(documentConditionalRequests(document.openapiObject), keylessLimitExempt)))))
        : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'jobledger',
        description: 'Employer-direct job vacancies with per-field provenance. Keyed surface under /v1, keyless read-only mirror under /public.',
        version: contractVersion,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [options.publicUrl ? { url: options.publicUrl.replace(/\/+$/, ''), description: 'This service (JOBLEDGER_SITE_URL)' } : { url: '/', description: 'This server' }],
      components: {
        // A getter: the plugin reads it at each rendering (JSON and YAML are rendered apart) and rewrites
        // what it gets in place, so each rendering needs its own copies (openapi-components.ts).
        get schemas() {
          return namedSchemaComponents();
        },
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY> (also bearer/BEARER, or the bare key).' } },
      },
      tags: [
        { name: 'jobs', description: 'Keyed job listings' },
        { name: 'account', description: 'The calling key' },
        { name: 'companies', description: 'Keyed employer directory' },
        { name: 'export', description: 'Keyed bulk export (bulk_export entitlement)' },
        { name: 'sync', description: 'Staying in sync: change feed, closure feed, closed rows' },
        { name: 'public', description: 'Keyless read-only mirror' },
        { name: 'meta', description: 'Reports, controlled vocabularies and providers with live counts' },
        { name: 'system', description: 'Liveness, readiness and the contract' },
        { name: 'website', description: 'Website routes (POST, not part of the data API): checkout and its webhook' },
        { name: 'mcp', description: 'Model Context Protocol server for AI agents (docs/mcp.md)' },
      ],
    },
    // Shared schemas keep their $id as their component name (Job, Company, FieldSources...).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });

  // Cross-origin access is open on the keyless surface only (spec: Keyless endpoints). An OPTIONS
  // request without Origin and Access-Control-Request-Method is no CORS preflight (Fetch standard):
  // CORS stays off for it and it gets the 405 any other method gets, in the catalogue's shape, where
  // the plugin's strict mode would answer a text/plain 400.
  await app.register(cors, {
    delegator: (request, callback) => {
      const preflight = request.method !== 'OPTIONS' || (request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined);
      const open = (request.url ?? '').startsWith('/public/') && preflight;
      // Browsers may read Retry-After of a keyless 429 (not a CORS-safelisted header).
      callback(null, { origin: open ? '*' : false, methods: ['GET', 'HEAD', 'OPTIONS'], exposedHeaders: open ? ['Retry-After', 'ETag', 'RateLimit', 'RateLimit-Policy', IGNORED_PARAMS_HEADER, DID_YOU_MEAN_HEADER] : undefined });
    },
  });
  // Keyless limit and Cache-Control apply by path, to every /public route whoever registers it. After
  // CORS, so a 429 still carries Access-Control-Allow-Origin and a browser can read it.
  // Unknown query names are named in X-Ignored-Params (issue 19), on every data API response.
  installIgnoredParams(app);
  const keylessLimiter = new KeylessLimiter(counters.kind === 'redis' ? counters : { kind: 'memory' }, options.keylessBurst);
  installKeylessAccess(app, keylessLimiter);
  // ETag and 304 on the keyless routes, reports, contract and empty feed pages (issue 19): after the
  // keyless hooks, so a 304 keeps the Cache-Control of its 200.
  installConditionalRequests(app);
  // br/gzip/deflate by Accept-Encoding (compression.ts): after the ETag hook, which tags the
  // uncompressed bytes, and before every route, which the plugin hooks as it is added.
  await installCompression(app);
  // After compression: it stores `/public/jobs` answers as they went out, coded or not.
  if (options.keylessPageCache && options.keylessFrontCache) {
    front = new KeylessFrontCache({ pages: options.keylessPageCache, limiter: keylessLimiter, trustProxy });
    front.install(app);
  }

  await app.register(systemRoutes(ctx, contractVersion));
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', requireApiKey(ctx));
      // Request limits, record meter and budget headers for every /v1 endpoint (after authentication).
      if (options.keyedLimits !== false) {
        const recordBlocks = new RecordBlocks(options.db, options.log.child({ component: 'record-blocks' }), options.recordBlocks);
        recordBlocks.start();
        // Unspent block records go back to the durable meter before the app (and its pool) closes.
        app.addHook('onClose', async () => recordBlocks.close());
        installKeyedAccess(v1, { requests: requestLimiter, recordBlocks, clock, docsUrl: options.docsUrl });
      }
      await v1.register(keyedJobRoutes(ctx));
      await v1.register(meRoutes(clock));
      await v1.register(keyedCompanyRoutes(ctx));
      await v1.register(exportRoutes(ctx));
      await v1.register(keyedReportRoutes(ctx));
      await v1.register(syncRoutes(ctx));
      await v1.register(keyedMetaRoutes(ctx));
    },
    { prefix: '/v1' },
  );
  const billing = options.billing ?? new Billing({ db: options.db, log: options.log });
  await app.register(
    async (pub) => {
      await pub.register(keylessJobRoutes(ctx));
      await pub.register(planRoutes(ctx));
      await pub.register(keylessCompanyRoutes(ctx));
      await pub.register(keylessReportRoutes(ctx));
      await pub.register(keylessMetaRoutes(ctx));
      // With a website, POST /public/checkout lives in the site's scope (its session and CSRF check,
      // handed to the route below as `checkoutRoute`); the provider's webhook stays here either way.
      // The OpenAPI document lists both the same way in either case.
      const checkout = { billing, signedInAccount: options.signedInAccount, returnUrls: options.checkoutReturnUrls };
      await pub.register(options.site ? checkoutWebhookRoute(checkout) : checkoutRoutes(checkout));
    },
    { prefix: '/public' },
  );
  if (options.site) {
    registeringWebsite = true;
    await app.register(
      sitePlugin(options.site, {
        db: options.db,
        log: options.log,
        docsUrl: options.docsUrl,
        counters,
        requestLimiter,
        billing,
        checkoutRoute: (seam) => checkoutStartRoute({ billing, ...seam }),
      }),
    );
    registeringWebsite = false;
  }
  // The MCP server for AI agents (src/mcp/): its tools answer through the /v1 routes above.
  await app.register(mcpRoutes(ctx, app));

  return app;
}
