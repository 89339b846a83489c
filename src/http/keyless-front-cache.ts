/**
 * The keyless front cache (issue 22): a repeated `GET /public/jobs?…` is answered with the response
 * the router gave to the same request, ahead of the router, so a hit costs the per-address limit and
 * one socket write instead of Fastify's routing, query parsing and hook chain (a third of raw
 * `node:http`'s throughput on the same bytes before it; bench/README.md).
 *
 * What is stored: the status (200 only), every response field except the per-request ones
 * ({@link PER_REQUEST_FIELDS}), and the body exactly as it went out (identity or coded by
 * compression.ts), keyed by the request's target, `Host` and `Accept-Encoding`: the only inputs that
 * shape a `/public/jobs` answer, given the request qualifies ({@link frontCacheKey}).
 *
 * When it answers: only while the keyless page cache (keyless-page-cache.ts) would serve the stored
 * body's page without reading anything ({@link KeylessPageCache.isCurrent}: same change-feed
 * watermark, read less than a second ago, not expired). Every other request, and every request that
 * carries a field outside {@link NEUTRAL_FIELDS} (a conditional request, a cookie, a key), goes to the
 * router as before.
 *
 * What a hit still does, as the router would: the per-address limit (access/keyless-limit.ts) is taken
 * once, and a refused or stale request is handed to the router with its verdict
 * (plugins/keyless-access.ts `handOverVerdict`), which answers the 429 or the fresh page without
 * counting the request again; the `RateLimit` fields, `X-Request-Id` (a client's own, when well formed),
 * the request metrics and the one access log line are the router's.
 *
 * Not used with OpenTelemetry tracing on (a hit has no Fastify request to hang a span on): `serve`
 * turns it off then.
 */
import proxyAddr from '@fastify/proxy-addr';
import { createServer, type IncomingMessage, type ServerOptions, type Server, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions, RouteOptions } from 'fastify';
import type { KeylessLimiter, KeylessVerdict } from '../access/keyless-limit.ts';
import { httpDuration, httpRequests, keylessFrontCacheHits } from '../observability/metrics.ts';
import type { CachedPage, KeylessPageCache } from './keyless-page-cache.ts';
import { handOverVerdict } from './plugins/keyless-access.ts';
import { requestId } from './plugins/metrics.ts';
import { keylessRateLimitFields } from './rate-limit-fields.ts';

/** The route answered from the front cache. */
const ROUTE = '/public/jobs';

/**
 * Request fields that change nothing in a `/public/jobs` answer beyond what the front cache computes
 * per request (client address, request id) or keys on (`Host`, `Accept-Encoding`). A request with any
 * other field (`If-None-Match`, `Authorization`, `Cookie`, a body...) goes to the router. Fields whose
 * names start with `sec-` (a browser's fetch metadata and client hints) are neutral too.
 */
const NEUTRAL_FIELDS = new Set([
  'host',
  'accept-encoding',
  'accept',
  'accept-language',
  'user-agent',
  'connection',
  'origin',
  'referer',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-real-ip',
  'forwarded',
  'via',
  'cache-control',
  'pragma',
  'dnt',
  'priority',
  'upgrade-insecure-requests',
]);

/** Response fields set per request (or by Node.js per message): never stored, written afresh. */
const PER_REQUEST_FIELDS = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The front cache's key of a request, or undefined when the request does not qualify: `GET` over
 * HTTP/1.1, target `/public/jobs` or `/public/jobs?…` exactly as sent, a `Host`, and no field outside
 * {@link NEUTRAL_FIELDS}.
 */
export function frontCacheKey(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET' || req.httpVersion !== '1.1') return undefined;
  const url = req.url ?? '';
  if (url !== ROUTE && !url.startsWith(`${ROUTE}?`)) return undefined;
  const headers = req.headers;
  if (headers.host === undefined) return undefined;
  for (const name in headers) {
    if (!NEUTRAL_FIELDS.has(name) && !name.startsWith('sec-')) return undefined;
  }
  return `${headers.host}\n${headers['accept-encoding'] ?? ''}\n${url}`;
}

/** One stored response. */
interface StoredResponse {
  /**
   * Response fields without the per-request ones, lower-case names, as the flat name/value list
   * `writeHead` takes (copied per hit, where an object would be spread and walked).
   */
  fields: string[];
  /** The body as it went out (coded when the router coded it). */
  body: Buffer;
  /** The keyless page cache's entry the body was built from: its freshness is the stored response's. */
  page: CachedPage;
}

/** Settings of {@link KeylessFrontCache}. */
export interface KeylessFrontCacheOptions {
  /** The keyless page cache the `/public/jobs` route answers through. */
  pages: KeylessPageCache;
  /** The per-address limit, the same instance the router's keyless hook takes from. */
  limiter: KeylessLimiter;
  /** Fastify's `trustProxy` function (app.ts `trustedHops`), or false: the socket address is the client's. */
  trustProxy: false | ((address: string, hop: number) => boolean);
  /** Responses kept at most (default 1,000, as the page cache); the oldest stored is dropped first. */
  maxEntries?: number;
}

export class KeylessFrontCache {
  readonly #entries = new Map<string, StoredResponse>();
  readonly #pages: KeylessPageCache;
  readonly #limiter: KeylessLimiter;
  readonly #trustProxy: false | ((address: string, hop: number) => boolean);
  readonly #maxEntries: number;
  /** The app's logger (its `req` serializer is the router's), set by {@link KeylessFrontCache.install}. */
  #log: FastifyBaseLogger | undefined;
  /** Set once the app starts closing: every request goes to the router, which answers 503 then. */
  #closing = false;
  /** The request metrics' series of a hit, looked up once (the labels are the router's for it). */
  readonly #requests = httpRequests.labels({ route: ROUTE, method: 'GET', status: '200', plan: 'keyless' });
  readonly #duration = httpDuration.labels({ route: ROUTE, method: 'GET', plan: 'keyless' });

  constructor(options: KeylessFrontCacheOptions) {
    this.#pages = options.pages;
    this.#limiter = options.limiter;
    this.#trustProxy = options.trustProxy;
    this.#maxEntries = options.maxEntries ?? 1000;
  }

  /** Responses stored now (tests). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Store the `/public/jobs` route's answers (an `onSend` hook appended to that route after every other
   * one, compression's included, so the body is the one sent) and stop answering when the app closes.
   * Call after `installCompression` and before the routes are registered.
   */
  install(app: FastifyInstance): void {
    this.#log = app.log;
    app.addHook('onRoute', (route: RouteOptions) => {
      if (route.url !== ROUTE) return;
      const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        this.#store(request, reply, payload);
        return payload;
      };
      route.onSend = [route.onSend ?? []].flat().concat(store);
    });
    app.addHook('preClose', async () => {
      this.#closing = true;
    });
  }

  #store(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    if (this.#closing || reply.statusCode !== 200 || !Buffer.isBuffer(payload)) return;
    const page = this.#pages.pageServedTo(request.raw);
    const key = frontCacheKey(request.raw);
    if (page === undefined || key === undefined) return;
    const fields: string[] = [];
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value === undefined || PER_REQUEST_FIELDS.has(name)) continue;
      for (const one of [value].flat()) fields.push(name, String(one));
    }
    this.#entries.delete(key);
    this.#entries.set(key, { fields, body: payload, page });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** The client address as Fastify's `request.ip` gives it (the same trust rule). */
  #clientAddress(req: IncomingMessage): string | undefined {
    if (this.#trustProxy === false) return req.socket.remoteAddress;
    const addresses = proxyAddr.all(req, this.#trustProxy);
    return addresses[addresses.length - 1];
  }

  /**
   * The server's request listener: answer `req` from a stored response when one is current, else hand
   * it to `router` (Fastify's own listener), with the limit's verdict when it was already taken.
   */
  handle(req: IncomingMessage, res: ServerResponse, router: (req: IncomingMessage, res: ServerResponse) => void): void {
    const key = this.#closing ? undefined : frontCacheKey(req);
    const stored = key === undefined ? undefined : this.#entries.get(key);
    const address = stored === undefined ? undefined : this.#clientAddress(req);
    if (stored === undefined || address === undefined || !this.#pages.isCurrent(stored.page)) {
      router(req, res);
      return;
    }
    const started = performance.now();
    this.#limiter.take(address).then(
      (verdict) => {
        if (!verdict.allowed || this.#closing || !this.#pages.isCurrent(stored.page)) {
          handOverVerdict(req, verdict);
          router(req, res);
          return;
        }
        this.#send(req, res, stored, verdict, address, started);
      },
      // The limit could not be read (Redis down): the router takes it again and answers as it does.
      () => router(req, res),
    );
  }

  #send(req: IncomingMessage, res: ServerResponse, stored: StoredResponse, verdict: KeylessVerdict, address: string, started: number): void {
    const id = requestId(req);
    const fields = stored.fields.slice();
    fields.push('x-request-id', id);
    // Lower-case names, as Fastify writes them.
    const limit = keylessRateLimitFields(verdict);
    if (limit) fields.push('ratelimit-policy', limit['RateLimit-Policy']!, 'ratelimit', limit.RateLimit!);
    fields.push('content-length', String(stored.body.length));
    res.writeHead(200, fields);
    res.end(stored.body);
    const seconds = (performance.now() - started) / 1000;
    keylessFrontCacheHits.inc();
    this.#requests.inc();
    this.#duration.observe(seconds);
    // The router's one access line (app.ts AccessLog), with the same `req` serializer.
    this.#log?.info({ reqId: id, req: { method: 'GET', url: req.url, ip: address }, res: { statusCode: 200 }, responseTime: seconds * 1000 }, 'request completed');
  }
}

/**
 * Fastify's `serverFactory` for an app with a front cache: the HTTP/1.1 server Fastify would create
 * (its `http` options and timeouts, lib/server.js), whose request listener asks `front()` first.
 */
export function frontCachedServer(front: () => KeylessFrontCache | undefined) {
  return (router: (req: IncomingMessage, res: ServerResponse) => void, options: FastifyServerOptions): Server => {
    const server = createServer((options as { http?: ServerOptions }).http ?? {}, (req, res) => {
      const cache = front();
      if (cache) cache.handle(req, res, router);
      else router(req, res);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}
