/**
 * The controlled vocabularies with live-row counts, the provider list, and per-field publication
 * counts (spec: Controlled vocabularies; GET /v1/meta/facets, /v1/meta/providers, /public/facets,
 * /public/providers; Job page `completeness`). Computed in two statements over the `served` rows —
 * exactly the rows `/v1/jobs` serves by default — so a facet's count is what filtering `/v1/jobs` by
 * its value and paging to the end yields, as of `measuredAt`.
 *
 * Entry field names (`value`, `label`, `count`; provider keys) are ours: the spec does not show them.
 * They are documented in docs/listing.md and declared in the route schemas.
 */
import { sql, type Kysely } from 'kysely';
import { FIELD_SOURCE_KEYS, type FieldSourceKey } from '../domain/field-sources.ts';
import {
  CATEGORY_FAMILIES,
  EMPLOYMENT_TYPES,
  NOT_STATED,
  REMOTE_VALUES,
  SENIORITY_LEVELS,
  SOURCE_TYPES,
  UNCATEGORISED,
  US_STATES,
  type SourceType,
} from '../domain/vocabulary.ts';
import { readReportSnapshot, saveReportSnapshot } from '../store/report-snapshots.ts';
import type { DB } from '../store/schema.ts';
import { pct } from './share.ts';

/** Facet groups (spec: "Facet groups"), plus `state`, which lists the legal `state` values. */
export const FACET_GROUPS = ['family', 'country', 'city', 'state', 'remote', 'employment', 'seniority', 'source_type', 'provider'] as const;
export type FacetGroup = (typeof FACET_GROUPS)[number];

/** The `/v1/jobs` parameter each group's values are sent to. */
export const FACET_PARAMETERS: Readonly<Record<FacetGroup, string>> = {
  family: 'category',
  country: 'country',
  city: 'city',
  state: 'state',
  remote: 'remote',
  employment: 'employment_type',
  seniority: 'seniority',
  source_type: 'source_type',
  provider: 'provider',
};

/** One vocabulary value: what to send, how to show it, and how many live rows carry it. */
export interface FacetEntry {
  value: string;
  label: string;
  count: number;
}

/** One redistributable provider (spec: "Provider list entry"). */
export interface ProviderEntry {
  /** Provider id: the value of `source` on its rows and of the `provider` filter. */
  provider: string;
  label: string;
  /** Live rows. */
  live: number;
  /** Live rows with a description. */
  with_description: number;
  /** `with_description` as a percentage of `live`, one decimal; 0 when there are no live rows. */
  with_description_pct: number;
  /** Source class in the legacy vocabulary: employer_ats, government or direct. */
  provider_type: string;
  /** The provider's default row-level source_type. */
  source_type: string;
}

export interface LedgerFacets {
  /** Live rows in total. */
  liveListings: number;
  groups: Record<FacetGroup, FacetEntry[]>;
  providers: ProviderEntry[];
  /** For each field_sources key, live rows where it is `published`. */
  published: Record<FieldSourceKey, number>;
}

const REMOTE_LABELS: Readonly<Record<string, string>> = { remote: 'Remote', hybrid: 'Hybrid', on_site: 'On-site' };
const SOURCE_TYPE_LABELS: Readonly<Record<SourceType, string>> = {
  ats: 'Employer applicant-tracking system',
  career_site: "Company's own careers page",
  public_agency: 'Public employment agency',
  aggregator: 'Aggregator (reserved; matches no rows)',
  agency: 'Staffing agency (reserved; matches no rows)',
  unknown: 'Unclassified source',
};
const NOT_STATED_LABEL = 'Not stated';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

function countryLabel(code: string): string {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

interface GroupRow {
  g_category: number;
  category: string | null;
  g_country: number;
  country: string | null;
  g_city: number;
  city_key: string | null;
  city: string | null;
  g_state: number;
  state: string | null;
  g_remote: number;
  remote: string | null;
  g_employment: number;
  employment_type: string | null;
  g_seniority: number;
  seniority: string | null;
  g_source_type: number;
  source_type: string | null;
  g_provider: number;
  provider_id: string | null;
  live: number;
  with_description: number;
}

/**
 * Entries for a closed vocabulary: every legal value (zero counts included, so the group also lists
 * what the filter accepts), then sorted by count, most first, then label.
 */
function closedGroup(values: readonly string[], counts: Map<string | null, number>, label: (v: string) => string, nullValue?: string): FacetEntry[] {
  const entries = values.map((value) => ({ value, label: label(value), count: counts.get(value) ?? 0 }));
  if (nullValue !== undefined) entries.push({ value: nullValue, label: label(nullValue), count: counts.get(null) ?? 0 });
  return sortEntries(entries);
}

function sortEntries(entries: FacetEntry[]): FacetEntry[] {
  return entries.sort((a, b) => b.count - a.count || a.label.localeCompare(b.label, 'en') || a.value.localeCompare(b.value, 'en'));
}

/**
 * Compute every facet group, the provider list and the publication counts from the ledger.
 * Two statements, each one pass over the served rows.
 * @throws the database error (the API maps it to 503 timeout or 500 query_failed).
 */
export async function computeFacets(db: Kysely<DB>): Promise<LedgerFacets> {
  const grouped = await sql<GroupRow>`
    SELECT grouping(category)::int AS g_category, category,
           grouping(country)::int AS g_country, country,
           grouping(lower(city))::int AS g_city, lower(city) AS city_key, min(city) AS city,
           grouping(state)::int AS g_state, state,
           grouping(remote)::int AS g_remote, remote,
           grouping(employment_type)::int AS g_employment, employment_type,
           grouping(seniority)::int AS g_seniority, seniority,
           grouping(source_type)::int AS g_source_type, source_type,
           grouping(provider_id)::int AS g_provider, provider_id,
           count(*)::int AS live,
           count(*) FILTER (WHERE has_description)::int AS with_description
      FROM jobs
     WHERE served
     GROUP BY GROUPING SETS ((category), (country), (lower(city)), (state), (remote), (employment_type), (seniority), (source_type), (provider_id))
  `.execute(db);

  const publishedCounts = FIELD_SOURCE_KEYS.map((key) => sql<number>`count(*) FILTER (WHERE field_sources ->> ${key} = 'published')::int`.as(key));
  const totals = await db
    .selectFrom('jobs')
    .where('served', '=', true)
    .select((eb) => [eb.fn.countAll<number>().as('live'), ...publishedCounts])
    .executeTakeFirstOrThrow();

  const providers = await db
    .selectFrom('providers')
    .select(['id', 'label', 'provider_class', 'source_type'])
    .where('redistributable', '=', true)
    .where('discovery_only', '=', false)
    .execute();

  const counts = {
    category: new Map<string | null, number>(),
    country: new Map<string, number>(),
    city: new Map<string, { label: string; count: number }>(),
    state: new Map<string | null, number>(),
    remote: new Map<string | null, number>(),
    employment: new Map<string | null, number>(),
    seniority: new Map<string | null, number>(),
    sourceType: new Map<string | null, number>(),
    provider: new Map<string, { live: number; withDescription: number }>(),
  };
  for (const row of grouped.rows) {
    if (row.g_category === 0) counts.category.set(row.category, row.live);
    else if (row.g_country === 0) {
      if (row.country !== null) counts.country.set(row.country, row.live);
    } else if (row.g_city === 0) {
      if (row.city_key !== null && row.city !== null) counts.city.set(row.city_key, { label: row.city, count: row.live });
    } else if (row.g_state === 0) counts.state.set(row.state, row.live);
    else if (row.g_remote === 0) counts.remote.set(row.remote, row.live);
    else if (row.g_employment === 0) counts.employment.set(row.employment_type, row.live);
    else if (row.g_seniority === 0) counts.seniority.set(row.seniority, row.live);
    else if (row.g_source_type === 0) counts.sourceType.set(row.source_type, row.live);
    else if (row.g_provider === 0 && row.provider_id !== null) {
      counts.provider.set(row.provider_id, { live: row.live, withDescription: row.with_description });
    }
  }

  const providerEntries = providers
    .map((p): ProviderEntry => {
      const c = counts.provider.get(p.id) ?? { live: 0, withDescription: 0 };
      return {
        provider: p.id,
        label: p.label,
        live: c.live,
        with_description: c.withDescription,
        with_description_pct: pct(c.withDescription, c.live),
        provider_type: p.provider_class,
        source_type: p.source_type,
      };
    })
    .sort((a, b) => b.live - a.live || a.provider.localeCompare(b.provider, 'en'));

  const groups: Record<FacetGroup, FacetEntry[]> = {
    family: closedGroup(CATEGORY_FAMILIES, counts.category, (v) => (v === UNCATEGORISED ? 'Uncategorised' : v), UNCATEGORISED),
    // Open vocabularies list the values live rows carry; the filters accept any value without error.
    country: sortEntries([...counts.country].map(([value, count]) => ({ value, label: countryLabel(value), count }))),
    city: sortEntries([...counts.city.values()].map(({ label, count }) => ({ value: label, label, count }))),
    state: closedGroup(Object.keys(US_STATES), counts.state, (v) => US_STATES[v] ?? v),
    remote: closedGroup(REMOTE_VALUES, counts.remote, (v) => REMOTE_LABELS[v] ?? NOT_STATED_LABEL, NOT_STATED),
    employment: closedGroup(EMPLOYMENT_TYPES, counts.employment, (v) => (v === NOT_STATED ? NOT_STATED_LABEL : v), NOT_STATED),
    seniority: closedGroup(SENIORITY_LEVELS, counts.seniority, (v) => (v === NOT_STATED ? NOT_STATED_LABEL : v), NOT_STATED),
    source_type: closedGroup(SOURCE_TYPES, counts.sourceType, (v) => SOURCE_TYPE_LABELS[v as SourceType] ?? v),
    provider: sortEntries(providerEntries.map((p) => ({ value: p.provider, label: p.label, count: p.live }))),
  };

  const published = Object.fromEntries(FIELD_SOURCE_KEYS.map((k) => [k, Number((totals as Record<string, unknown>)[k])])) as Record<FieldSourceKey, number>;
  return { liveListings: Number(totals.live), groups, providers: providerEntries, published };
}

/**
 * Age after which the facet snapshot is recomputed, seconds: "a snapshot refreshed every few
 * minutes" (spec: GET /v1/meta/facets), the same as the keyless facets' cache lifetime.
 */
export const FACETS_MAX_AGE_SECONDS = 300;

/** Name of the stored facet snapshot in `report_snapshots`. */
export const FACETS_SNAPSHOT = 'facets';

/**
 * Compute the facets over `source` (default `db`; a read replica may do the counting) and store them
 * in `db` as the cluster's shared snapshot (the `facet-snapshot` chore, src/chores/chores.ts; and any
 * process that finds no fresh one).
 * @returns what was stored and when it was measured.
 * @throws the database error.
 */
export async function refreshFacetSnapshot(db: Kysely<DB>, now: Date = new Date(), source: Kysely<DB> = db): Promise<{ value: LedgerFacets; measuredAt: Date }> {
  const started = performance.now();
  const value = await computeFacets(source);
  await saveReportSnapshot(db, { name: FACETS_SNAPSHOT, data: JSON.stringify(value), measuredAt: now, durationMs: Math.round(performance.now() - started) });
  return { value, measuredAt: now };
}

/**
 * The cluster's shared facet snapshot read through `reader`, when it was measured less than
 * `maxAgeSeconds` ago; otherwise (none stored yet, or the chore has stalled) a new one counted on
 * `reader` and stored on `primary`, so one slow chore never leaves a process serving old counts.
 * @throws the database error.
 */
export async function sharedFacets(primary: Kysely<DB>, reader: Kysely<DB>, maxAgeSeconds: number, now: Date = new Date()): Promise<{ value: LedgerFacets; measuredAt: Date }> {
  const row = await readReportSnapshot(reader, FACETS_SNAPSHOT);
  if (row && now.getTime() - row.measured_at.getTime() <= maxAgeSeconds * 1000) return { value: row.data as LedgerFacets, measuredAt: row.measured_at };
  return refreshFacetSnapshot(primary, now, reader);
}
