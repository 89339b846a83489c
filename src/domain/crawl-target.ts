/**
 * A crawl target: one board or feed the service reads (spec: "Every listing comes from an employer
 * applicant-tracking system, a company's own careers page, a public employment agency ...").
 */

/**
 * Provider ids of the built-in connectors; also the `source` value of the rows they produce.
 * `remotive`, `himalayas` and `arbeitnow` are job-board / aggregator feeds: discovery-only providers
 * whose rows are stored withheld and never served (migration 007).
 */
export type ConnectorId = 'ashby' | 'greenhouse' | 'lever' | 'usajobs' | 'remotive' | 'himalayas' | 'arbeitnow' | 'career_site';

export const CONNECTOR_IDS: readonly ConnectorId[] = ['ashby', 'greenhouse', 'lever', 'usajobs', 'remotive', 'himalayas', 'arbeitnow', 'career_site'];

/** One thing to crawl, as stored in the `crawl_targets` table. */
export interface CrawlTarget {
  /** Stable id, `<provider>:<board>` (e.g. `ashby:1password`). */
  id: string;
  providerId: ConnectorId;
  /** Board token (Ashby, Greenhouse), site name (Lever), announcement file (USAJOBS) or careers URL (career_site). */
  board: string;
  /** Display name of the employer when the payload has none (Ashby and Lever do not carry one). */
  companyName?: string;
  /** The employer's bare domain when the operator knows it. */
  companyDomain?: string;
  companyLogo?: string;
  /** Validators from the last successful crawl, for a conditional request. */
  etag?: string;
  lastModified?: string;
  /**
   * What a multi-document connector remembered after its last successful crawl (career_site: per
   * document URL its validators and what it read there). Opaque outside that connector.
   */
  siteState?: unknown;
}
