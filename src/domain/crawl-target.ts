/**
 * A crawl target: one board or feed the service reads (spec: "Every listing comes from an employer
 * applicant-tracking system, a company's own careers page, a public employment agency ...").
 */

/** One thing to crawl, as stored in the `crawl_targets` table. */
export interface CrawlTarget {
  /** Stable id, `<provider>:<board>` (e.g. `ashby:1password`). */
  id: string;
  /**
   * The connector's id (the `providers` row): one of ingest/connectors/registry.ts CONNECTOR_IDS,
   * checked where a target enters (the CLI, the manifest); the domain does not know the connectors.
   */
  providerId: string;
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
