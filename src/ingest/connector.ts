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
import type { Fetcher } from './fetcher.ts';

export type { ConnectorId, CrawlTarget } from '../domain/crawl-target.ts';
import type { ConnectorId, CrawlTarget } from '../domain/crawl-target.ts';

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
  readonly id: ConnectorId;
  /** The board URL this connector fetches for `target`, under its configured base URL. */
  boardUrl(target: CrawlTarget): string;
  /**
   * Fetch and parse one board. Sends `If-None-Match`/`If-Modified-Since` when the target has validators.
   * @throws CrawlError when the answer is unusable.
   */
  crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome>;
}
