/**
 * Controlled vocabularies of the Job resource.
 *
 * Source: spec "Resources and their fields › Controlled vocabularies". Matching against these is
 * case-insensitive at the API edge; the canonical spelling below is what the ledger stores and serves.
 */

/** The 24 stored category families plus the filter-only value `uncategorised` (spec: 25 values). */
export const CATEGORY_FAMILIES = [
  'Engineering',
  'Healthcare',
  'Operations & Admin',
  'Sales',
  'Skilled Technician',
  'Retail',
  'Hospitality',
  'Finance',
  'Logistics & Transport',
  'Marketing',
  'Customer Support',
  'Education',
  'Manufacturing',
  'HR & Recruiting',
  'Data & Analytics',
  'Consulting & Strategy',
  'Construction & Trades',
  'Legal & Compliance',
  'Product',
  'Design',
  'Security',
  'Science & Research',
  'Procurement',
  'Safety & Environment',
] as const;
export type CategoryFamily = (typeof CATEGORY_FAMILIES)[number];

/** Filter value selecting rows with no confident category; never stored (spec: category vocabulary). */
export const UNCATEGORISED = 'uncategorised';

/**
 * Minimum confidence at which a category is published (spec: Job.category_confidence "Null, or >= 0.6").
 * Below it the row has no `category` and a null `category_confidence`.
 */
export const CATEGORY_CONFIDENCE_THRESHOLD = 0.6;

export const SENIORITY_LEVELS = [
  'Entry',
  'Mid',
  'Senior',
  'Lead',
  'Manager',
  'Director',
  'Executive',
  'Intern',
] as const;
export type Seniority = (typeof SENIORITY_LEVELS)[number];

/** The employment facet (spec: "the facet is authoritative"). */
export const EMPLOYMENT_TYPES = ['Full-time', 'Part-time', 'Contract', 'Temporary', 'Internship'] as const;
export type EmploymentType = (typeof EMPLOYMENT_TYPES)[number];

export const REMOTE_VALUES = ['remote', 'hybrid', 'on_site'] as const;
export type Remote = (typeof REMOTE_VALUES)[number];

/** Filter value selecting rows where a field is absent (remote, employment_type, seniority). */
export const NOT_STATED = 'not_stated';

/** Row-level source classification (spec: Job.source_type). `aggregator` and `agency` are reserved. */
export const SOURCE_TYPES = ['ats', 'career_site', 'public_agency', 'aggregator', 'agency', 'unknown'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** Provider class in the legacy vocabulary (spec: Job.provider_type). */
export const PROVIDER_TYPES = ['employer_ats', 'government', 'direct', 'aggregator'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Legacy `source_type` filter spellings and what they map to (spec: Controlled vocabularies). */
export const LEGACY_SOURCE_TYPE: Readonly<Record<string, SourceType>> = {
  employer_ats: 'ats',
  government: 'public_agency',
  direct: 'career_site',
};

export const JOB_STATUSES = ['live', 'closed'] as const;

export const CLOSED_REASONS = ['expired_upstream', 'not_seen'] as const;
export type ClosedReason = (typeof CLOSED_REASONS)[number];

/** Why a row that is not closed is still not served (spec: What the service does, item 10). */
export const WITHHELD_KINDS = ['quality_removed', 'quality_gated', 'optout_hidden'] as const;
export type WithheldKind = (typeof WITHHELD_KINDS)[number];

/** Rows posted by a staffing agency or a job board; excluded by default (spec: item 2). */
export const POSTER_TYPES = ['staffing', 'jobboard'] as const;
export type PosterType = (typeof POSTER_TYPES)[number];

export const CHANGE_KINDS = ['created', 'updated', 'delisted', 'withdrawn'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const SALARY_SOURCES = ['structured', 'parsed_description'] as const;
export type SalarySource = (typeof SALARY_SOURCES)[number];

/**
 * Salary periods the service stores. `salary_min_annual_eur` is derived only for these; any other
 * period the source states is not stored as a period and the annual figure stays null.
 */
export const SALARY_PERIODS = ['annual', 'monthly', 'weekly', 'daily', 'hourly'] as const;
export type SalaryPeriod = (typeof SALARY_PERIODS)[number];

/**
 * Multipliers to a year (spec: Freshness report › salary_normalisation.assumptions:
 * days_per_year 260, hours_per_year 2080, weeks_per_year 52).
 */
export const PERIODS_PER_YEAR: Readonly<Record<SalaryPeriod, number>> = {
  annual: 1,
  monthly: 12,
  weekly: 52,
  daily: 260,
  hourly: 2080,
};

/**
 * Two-letter US state codes accepted by the `state` filter (spec: Shared listing filters, "Two-letter
 * US state codes"): the 50 states and the District of Columbia, with their USPS names. The one list of
 * US states: location enrichment reads these names and codes (plus the other spellings in
 * src/enrich/gazetteer.ts US_STATE_ALIASES) out of locations.
 */
export const US_STATES: Readonly<Record<string, string>> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado',
  CT: 'Connecticut', DE: 'Delaware', DC: 'District of Columbia', FL: 'Florida', GA: 'Georgia',
  HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky',
  LA: 'Louisiana', ME: 'Maine', MD: 'Maryland', MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota',
  MS: 'Mississippi', MO: 'Missouri', MT: 'Montana', NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire',
  NJ: 'New Jersey', NM: 'New Mexico', NY: 'New York', NC: 'North Carolina', ND: 'North Dakota',
  OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania', RI: 'Rhode Island',
  SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VT: 'Vermont',
  VA: 'Virginia', WA: 'Washington', WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming',
};

/**
 * `source_type` values a client may filter by (spec: Controlled vocabularies, "source_type filter
 * values"). `aggregator` and `agency` are reserved: accepted, and they match no rows.
 */
export const RESERVED_SOURCE_TYPES: readonly SourceType[] = ['aggregator', 'agency'];
