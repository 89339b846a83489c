/**
 * The contract between the ingestion pipeline and each source format's connector.
 *
 * A connector turns one crawl target (an ATS board, an agency feed) into {@link SourcePosting}s by
 * fetching the source's real public API through the guarded {@link Fetcher}. It never touches the
 * ledger: the pipeline decides what a crawl means. A connector throws {@link CrawlError} for anything
 * that is not a well-formed answer (HTTP error, timeout, HTML page, truncated or malformed JSON): such a
 * crawl is never evidence that a posting closed.
 */
import type { SourcePosting } from '../domain/posting.ts';
import type { CareerSiteOptions } from './connectors/career-site.ts';
import type { Fetcher } from './fetcher.ts';

export type { CrawlTarget } from '../domain/crawl-target.ts';
import type { CrawlTarget } from '../domain/crawl-target.ts';
export type { ConnectorId } from './connectors/registry.ts';

/** Outcome of a crawl whose answer was well formed. */
export type CrawlOutcome =
  | {
      kind: 'fetched';
      postings: SourcePosting[];
      /** Postings skipped because they lacked an id or a title; counted and logged, never stored. */
      skipped: number;
      etag?: string;
      lastModified?: string;
      /** The connector's memory of a multi-document site after this crawl, stored on the target (career_site). */
      siteState?: unknown;
      /**
       * Source posting ids the source itself proved dead in this crawl (career_site: the posting's page
       * answered 404/410 or no longer carries its JobPosting). The pipeline closes their live rows as
       * `expired_upstream`, as a posting-URL probe would.
       */
      gone?: string[];
    }
  /** The source answered 304 to a conditional request: the board is exactly as last crawled. */
  | { kind: 'not_modified' };

export type CrawlErrorKind = 'http_status' | 'timeout' | 'network' | 'too_large' | 'blocked' | 'malformed';

/** A crawl that produced no usable answer. Message is for operators' logs, never for API clients. */
export class CrawlError extends Error {
  readonly kind: CrawlErrorKind;
  readonly status: number | undefined;
  constructor(kind: CrawlErrorKind, message: string, status?: number) {
    super(message);
    this.name = 'CrawlError';
    this.kind = kind;
    this.status = status;
  }
}

export interface Connector {
  /** The connector's id (its descriptor's), also the `source` of its rows. */
  readonly id: string;
  /** The board URL this connector fetches for `target`, under its configured base URL. */
  boardUrl(target: CrawlTarget): string;
  /**
   * Fetch and parse one board. Sends `If-None-Match`/`If-Modified-Since` when the target has validators.
   * @throws CrawlError when the answer is unusable.
   */
  crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome>;
}

/**
 * The environment variable of connector `id`'s base URL: `JOBLEDGER_<ID>_BASE_URL`, the id upper-cased
 * (`usajobs_api` -> `JOBLEDGER_USAJOBS_API_BASE_URL`); one convention instead of a name per descriptor.
 */
export function baseUrlEnv(id: string): string {
  return `JOBLEDGER_${id.toUpperCase()}_BASE_URL`;
}

/**
 * Everything the rest of the service needs to know about one connector, exported as `descriptor` by
 * its module `connectors/<id>.ts`; `connectors/registry.ts` derives the id list, the base-URL settings,
 * the `providers` rows, the quality gate's apply hosts, the replay server's routes and the README list
 * from these (after supabase/storage's registry of self-describing job classes).
 */
export interface ConnectorDescriptor<Id extends string = string> {
  /** Provider id: the `source` of its rows, the `<provider>` of `<provider>:<board>` target ids. */
  id: Id;
  /** Its row of the `providers` table (upserted at start, see store/providers.ts). */
  provider: {
    label: string;
    /** Spec: Job.provider_type (legacy vocabulary). */
    providerClass: 'employer_ats' | 'government' | 'direct' | 'aggregator';
    /** Spec: Job.source_type, the default of its rows. */
    sourceType: 'ats' | 'career_site' | 'public_agency' | 'aggregator' | 'agency' | 'unknown';
    /** Served rows; false with discoveryOnly for job boards (stored withheld, never served). */
    redistributable: boolean;
    discoveryOnly: boolean;
  };
  /**
   * The upstream API's base URL: its production default and meaning (its environment variable is
   * {@link baseUrlEnv} of the id). Absent for a connector whose targets carry their own absolute URL
   * (career_site: the board is the careers page).
   */
  baseUrl?: { default: string; description: string };
  /**
   * Hosts that are the employer's own channel for an apply link of this provider (quality gate):
   * `ats` hosts name the board in the first path segment (jobs.lever.co/{site}/...); `agency` hosts
   * are a public agency's own site (any path); `atsSubdomain` hosts name the board in the host
   * ({company}.recruitee.com; a Workday board begins with its tenant's host); `atsAnyPath` hosts are the
   * ATS's own pages on any path (apply.workable.com/j/{shortcode} names no account); `anyAts` accepts every connector's ATS hosts as the
   * employer's own (career_site: a company's careers page often links to its ATS board).
   */
  applyHosts: { ats?: readonly string[]; atsSubdomain?: readonly string[]; atsAnyPath?: readonly string[]; agency?: readonly string[]; anyAts?: boolean };
  /**
   * Providers whose postings are copies of this one's when they carry the same source posting id: the
   * same vacancy read through a lesser channel (USAJOBS: the Search API supersedes the mirror of
   * announcement files; both name an announcement by its control number). A copy is stored withheld
   * (`quality_removed`, rule `source.superseded`) as soon as this provider has a row for that id, so
   * one vacancy is served once, from here.
   */
  supersedes?: readonly string[];
  /** How the replay server answers on the real API's paths; absent when the connector has no bundled feed. */
  replay?: {
    /** Matches a request path; group 1 is the board (file stem) unless `file` is given. */
    pattern: RegExp;
    /**
     * The fixture file stem for feeds whose path names no board; or, for sources that answer one board
     * with several documents (pages, per-posting details, POST searches), a function naming the file
     * (a relative path under `fixtures/<id>/`, without extension) for a matched request, null for none.
     */
    file?: string | ((match: RegExpExecArray, request: { query: URLSearchParams; body: unknown }) => string | null);
    /** Methods besides GET and HEAD this route answers (Workday's job search is a POST). */
    methods?: readonly 'POST'[];
    /** Body of the 404 for an unknown board, in the spirit of the real API. */
    notFound: unknown;
    /** Path under the replay server's URL that stands for the base URL (default: none). */
    basePath?: string;
  };
  /** `fixtures/<id>/`: the file holding the payloads' origin and licence; absent without bundled feeds. */
  fixtures?: { notice: string };
  /**
   * The connector fetching from `baseUrl` (the setting's value, or the replay server's; undefined for a
   * connector without one), with the settings some connectors take (config `careerSite`).
   */
  create(baseUrl: string | undefined, settings: ConnectorSettings): Connector;
}

/** Settings a connector may take besides its base URL (the config's groups of the same names). */
export interface ConnectorSettings {
  careerSite: CareerSiteOptions;
  /** The public agencies' credentials (config `agencyKeys`); each unset one means the keyless path. */
  agencyKeys: { navToken?: string; usajobsApiKey?: string; usajobsEmail?: string };
}

/** Declare a connector's descriptor, keeping its id's literal type. */
export function defineConnector<const Id extends string, const D extends ConnectorDescriptor<Id>>(descriptor: D & { id: Id }): D {
  return descriptor;
}
