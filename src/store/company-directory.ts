/**
 * The employer directory's read side (spec: GET /v1/companies, GET /v1/companies/{slug}).
 *
 * Counts are computed from the ledger at query time, never cached, so `open_roles` reconciles exactly
 * with `GET /v1/jobs?company=<slug>` (both count `served` rows of the company):
 * - `open_roles`: served rows (live, not withheld, employer-posted);
 * - `own_site_roles`: live rows of providers that are discovery-only or not redistributable (spec:
 *   "vacancies seen on the company's own careers page under a non-redistributed source");
 * - `source_types`: distinct row-level source types of both kinds of row, `unknown` left out;
 * - `country`: the stated country, else the most frequent country of its served rows (ties: the
 *   alphabetically first);
 * - `org_type`: the stated type, else `government` when every served row comes from a government
 *   provider (a public agency hires for the government; nothing else is inferred).
 * A company is listed when `open_roles > 0`, or with `include_discovered` also when
 * `own_site_roles > 0`. Ordering: `GREATEST(open_roles, own_site_roles) DESC, name, slug` — total,
 * because slugs are unique.
 *
 * Under a country lock (spec: Authentication item 9) every count above is taken over the rows in the
 * locked country only, so the directory lists the employers with rows there, `open_roles` reconciles
 * with the locked key's `/v1/jobs?company=<slug>`, and a company with no rows there is not found. The
 * `country` filter then asks for rows in those countries: a list holding the lock changes nothing,
 * any other list returns nothing ("a request for another country returns nothing").
 */
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { CompanyFilter } from '../domain/company.ts';
import { bareDomain } from '../domain/domain-name.ts';
import type { CompaniesTable, DB } from './schema.ts';

/**
 * One directory row as the query returns it: the company's columns (`country`, `org_type` and
 * `careers_url` filled in from its rows when not stated), dates as `YYYY-MM-DD`, and the counts.
 */
export type CompanyDirectoryRow = Pick<
  Selectable<CompaniesTable>,
  'id' | 'slug' | 'name' | 'domain' | 'logo_url' | 'country' | 'industry' | 'org_type' | 'sectors' | 'website' | 'careers_url'
> & {
  website_verified_at: string | null;
  first_seen: string;
  open_roles: number;
  own_site_roles: number;
  source_types: string[];
  rank: number;
};

/** Keyset position in the directory ordering. */
export interface CompanyPosition {
  rank: number;
  name: string;
  slug: string;
}

/**
 * Per-company counts over live rows; `only` restricts the scan to one company, `countryLock` to the
 * rows of one country.
 */
function statsSql(only?: RawBuilder<unknown>, countryLock?: string): RawBuilder<unknown> {
  return sql`
    SELECT j.company_id,
      count(*) FILTER (WHERE j.served)::int AS open_roles,
      count(*) FILTER (WHERE p.discovery_only OR NOT p.redistributable)::int AS own_site_roles,
      coalesce(array_agg(DISTINCT j.source_type) FILTER (
        WHERE (j.served OR p.discovery_only OR NOT p.redistributable) AND j.source_type <> 'unknown'), '{}') AS source_types,
      mode() WITHIN GROUP (ORDER BY j.country) FILTER (WHERE j.served AND j.country IS NOT NULL) AS top_country,
      bool_and(j.provider_type = 'government') FILTER (WHERE j.served) AS government,
      (array_agg(j.posting_url ORDER BY j.first_seen_at DESC, j.id) FILTER (
        WHERE (p.discovery_only OR NOT p.redistributable) AND j.posting_url IS NOT NULL))[1] AS seen_hiring_at
    FROM jobs j
    JOIN providers p ON p.id = j.provider_id
    WHERE j.status = 'live' ${only ? sql`AND j.company_id = ${only}` : sql``} ${countryLock ? sql`AND j.country = ${countryLock}` : sql``}
    GROUP BY j.company_id`;
}

function directorySql(stats: RawBuilder<unknown>, where: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    SELECT * FROM (
      SELECT c.id, c.slug, c.name, c.domain, c.logo_url,
        coalesce(c.country, s.top_country) AS country,
        c.industry,
        coalesce(c.org_type, CASE WHEN s.government THEN 'government' END) AS org_type,
        c.sectors, c.website,
        to_char(c.website_verified_at, 'YYYY-MM-DD') AS website_verified_at,
        coalesce(c.careers_url, s.seen_hiring_at) AS careers_url,
        to_char(c.first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS first_seen,
        coalesce(s.open_roles, 0) AS open_roles,
        coalesce(s.own_site_roles, 0) AS own_site_roles,
        coalesce(s.source_types, '{}') AS source_types,
        greatest(coalesce(s.open_roles, 0), coalesce(s.own_site_roles, 0)) AS rank
      FROM companies c
      LEFT JOIN (${stats}) s ON s.company_id = c.id
    ) d
    WHERE ${where}`;
}

function filterSql(filter: CompanyFilter): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [filter.includeDiscovered ? sql`(d.open_roles > 0 OR d.own_site_roles > 0)` : sql`d.open_roles > 0`];
  if (filter.countryLock) {
    // Counts are already over the lock's rows; a country filter without the lock asks for nothing.
    if (filter.country && !filter.country.includes(filter.countryLock)) where.push(sql`false`);
  } else if (filter.country) where.push(sql`d.country = ANY(${filter.country}::text[])`);
  if (filter.orgType) where.push(sql`lower(d.org_type) = ANY(${filter.orgType}::text[])`);
  if (filter.sourceType) where.push(sql`d.source_types && ${filter.sourceType}::text[]`);
  if (filter.hasWebsite === true) where.push(sql`(d.website IS NOT NULL AND d.website_verified_at IS NOT NULL)`);
  if (filter.hasWebsite === false) where.push(sql`d.website IS NULL`);
  if (filter.q) {
    const domain = bareDomain(filter.q) ?? '';
    where.push(sql`(strpos(lower(d.name), lower(${filter.q})) > 0 OR d.slug = lower(${filter.q}) OR d.domain = ${domain})`);
  }
  return where;
}

function and(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return sql.join(parts, sql` AND `);
}

/**
 * One directory page in the total ordering, starting after `after` (keyset) or else at `offset`.
 * Reads `limit + 1` rows to know whether more follow.
 */
export async function listCompanies(
  db: Kysely<DB>,
  filter: CompanyFilter,
  page: { limit: number; offset: number; after?: CompanyPosition },
): Promise<{ rows: CompanyDirectoryRow[]; hasMore: boolean }> {
  const where = filterSql(filter);
  if (page.after) {
    const a = page.after;
    where.push(sql`(d.rank < ${a.rank} OR (d.rank = ${a.rank} AND (d.name, d.slug) > (${a.name}::text, ${a.slug}::text)))`);
  }
  const query = sql<CompanyDirectoryRow>`${directorySql(statsSql(undefined, filter.countryLock), and(where))}
    ORDER BY d.rank DESC, d.name, d.slug
    LIMIT ${page.limit + 1} OFFSET ${page.after ? 0 : page.offset}`;
  const rows = (await query.execute(db)).rows;
  const hasMore = rows.length > page.limit;
  return { rows: hasMore ? rows.slice(0, page.limit) : rows, hasMore };
}

/**
 * The company that currently holds `slug` (any company row, listed or not). With `countryLock`, its
 * counts over that country's rows, and only when it has live rows there (open or on its own site):
 * else undefined, as for an unknown slug.
 */
export async function findCompany(db: Kysely<DB>, slug: string, options: { countryLock?: string } = {}): Promise<CompanyDirectoryRow | undefined> {
  const key = slug.trim().toLowerCase();
  const id = sql`(SELECT id FROM companies WHERE slug = ${key})`;
  const where = options.countryLock ? sql`d.id = ${id} AND (d.open_roles > 0 OR d.own_site_roles > 0)` : sql`d.id = ${id}`;
  const query = sql<CompanyDirectoryRow>`${directorySql(statsSql(id, options.countryLock), where)}`;
  return (await query.execute(db)).rows[0];
}

/** The current slug of the company that once held `oldSlug`, when it was retired (spec: 301). */
export async function currentSlugFor(db: Kysely<DB>, oldSlug: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('company_slug_history as h')
    .innerJoin('companies as c', 'c.id', 'h.company_id')
    .select('c.slug')
    .where('h.old_slug', '=', oldSlug.trim().toLowerCase())
    .executeTakeFirst();
  return row?.slug;
}
