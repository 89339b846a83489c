import type { EmploymentType, CategoryFamily, PosterType, ProviderType, Remote, SalaryPeriod, SalarySource, Seniority, SourceType } from './vocabulary.ts';
import type { FieldSources } from './field-sources.ts';

/**
 * One piece of location evidence as a source gave it, before any interpretation.
 * Ashby gives `location` text plus `address.postalAddress` ({addressCountry, addressRegion,
 * addressLocality}) for the primary and each secondary location; Lever gives `categories.location`
 * and a `country` code; Greenhouse gives `location.name` and office locations.
 */
export interface SourceLocation {
  /** Free text as given, e.g. "San Francisco Office", "Remote (US)". */
  text?: string;
  /** Country as given: a name in any language or an ISO code ("USA", "Germany", "GB"). */
  country?: string;
  /** State, province or region as given ("Texas", "CA"). */
  region?: string;
  /** City or locality as given. */
  city?: string;
}

/**
 * A salary exactly as the source published it in structured form, already mapped from the source's own
 * interval vocabulary. `period` is null when the source's interval has no yearly equivalent (Ashby
 * `1 TIME`, `NONE`): the amount is kept but `salary_min_annual_eur` stays null (spec: never guessed).
 */
export interface SourceSalary {
  min?: number;
  max?: number;
  /** ISO 4217 code as given by the source (upper-cased by the connector). */
  currency?: string;
  period: SalaryPeriod | null;
}

/**
 * A posting as one connector read it from one source payload: the source's words, untouched by
 * enrichment. Connectors fill only what the payload carries; absence is `undefined`, never a guess.
 */
export interface SourcePosting {
  /** The source's own posting id; unique per provider (ledger key together with the provider id). */
  sourcePostingId: string;
  title: string;
  /** The hiring company as the source or the crawl target names it. */
  company: { name: string; domain?: string; logoUrl?: string };
  /** Primary free-text location as given. */
  location?: string;
  /** Every structured location the source gave, primary first. */
  locations: SourceLocation[];
  /**
   * The source's own remote/workplace flag, when it has one (published). `not_remote` is a flag that
   * says only that the job is not fully remote (Ashby `isRemote: false`): it rules out `remote` and
   * leaves hybrid vs on-site to the advert's text (issue #15 class 3). `remote_or_hybrid` is a flag
   * that says only that the job is not on-site (Ashby `isRemote: true`, also set on hybrid postings):
   * it is remote unless the title, location or advert says hybrid.
   */
  remoteFlag?: Remote | 'not_remote' | 'remote_or_hybrid';
  /** Employment type in the source's own vocabulary ("FullTime", "Permanent", "part_time"). */
  employmentType?: string;
  /** When the source says it was published, RFC 3339. */
  postedAt?: string;
  /** Raw, unsanitized description HTML. Enrichment sanitizes it before anything stores it. */
  descriptionHtml?: string;
  /** Plain-text description when the source provides one alongside the HTML. */
  descriptionText?: string;
  salary?: SourceSalary;
  /** The employer's application page. */
  applyUrl?: string;
  /** The posting's own public page (used to prove a vacancy dead by a 404/410). */
  postingUrl?: string;
  /** When the source says the vacancy closes (USAJOBS `close_date`), RFC 3339. */
  closesAt?: string;
  /**
   * Who posted it, when the source itself shows the poster is not the employer: a career site whose
   * JobPosting names another `hiringOrganization` than the site's owner publishes for others
   * (`jobboard`, or `staffing` when the owner is an agency); Jobsuche lists a staffing firm's offer only
   * with its temporary-work and placement-agency filters on (`staffing`). Recorded with the poster rule
   * `poster.source_stated`. Unset: the enrichment's own evidence decides.
   */
  poster?: PosterType;
  /** Hints for classification that are not themselves served (department, team, occupation series). */
  hints?: { department?: string; team?: string; occupationSeries?: string[] };
}

/** A normalized salary ready for the ledger (spec: Job salary_* fields). */
export interface NormalizedSalary {
  min?: number;
  max?: number;
  currency?: string;
  period?: SalaryPeriod;
  source: SalarySource;
  /** `min` converted to EUR per year with the indicative ECB rates; null when period or currency is unknown. */
  minAnnualEur: number | null;
  /** `max` converted the same way (issue #15: `salary_max_annual_eur`); null when max, period or currency is unknown. */
  maxAnnualEur: number | null;
}

/**
 * A posting after enrichment: every served field in its final form plus the truthful provenance of
 * each. This is what the ledger stores and compares (by content hash) across crawls.
 */
export interface NormalizedJob {
  sourcePostingId: string;
  title: string;
  companyName: string;
  companyDomain?: string;
  companyLogo?: string;
  location?: string;
  /** ISO-3166 alpha-2; omitted when ambiguous. */
  country?: string;
  city?: string;
  /** Two-letter US state code; only ever set with country US. */
  state?: string;
  remote?: Remote;
  remoteInferred: boolean;
  employmentType?: EmploymentType;
  seniority?: Seniority;
  category?: CategoryFamily;
  /** Null or >= 0.6, and null exactly when `category` is absent. */
  categoryConfidence: number | null;
  postedAt?: string;
  /** Sanitized HTML. */
  descriptionHtml?: string;
  /** Plain text extracted from the sanitized HTML, for full-text search and parsing. */
  descriptionText?: string;
  hasDescription: boolean;
  salary?: NormalizedSalary;
  applyUrl?: string;
  postingUrl?: string;
  upstreamClosesAt?: string;
  sourceType: SourceType;
  providerType: ProviderType;
  /** Set when the row was posted by a staffing agency or a job board. */
  posterType?: PosterType;
  /**
   * The poster-type rule that set `posterType` (src/enrich/poster-type.ts POSTER_RULE_IDS, e.g.
   * `poster.board_portfolio`); set exactly when `posterType` is. Kept in the ledger, not served.
   */
  posterRuleId?: string;
  fieldSources: FieldSources;
  attribution?: string;
  canonicalUrl?: string;
}

/**
 * A NormalizedJob as kept beside its ledger row (`job_enrichments.record`, src/enrich/enrichment-record.ts):
 * everything but the descriptions, which the row holds.
 */
export type EnrichmentRecord = Omit<NormalizedJob, 'descriptionHtml' | 'descriptionText'>;
