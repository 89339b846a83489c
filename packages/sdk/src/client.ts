/**
 * The jobledger client: a typed `openapi-fetch` client (every operation of the OpenAPI document) with
 * the spec's retry rules, plus iterators over keyset pages and the delta feed, and the export reader.
 */
import createClient, { type Client } from 'openapi-fetch';
import { JobledgerError } from './errors.ts';
import { readExport, type ExportOptions, type ExportReader } from './export-reader.ts';
import type { paths } from './generated/openapi.ts';
import { retryingFetch, sleep, type FetchLike, type RetryPolicy } from './retry.ts';
import type {
  ChangeItem,
  ChangesPage,
  ClosedJobsPage,
  ClosedJobsQuery,
  CompaniesPage,
  CompaniesQuery,
  Company,
  ExpiredItem,
  ExpiredPage,
  Job,
  JobsPage,
  JobsQuery,
  Me,
} from './types.ts';

export interface ClientOptions {
  /** Where jobledger answers, e.g. `https://jobs.example.org` (no trailing `/v1`). */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <key>`; omit it for the keyless `/public` routes only. */
  apiKey?: string;
  /** Retry rules (defaults: 4 attempts, `Retry-After` plus up to 1 s of jitter, waits up to 60 s). */
  retry?: RetryPolicy;
  /** The fetch to call (default: the global fetch). */
  fetch?: FetchLike;
}

/** The keyset-paged listings `pages()` follows, and what each answers. */
export interface PagedRoutes {
  '/v1/jobs': { query: JobsQuery; page: JobsPage; row: Job };
  '/v1/jobs/closed': { query: ClosedJobsQuery; page: ClosedJobsPage; row: Job };
  '/v1/companies': { query: CompaniesQuery; page: CompaniesPage; row: Company };
}

/** The delta feeds `feed()` follows, and their items. */
export interface FeedRoutes {
  '/v1/changes': { page: ChangesPage; item: ChangeItem };
  '/v1/jobs/expired': { page: ExpiredPage; item: ExpiredItem };
}

/** Options of a delta-feed walk (spec: GET /v1/changes, Events). */
export interface FeedOptions {
  /** Where to start: an RFC 3339 timestamp on the first run, afterwards the last saved `next_since`. */
  since: string;
  /**
   * Called with `next_since` after every item of a page has been handed out (and the consumer's loop
   * body has run for each): persist it, and start the next run from it. A run cut short mid-page saves
   * nothing for that page, so its items come again (at least once; upserts are idempotent).
   */
  saveSince?: (nextSince: string) => void | Promise<void>;
  /** Items per page (`/v1/changes`: 1 to 5000, default 500; `/v1/jobs/expired`: 1 to 10000, default 1000). */
  limit?: number;
  /**
   * Keep polling after catching up (an empty page echoes the cursor: spec, Events 2), every
   * `pollIntervalMs` (default 60 000), until `signal` aborts. Default false: stop when caught up.
   */
  follow?: boolean;
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/** What {@link createJobledgerClient} returns. */
export interface JobledgerClient {
  /** The typed openapi-fetch client: `api.GET('/v1/jobs/{id}', { params: { path: { id } } })`, with the retry rules. */
  readonly api: Client<paths>;
  /**
   * Every page of a keyset-paged listing, following `next_cursor` until `has_more` is false (spec:
   * Recipes, "Deep paging"). Each page costs a request and one record per row.
   * @throws JobledgerError for an error answer the retry rules did not recover.
   */
  pages<P extends keyof PagedRoutes>(path: P, query?: PagedRoutes[P]['query']): AsyncGenerator<PagedRoutes[P]['page']>;
  /** The rows of every page of {@link pages}, one at a time. */
  rows<P extends keyof PagedRoutes>(path: P, query?: PagedRoutes[P]['query']): AsyncGenerator<PagedRoutes[P]['row']>;
  /**
   * Every item of a delta feed after `since`, in commit order, page by page (`next_since` persisted by
   * `saveSince`). Needs the `delta_feed` entitlement (403 otherwise).
   * @throws JobledgerError for an error answer the retry rules did not recover.
   */
  feed<P extends keyof FeedRoutes>(path: P, options: FeedOptions): AsyncGenerator<FeedRoutes[P]['item']>;
  /** `feed('/v1/changes', options)`. */
  changes(options: FeedOptions): AsyncGenerator<ChangeItem>;
  /** The bulk export as Job rows, resumed with `after` when cut, stopping on the quota line (see {@link readExport}). */
  exportJobs(options?: ExportOptions): ExportReader;
  /** `GET /v1/me` (costs no records). */
  me(): Promise<Me>;
}

/** Query arrays as the spec's comma lists (`provider=ashby,lever`): the server reads the first occurrence only. */
const QUERY_SERIALIZER = { array: { style: 'form', explode: false } } as const;

/**
 * A client for the jobledger at `options.baseUrl`.
 * Every call it makes follows the retry rules (retry.ts); errors surface as {@link JobledgerError}.
 */
export function createJobledgerClient(options: ClientOptions): JobledgerClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const plainFetch: FetchLike = options.fetch ?? ((request) => fetch(request));
  const fetchWithRetry = retryingFetch(plainFetch, options.retry);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const api = createClient<paths>({ baseUrl, fetch: fetchWithRetry, headers, querySerializer: QUERY_SERIALIZER });

  // openapi-fetch types each path's query; the iterators below are generic over several paths with the
  // same paging protocol, so they call it through this one loosely typed door.
  const get = async <T>(path: string, query: Record<string, unknown>): Promise<T> => {
    const result = await (api.GET as (p: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>)(path, { params: { query } });
    if (!result.response.ok) throw new JobledgerError(result.response.status, result.error, result.response.headers);
    return result.data as T;
  };

  async function* pages<P extends keyof PagedRoutes>(path: P, query: PagedRoutes[P]['query'] = {} as PagedRoutes[P]['query']) {
    let cursor: string | undefined;
    for (;;) {
      const page = await get<PagedRoutes[P]['page']>(path, { ...query, ...(cursor ? { cursor } : {}) });
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  async function* rows<P extends keyof PagedRoutes>(path: P, query?: PagedRoutes[P]['query']) {
    for await (const page of pages(path, query)) yield* page.data as Array<PagedRoutes[P]['row']>;
  }

  async function* feed<P extends keyof FeedRoutes>(path: P, o: FeedOptions) {
    let since = o.since;
    for (;;) {
      const page = await get<FeedRoutes[P]['page']>(path, { since, ...(o.limit ? { limit: o.limit } : {}) });
      yield* page.data as Array<FeedRoutes[P]['item']>;
      if (page.next_since !== since) await o.saveSince?.(page.next_since);
      since = page.next_since;
      if (page.count > 0) continue;
      // An empty page echoes the cursor: caught up.
      if (!o.follow || o.signal?.aborted) return;
      try {
        await sleep(o.pollIntervalMs ?? 60_000, o.signal);
      } catch {
        return;
      }
    }
  }

  return {
    api,
    pages,
    rows,
    feed,
    changes: (o) => feed('/v1/changes', o),
    exportJobs: (o = {}) => readExport({ baseUrl, headers, fetch: fetchWithRetry, querySerializer: QUERY_SERIALIZER.array }, o),
    me: () => get<Me>('/v1/me', {}),
  };
}
