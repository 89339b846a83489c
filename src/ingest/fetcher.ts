/**
 * The guarded outbound HTTP client every connector uses (architecture guide: "Outbound fetches are
 * guarded").
 *
 * What it guarantees, per {@link Fetcher.get} call:
 * - Only `http:` and `https:` URLs without credentials in them; anything else is `bad_url`.
 * - SSRF guard: the destination address must be public ({@link createAddressPolicy}) unless it matches
 *   `FetchConfig.allow` on the port connected to. A literal IP in the URL is checked before any
 *   connection; a hostname is checked inside the socket's own DNS lookup (an undici connector per
 *   destination port whose `lookup` knows that port), on every address it resolves to, so the address
 *   that is checked is the address that is connected to and a DNS answer that changes between a check
 *   and the connect (rebinding) cannot slip through. Refusal is `blocked`.
 * - Redirects (301, 302, 303, 307, 308) are followed by hand, at most {@link MAX_REDIRECTS}, each hop
 *   re-checked as above, port included (an allow-listed `127.0.0.1:8443` cannot redirect to another
 *   loopback port); credentials-bearing request headers are dropped when a hop changes origin.
 *   More hops, or a redirect without a usable `Location`, is `redirect`.
 * - One time limit, `FetchConfig.timeoutMs` (milliseconds), covers one attempt end to end: connect,
 *   every redirect hop, headers and the whole body. Exceeding it is `timeout`.
 * - The body is read as a stream, decompressed when the server used `gzip` (we send
 *   `Accept-Encoding: gzip`; `deflate` and `br` are decoded too in case a server ignores us), and
 *   aborted as soon as the decoded size passes `FetchConfig.maxBytes` (bytes) — also up front when
 *   `Content-Length` already says more. Exceeding it is `too_large`.
 * - Retries: up to `FetchConfig.retries` more attempts after a 429, a 5xx, a timeout or a network
 *   error. The wait is `backoffMs * 2^n` (n = 0 for the first retry) with equal jitter (half fixed,
 *   half random), except that a 429 or 503 carrying `Retry-After` (delta-seconds or an HTTP date) waits
 *   what the server asked, capped at 60 s. Each retry is logged at `warn` with the URL (credentials
 *   removed), status, attempt number, delay and reason — never request or response headers, which can
 *   hold secrets.
 * - Result: a final 2xx or 304 is returned, as is any status listed in `acceptStatuses`; any other
 *   final status throws `http_status` with `status` set.
 *
 * Sends `User-Agent: FetchConfig.userAgent`. Connection pools live in one undici `Agent` per fetcher;
 * call {@link GuardedFetcher.close} at shutdown.
 */
import dns from 'node:dns';
import net from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type * as Undici from 'undici';
import type { buildConnector, Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { FetchConfig } from '../config/config.ts';
import { createAddressPolicy } from './address-policy.ts';
import type { AddressPolicy } from './address-policy.ts';

/** A response the caller accepted: a final 2xx, a 304, or a status listed in `acceptStatuses`. */
export interface FetchResponse {
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  /** Response headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The decoded (decompressed) body; empty for 304. At most `FetchConfig.maxBytes` bytes. */
  body: Buffer;
}

export interface FetchOptions {
  /** Extra request headers (e.g. `If-None-Match`). `Host` and `Accept-Encoding` cannot be overridden. */
  headers?: Record<string, string>;
  /**
   * Non-2xx statuses to return instead of throwing (e.g. `[404, 410]` to probe a posting URL). A listed
   * 3xx is returned rather than followed; a listed 429/5xx is still retried first.
   */
  acceptStatuses?: number[];
}

export interface Fetcher {
  /**
   * GET `url` under the guarantees described in this module.
   * @throws FetchError with `kind` bad_url | blocked | timeout | network | too_large | http_status | redirect.
   */
  get(url: string, options?: FetchOptions): Promise<FetchResponse>;
  /**
   * POST `body` (a JSON document, sent as `application/json`) to `url` under the same guarantees, for
   * the few sources whose public read API is a POST (Workday CXS job search). A redirect is not followed:
   * it fails as `redirect` (re-sending a body to another origin is not a read).
   * @throws FetchError as {@link Fetcher.get}.
   */
  post(url: string, body: unknown, options?: FetchOptions): Promise<FetchResponse>;
}

/** The fetcher {@link createFetcher} returns: a {@link Fetcher} that owns a connection pool. */
export interface GuardedFetcher extends Fetcher {
  /** Close pooled connections. Requests after close fail. */
  close(): Promise<void>;
}

export type FetchErrorKind = 'bad_url' | 'blocked' | 'timeout' | 'network' | 'too_large' | 'http_status' | 'redirect';

/** Why a fetch produced no accepted response. `status` is set for `http_status` and `redirect`. */
export class FetchError extends Error {
  readonly kind: FetchErrorKind;
  readonly status?: number;
  constructor(kind: FetchErrorKind, message: string, status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FetchError';
    this.kind = kind;
    if (status !== undefined) this.status = status;
  }
}

/** Most redirect hops followed for one request. */
export const MAX_REDIRECTS = 5;

/** Longest wait a `Retry-After` header can impose, milliseconds. */
export const RETRY_AFTER_CAP_MS = 60_000;

/** Knobs that are not operator settings; tests use them to keep waits short. */
/** How host names become addresses: `dns.lookup` with `all: true` (the system resolver) unless tuned. */
export type HostResolver = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

export interface FetcherTuning {
  /** Cap on a `Retry-After` wait, milliseconds. Default {@link RETRY_AFTER_CAP_MS}. */
  retryAfterCapMs?: number;
  /**
   * The resolver of host names (default the system's, `dns.lookup`). Every address it returns is
   * still checked by the SSRF guard before a connection is made. Tests give one that names a loopback
   * site under real host names (`www.example.test`), which the system resolver cannot.
   */
  resolve?: HostResolver;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Request headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Request headers the caller may not set: we own transport and content coding. */
const RESERVED_HEADERS = new Set(['host', 'accept-encoding', 'connection', 'content-length', 'transfer-encoding']);

/** Error raised inside the DNS hook when a resolved address is refused; mapped to `blocked`. */
class BlockedAddressError extends Error {
  readonly code = 'EJOBLEDGER_BLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `net.connect` lookup for connections to TCP `port` that resolves like the default one and then
 * refuses the connection if ANY resolved address is not allowed on that port (a hostname that also
 * resolves to 127.0.0.1 is not trusted for its other addresses either).
 */
function guardedLookup(policy: AddressPolicy, port: number, resolve: HostResolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '');
        return;
      }
      if (addresses.length === 0) {
        callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        return;
      }
      for (const a of addresses) {
        const verdict = policy.check(a.address, port);
        if (!verdict.ok) {
          callback(new BlockedAddressError(`${hostname} resolves to a refused address: ${verdict.reason}`), '');
          return;
        }
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The URL for logs and messages: no user-info. */
function redact(url: URL | string): string {
  try {
    const u = new URL(url.toString());
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '<unparseable url>';
  }
}

/**
 * undici, imported when a fetcher sends its first request. The API process loads this module through
 * the connector registry (config.ts) but never fetches, and undici held about 5 MB of its RSS
 * (bench/server.ts after start-up, 2026-11-29, bench/README.md "export RSS").
 */
let undiciModule: Promise<typeof Undici> | undefined;
function loadUndici(): Promise<typeof Undici> {
  undiciModule ??= import('undici');
  return undiciModule;
}

/** The TCP port a URL connects to (its own, else the scheme's default). */
function urlPort(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * undici's connector with the guarded lookup for the port each connection goes to: the allow-list may
 * admit an address on one port only, and the lookup itself does not learn the port. One connector
 * (and TLS session cache) per port; a fetcher talks to few ports.
 */
function guardedConnector(build: typeof Undici.buildConnector, policy: AddressPolicy, timeoutMs: number, resolve: HostResolver): buildConnector.connector {
  const byPort = new Map<number, buildConnector.connector>();
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    let connector = byPort.get(port);
    if (!connector) {
      connector = build({ lookup: guardedLookup(policy, port, resolve), timeout: timeoutMs });
      byPort.set(port, connector);
    }
    connector(options, callback);
  };
}

/** Parse and vet a URL; literal IP hosts are judged here because no DNS lookup will see them. */
function vetUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('bad_url', `not an absolute URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('bad_url', `only http and https are fetched, not ${url.protocol} (${redact(url)})`);
  }
  // Credentials in a URL would end up in logs and be replayed to redirect targets: refuse them.
  if (url.username !== '' || url.password !== '') {
    throw new FetchError('bad_url', `URLs with credentials are not fetched (${redact(url)})`);
  }
  // WHATWG URL parsing already normalised exotic IPv4 spellings (0x7f.1, 2130706433) to dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0) {
    const verdict = policy.check(host, urlPort(url));
    if (!verdict.ok) throw new FetchError('blocked', `refused ${redact(url)}: ${verdict.reason}`);
  }
  return url;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** `Retry-After` as milliseconds from now (delta-seconds or HTTP date), or undefined when absent/invalid. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = err;
  while (current !== undefined && current !== null && chain.length < 10) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Map anything thrown during one attempt to a FetchError. */
function toFetchError(err: unknown, url: URL, timedOut: boolean, timeoutMs: number): FetchError {
  if (timedOut) return new FetchError('timeout', `no complete answer from ${redact(url)} within ${timeoutMs} ms`, undefined, { cause: err });
  const chain = causeChain(err);
  const fetchError = chain.find((e): e is FetchError => e instanceof FetchError);
  if (fetchError) return fetchError;
  const blocked = chain.find((e): e is BlockedAddressError => e instanceof BlockedAddressError);
  if (blocked) return new FetchError('blocked', `refused ${redact(url)}: ${blocked.message}`, undefined, { cause: err });
  const code = chain.map((e) => (e as { code?: unknown }).code).find((c): c is string => typeof c === 'string');
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new FetchError('timeout', `timed out talking to ${redact(url)} (${code})`, undefined, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new FetchError('network', `network error from ${redact(url)}: ${code ?? ''}${code ? ' ' : ''}${message}`, undefined, { cause: err });
}

function decoderFor(encoding: string | undefined, url: URL): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return null;
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
  if (coding === 'deflate') return zlib.createInflate();
  if (coding === 'br') return zlib.createBrotliDecompress();
  throw new FetchError('network', `unsupported Content-Encoding "${coding}" from ${redact(url)}`);
}

/** Read a body stream to a Buffer, decoding it and stopping as soon as it passes `maxBytes`. */
async function readBody(body: Readable, headers: Record<string, string>, url: URL, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const declared = headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    body.destroy();
    throw new FetchError('too_large', `${redact(url)} announces ${declared} bytes, more than the ${maxBytes}-byte cap`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const collect = async (source: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > maxBytes) {
        throw new FetchError('too_large', `${redact(url)} sent more than the ${maxBytes}-byte cap`);
      }
      chunks.push(chunk);
    }
  };
  const decoder = decoderFor(headers['content-encoding'], url);
  if (decoder) await pipeline(body, decoder, collect, { signal });
  else await pipeline(body, collect, { signal });
  return Buffer.concat(chunks, total);
}

interface AttemptResult {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Create the guarded fetcher.
 * @param config time (ms), size (bytes), retry and allow-list settings; see {@link FetchConfig}.
 * @param log receives one `warn` per retry.
 * @param tuning test-only knobs.
 * @throws AllowListError when `config.allow` holds an entry that is not an address or CIDR block.
 */
export function createFetcher(config: FetchConfig, log?: Logger, tuning: FetcherTuning = {}): GuardedFetcher {
  const policy = createAddressPolicy(config.allow);
  const retryAfterCapMs = tuning.retryAfterCapMs ?? RETRY_AFTER_CAP_MS;
  // Made with the first request (loadUndici).
  let agent: Promise<Undici.Agent> | undefined;
  const dispatcher = (): Promise<Undici.Agent> => {
    agent ??= loadUndici().then(
      ({ Agent, buildConnector }) =>
        new Agent({
          connect: guardedConnector(buildConnector, policy, config.timeoutMs, tuning.resolve ?? ((hostname, options, callback) => dns.lookup(hostname, options, callback))),
          headersTimeout: config.timeoutMs,
          bodyTimeout: config.timeoutMs,
        }),
    );
    return agent;
  };

  /** One attempt: the request and its redirect hops, all inside one `timeoutMs` budget. */
  async function attempt(start: URL, callerHeaders: Record<string, string>, accept: Set<number>, payload?: string): Promise<AttemptResult> {
    // Before the timer: loading undici is no part of the request's time budget.
    const [{ request }, agent] = await Promise.all([loadUndici(), dispatcher()]);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timeout after ${config.timeoutMs} ms`));
    }, config.timeoutMs);
    let url = start;
    const headers = { ...callerHeaders };
    try {
      for (let hop = 0; ; hop++) {
        const res = await request(url, {
          method: payload === undefined ? 'GET' : 'POST',
          dispatcher: agent,
          signal: controller.signal,
          headers: {
            ...headers,
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
            'user-agent': config.userAgent,
            'accept-encoding': 'gzip',
          },
          body: payload,
        });
        const resHeaders = flattenHeaders(res.headers);
        const location = resHeaders['location'];
        if (REDIRECT_STATUSES.has(res.statusCode) && !accept.has(res.statusCode)) {
          await res.body.dump();
          if (payload !== undefined) throw new FetchError('redirect', `${redact(url)} answered a POST with ${res.statusCode}`, res.statusCode);
          if (location === undefined || location.trim() === '') {
            throw new FetchError('redirect', `${redact(url)} answered ${res.statusCode} without a Location`, res.statusCode);
          }
          if (hop >= MAX_REDIRECTS) {
            throw new FetchError('redirect', `more than ${MAX_REDIRECTS} redirects starting at ${redact(start)}`, res.statusCode);
          }
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new FetchError('redirect', `unusable redirect Location from ${redact(url)}`, res.statusCode);
          }
          const vetted = vetUrl(next.toString(), policy);
          if (vetted.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
          url = vetted;
          continue;
        }
        const returned = (res.statusCode >= 200 && res.statusCode <= 299) || res.statusCode === 304 || accept.has(res.statusCode);
        if (!returned || res.statusCode === 304) {
          // Drain (bounded) so the connection can be reused; the body of a refused answer is not kept.
          await res.body.dump();
          return { status: res.statusCode, url: url.toString(), headers: resHeaders, body: Buffer.alloc(0) };
        }
        const body = await readBody(res.body, resHeaders, url, config.maxBytes, controller.signal);
        return { status: res.statusCode, url: url.toString(), headers: resHeaders, body };
      }
    } catch (err) {
      throw toFetchError(err, url, timedOut, config.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  function backoffDelay(retryIndex: number): number {
    const base = config.backoffMs * 2 ** retryIndex;
    return Math.round(base / 2 + (Math.random() * base) / 2);
  }

  async function send(rawUrl: string, options: FetchOptions, payload?: string): Promise<FetchResponse> {
      const start = vetUrl(rawUrl, policy);
      const accept = new Set(options.acceptStatuses ?? []);
      const callerHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(options.headers ?? {})) {
        const key = name.toLowerCase();
        if (!RESERVED_HEADERS.has(key)) callerHeaders[key] = value;
      }
      for (let attemptNo = 1; ; attemptNo++) {
        const canRetry = attemptNo <= config.retries;
        let result: AttemptResult;
        try {
          result = await attempt(start, callerHeaders, accept, payload);
        } catch (err) {
          const fe = err as FetchError;
          if (!canRetry || (fe.kind !== 'timeout' && fe.kind !== 'network')) throw fe;
          const delayMs = backoffDelay(attemptNo - 1);
          log?.warn({ url: redact(start), attempt: attemptNo, delayMs, reason: fe.kind }, 'upstream fetch failed; retrying');
          await sleep(delayMs);
          continue;
        }
        if (isRetryableStatus(result.status) && canRetry) {
          const retryAfter =
            result.status === 429 || result.status === 503 ? parseRetryAfter(result.headers['retry-after']) : undefined;
          const delayMs = retryAfter !== undefined ? Math.min(retryAfter, retryAfterCapMs) : backoffDelay(attemptNo - 1);
          log?.warn(
            { url: redact(start), status: result.status, attempt: attemptNo, delayMs, reason: 'http_status' },
            'upstream answered with a retryable status; retrying',
          );
          await sleep(delayMs);
          continue;
        }
        const ok = (result.status >= 200 && result.status <= 299) || result.status === 304 || accept.has(result.status);
        if (!ok) {
          throw new FetchError('http_status', `${redact(result.url)} answered ${result.status}`, result.status);
        }
        return result;
      }
  }

  return {
    get: (rawUrl: string, options: FetchOptions = {}) => send(rawUrl, options),
    post: (rawUrl: string, body: unknown, options: FetchOptions = {}) => send(rawUrl, options, JSON.stringify(body)),
    async close(): Promise<void> {
      if (agent) await (await agent).close();
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
