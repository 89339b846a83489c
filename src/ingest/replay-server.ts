/**
 * A loopback HTTP server that replays recorded source payloads on the same paths as the real APIs, so
 * the production fetcher and connectors run unchanged against it (architecture guide: "connectors
 * replayed from recorded payloads through a loopback HTTP server, so the real fetch path runs"). The
 * demo import and the tests use it; production never does.
 *
 * Routes (method GET or HEAD, and POST where a descriptor opens it; the query string is ignored but
 * recorded unless the descriptor's `replay.file` reads it), one per connector from its descriptor's
 * `replay` (connectors/registry.ts), today:
 * | path | serves | real API |
 * |---|---|---|
 * | `/posting-api/job-board/:board` | `ashby/<board>.json.gz` (board URL-decoded) | api.ashbyhq.com |
 * | `/v1/boards/:token/jobs` | `greenhouse/<token>.json` or `.json.gz` | boards-api.greenhouse.io |
 * | `/v0/postings/:site` | `lever/<site>.json` or `.json.gz` | api.lever.co |
 * | `/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs/:file.json` | `usajobs/<file>.json.gz` | raw.githubusercontent.com |
 * | `/api/remote-jobs` | `remotive/remote-jobs.json` | remotive.com (job board; discovery only) |
 * | `/jobs/api` | `himalayas/jobs.json` | himalayas.app (job board; discovery only) |
 * | `/api/job-board-api` | `arbeitnow/job-board-api.json` | www.arbeitnow.com (job board; discovery only) |
 * | `/v1/companies/:company/postings[/:id]` | `smartrecruiters/<company>.json` (`<company>.offset-<n>.json` for a later page), `smartrecruiters/<company>/<id>.json` | api.smartrecruiters.com |
 * | `/recruitee/:company/api/offers/` | `recruitee/<company>.json` | `{company}.recruitee.com` |
 * | `/api/v1/widget/accounts/:account` | `workable/<account>.json` | apply.workable.com |
 * | `/personio/:company/xml` | `personio/<company>.xml` (served as `application/xml`) | `{company}.jobs.personio.de` |
 * | `POST /workday/:host/wday/cxs/:tenant/:site/jobs`, `GET …/job/...` | `workday/<host>/<tenant>/<site>/jobs.json` (`jobs.offset-<n>.json`), `…/job/<...>.json` | the tenant's `{host}` |
 *
 * | `/pages/:host/:path...` | a posting's own public page: 200 with a small HTML page | the posting URL `https://:host/:path...` |
 *
 * So the demo's USAJOBS base URL is `<replay url>/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs`
 * ({@link ReplayServer.baseUrls} carries one per connector: the server's URL plus the descriptor's `replay.basePath`).
 *
 * Each payload is served decompressed, byte for byte as recorded, as `application/json` with a strong
 * `ETag` (SHA-256 of the bytes) and `Last-Modified` (the fixture file's mtime); a matching
 * `If-None-Match` (or, without one, an `If-Modified-Since` not older than the file) gets 304. An unknown
 * board gets 404 with a small JSON error body in the spirit of each API (the exact upstream error bodies
 * were not recorded; connectors never read them).
 *
 * Posting pages stand in for the pages behind each posting's `postingUrl` (jobs.ashbyhq.com/..., usajobs.gov/...),
 * which the pipeline probes to prove a vacancy dead: {@link ReplayServer.pageUrl} maps a posting URL to its
 * stand-in. Nothing about a page was recorded, so every page exists (200) unless a test overrides its path
 * with a 404 or 410 ({@link ReplayServer.pagePath}).
 *
 * Tests simulate a source's misbehaviour on one path with {@link ReplayServer.override}: any status and
 * body (a 500, an HTML error page, truncated JSON), a JSON value (an empty or malformed board), a delay
 * (a timeout), or a cut connection.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import type { ConnectorDescriptor } from './connector.ts';
import { CONNECTORS, connectorDescriptor, type SourceUrls } from './connectors/registry.ts';

/** The path prefix under which the USAJOBS announcement files are served (mirrors raw.githubusercontent.com). */
export const USAJOBS_REPLAY_PREFIX = connectorDescriptor('usajobs')?.replay?.basePath ?? '';

/**
 * A canned answer for one path, replacing the fixture:
 * - `{ status, body?, headers?, delayMs? }`: that status with that body (string or bytes) and headers;
 * - `{ json, status?, headers?, delayMs? }`: `JSON.stringify(json)` as `application/json` (status 200 by default);
 * - `{ destroySocket: true }`: the connection is cut without an answer.
 * `delayMs` (milliseconds) holds the whole answer back, to provoke client timeouts; `bodyDelayMs` sends the
 * status, headers and first half of the body at once and the rest that many milliseconds later (a body
 * that stalls mid-way).
 */
export type ReplayOverride = (
  | { status: number; body?: string | Buffer; headers?: Record<string, string>; delayMs?: number; bodyDelayMs?: number }
  | { json: unknown; status?: number; headers?: Record<string, string>; delayMs?: number }
  | { destroySocket: true }
) & {
  /** Answer this way for the next `times` requests only, then fall back to the fixture (default: until removed). */
  times?: number;
};

/** One request the server received, in arrival order. `path` includes the query string. */
export interface ReplayRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** Base URLs to give the connectors (config `sources`) so they fetch from this server. */
  baseUrls: SourceUrls;
  /** Stop listening, cut open connections and cancel delayed answers. */
  close(): Promise<void>;
  /** Every request received so far (tests may clear it with `requests.length = 0`). */
  requests: ReplayRequest[];
  /**
   * The most requests this server was answering at once since it started or since the last
   * {@link resetPeakInFlight} (from a request's arrival until its response is finished or its
   * connection closes): what a source sees of a crawler's per-host politeness.
   */
  readonly peakInFlight: number;
  /** Start counting {@link peakInFlight} afresh. */
  resetPeakInFlight(): void;
  /**
   * Answer `pathname` (without query string, as sent on the wire, e.g. `/posting-api/job-board/Synergy%20Pet%20Group`)
   * with `response` from now on; `null` removes the override.
   */
  override(pathname: string, response: ReplayOverride | null): void;
  /** The URL of the stand-in page of a posting URL (`<url>/pages/<host><path>`), for the posting probe. */
  pageUrl(postingUrl: string): string;
  /** The path of that stand-in page, as {@link override} takes it. */
  pagePath(postingUrl: string): string;
}

/** Path prefix of the posting pages. */
export const PAGES_PREFIX = '/pages/';

/** `/pages/<host><path>` of a posting URL. */
export function postingPagePath(postingUrl: string): string {
  const url = new URL(postingUrl);
  return `${PAGES_PREFIX}${url.host}${url.pathname}`;
}

export interface ReplayServerOptions {
  /** Directory holding `ashby/`, `greenhouse/`, `lever/`, `usajobs/`. */
  fixturesDir: string;
  /** Listen address; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Listen port; default 0 (any free port). */
  port?: number;
}

/** One route per connector with a bundled feed: its fixture folder is `<fixturesDir>/<provider>/`. */
const ROUTES = CONNECTORS.flatMap((c: ConnectorDescriptor) => (c.replay ? [{ provider: c.id, ...c.replay }] : []));

interface Payload {
  /** The decompressed bytes, read from the file for each full answer. */
  bytes(): Promise<Buffer>;
  etag: string;
  lastModified: string;
  mtimeMs: number;
  contentType: string;
}

/** A board name (or a `/`-separated path of them) that cannot leave its provider folder. */
function safeName(name: string): boolean {
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !/[\\\0]/.test(part));
}

/** The request body as JSON (undefined when absent or not JSON), at most 64 KiB read. */
async function readJsonBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 65_536) return undefined;
    chunks.push(chunk);
  }
  try {
    return chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
  } catch {
    return undefined;
  }
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Does an If-None-Match header list `etag` (weak comparison, as RFC 9110 prescribes for it)? */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => bare(t) === bare(etag));
}

/**
 * Start the replay server.
 * @throws when the port cannot be bound.
 */
export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const fixturesDir = path.resolve(options.fixturesDir);
  const overrides = new Map<string, { response: ReplayOverride; remaining: number }>();
  const requests: ReplayRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  // Validators of each payload, keyed by file path and recomputed when the file's mtime changes. The
  // bytes themselves are read again for every full answer: kept, the decompressed fixtures held about
  // 45 MiB for the life of `serve --demo`, whose worker asks for them again only every few hours.
  const cache = new Map<string, Payload>();

  async function loadPayload(provider: string, name: string): Promise<Payload | null> {
    const stem = path.join(fixturesDir, provider, name);
    for (const file of [`${stem}.json.gz`, `${stem}.json`, `${stem}.xml`]) {
      let stat;
      try {
        stat = await fs.stat(file);
      } catch {
        continue;
      }
      if (!stat.isFile()) continue;
      const cached = cache.get(file);
      if (cached && cached.mtimeMs === stat.mtimeMs) return cached;
      const read = async () => {
        const raw = await fs.readFile(file);
        return file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw;
      };
      const payload: Payload = {
        bytes: read,
        etag: `"${crypto.createHash('sha256').update(await read()).digest('base64url')}"`,
        lastModified: new Date(stat.mtimeMs).toUTCString(),
        mtimeMs: stat.mtimeMs,
        contentType: file.endsWith('.xml') ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8',
      };
      cache.set(file, payload);
      return payload;
    }
    return null;
  }

  function later(ms: number | undefined, fn: () => void): void {
    if (!ms) {
      fn();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  }

  function send(req: http.IncomingMessage, res: http.ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
    res.writeHead(status, { ...headers, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  function sendJson(req: http.IncomingMessage, res: http.ServerResponse, status: number, value: unknown): void {
    send(req, res, status, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify(value)));
  }

  function answerOverride(req: http.IncomingMessage, res: http.ServerResponse, o: ReplayOverride): void {
    if ('destroySocket' in o) {
      req.socket.destroy();
      return;
    }
    later(o.delayMs, () => {
      if (res.destroyed) return;
      if ('json' in o) {
        const body = Buffer.from(JSON.stringify(o.json));
        send(req, res, o.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...o.headers }, body);
        return;
      }
      const body = o.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(o.body) ? o.body : Buffer.from(o.body);
      if (!o.bodyDelayMs) {
        send(req, res, o.status, { ...o.headers }, body);
        return;
      }
      const half = Math.floor(body.length / 2);
      res.writeHead(o.status, { ...o.headers, 'content-length': String(body.length) });
      res.write(body.subarray(0, half));
      later(o.bodyDelayMs, () => {
        if (!res.destroyed) res.end(body.subarray(half));
      });
    });
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rawPath = req.url ?? '/';
    requests.push({ method: req.method ?? '', path: rawPath, headers: { ...req.headers } });
    const pathname = rawPath.split('?')[0] ?? '/';

    const key = overrides.has(pathname) ? pathname : (decode(pathname) ?? pathname);
    const override = overrides.get(key);
    if (override && override.remaining > 0) {
      override.remaining -= 1;
      if (override.remaining === 0) overrides.delete(key);
      answerOverride(req, res, override.response);
      return;
    }
    const routed = ROUTES.some((r) => r.methods?.includes(req.method as 'POST') && r.pattern.test(pathname));
    if (req.method !== 'GET' && req.method !== 'HEAD' && !routed) {
      res.setHeader('allow', 'GET, HEAD');
      sendJson(req, res, 405, { error: 'method not allowed' });
      return;
    }
    if (pathname.startsWith(PAGES_PREFIX)) {
      send(req, res, 200, { 'content-type': 'text/html; charset=utf-8' }, Buffer.from('<!doctype html><title>Posting</title><p>This posting is open.</p>'));
      return;
    }
    for (const route of ROUTES) {
      const match = route.pattern.exec(pathname);
      if (!match) continue;
      const name =
        typeof route.file === 'function'
          ? route.file(match, { query: new URLSearchParams(rawPath.split('?')[1] ?? ''), body: req.method === 'POST' ? await readJsonBody(req) : undefined })
          : (route.file ?? decode(match[1] ?? ''));
      const payload = name !== null && safeName(name) ? await loadPayload(route.provider, name) : null;
      if (!payload) {
        sendJson(req, res, 404, route.notFound);
        return;
      }
      const validators = { etag: payload.etag, 'last-modified': payload.lastModified };
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      // RFC 9110 §13.2.2: If-Modified-Since is ignored when If-None-Match is present.
      const fresh =
        inm !== undefined
          ? etagMatches(inm, payload.etag)
          : ims !== undefined && !Number.isNaN(Date.parse(ims)) && Math.floor(payload.mtimeMs / 1000) * 1000 <= Date.parse(ims);
      if (fresh) {
        res.writeHead(304, validators);
        res.end();
        return;
      }
      send(req, res, 200, { 'content-type': payload.contentType, ...validators }, await payload.bytes());
      return;
    }
    sendJson(req, res, 404, { error: 'not found' });
  }

  let inFlight = 0;
  let peakInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    res.once('close', () => inFlight--);
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(req, res, 500, { error: 'replay server failure', message: (err as Error).message });
      else res.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostPart}:${address.port}`;

  return {
    url,
    baseUrls: Object.fromEntries(CONNECTORS.flatMap((c: ConnectorDescriptor) => (c.baseUrl ? [[c.id, `${url}${c.replay?.basePath ?? ''}`]] : []))) as SourceUrls,
    requests,
    get peakInFlight() {
      return peakInFlight;
    },
    resetPeakInFlight() {
      peakInFlight = inFlight;
    },
    pageUrl: (postingUrl: string) => `${url}${postingPagePath(postingUrl)}`,
    pagePath: postingPagePath,
    override(pathname: string, response: ReplayOverride | null): void {
      if (response === null) overrides.delete(pathname);
      else overrides.set(pathname, { response, remaining: response.times ?? Number.POSITIVE_INFINITY });
    },
    close(): Promise<void> {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets would otherwise hold close() open until they idle out.
        server.closeAllConnections();
      });
    },
  };
}
