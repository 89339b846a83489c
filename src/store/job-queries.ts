/**
 * The ledger's read side for job rows: the SQL of the shared listing filters and of the serving scope,
 * keyset-paged listings (read in one query or, where a rare match could make the planner walk the whole
 * date index, in a bounded window and then through the best index: docs/query-plans.md) and single-row
 * lookups. It returns rows; the served Job shape is made from them by `http/presenters/job.ts`.
 */
import { randomUUID } from 'node:crypto';
import { sql, type CompiledQuery, type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { CursorPosition } from '../domain/cursor.ts';
import { isDefaultScope, type JobFilter, type ServingScope } from '../domain/listing-filter.ts';
import { NOT_STATED, RESERVED_SOURCE_TYPES, UNCATEGORISED } from '../domain/vocabulary.ts';
import { CLOSED_SERVED } from './populations.ts';
import type { DB, JobRow } from './schema.ts';

/**
 * The columns of a job row the served Job shape reads (http/presenters/job.ts), and nothing more:
 * fetching and decoding the other stored columns (hashes, counters, internal stamps) was a third of
 * a listing's Node.js time (issue 22).
 */
export const JOB_COLUMNS = [
  'j.id',
  'j.slug',
  'j.provider_id',
  'j.company_name',
  'j.title',
  'j.location',
  'j.country',
  'j.city',
  'j.remote',
  'j.remote_inferred',
  'j.employment_type',
  'j.seniority',
  'j.category',
  'j.category_confidence',
  'j.posted_at',
  'j.first_seen_at',
  'j.last_verified_at',
  'j.status',
  'j.closed_at',
  'j.closed_reason',
  'j.upstream_expired_at',
  'j.quality_verdict',
  'j.quality_rule_id',
  'j.quality_matched_host',
  'j.apply_url',
  'j.source_type',
  'j.provider_type',
  'j.has_description',
  'j.description_html',
  'j.salary_min',
  'j.salary_max',
  'j.salary_currency',
  'j.salary_period',
  'j.salary_source',
  'j.salary_min_annual_eur',
  'j.salary_max_annual_eur',
  'j.field_sources',
  'j.attribution',
  'j.state',
  'j.upstream_closes_at',
  'j.canonical_url',
  'j.repost_count',
] as const;

/** The name of a column of {@link JOB_COLUMNS}, without its alias. */
type ServedColumn = (typeof JOB_COLUMNS)[number] extends `j.${infer C}` ? C : never;

/** A job row's served columns joined with its company's current slug and logo. */
export type JobViewRow = Pick<JobRow, ServedColumn & keyof JobRow> & {
  company_slug: string;
  company_logo: string | null;
  /** The company's registrable domain (companies.domain), served as company_domain (issue 19). */
  company_domain: string | null;
  sort_key_text: string;
};

const LIST_COLUMNS = JOB_COLUMNS.filter((c): c is Exclude<(typeof JOB_COLUMNS)[number], 'j.description_html'> => c !== 'j.description_html');

export type JobsEb = ExpressionBuilder<DB & { j: DB['jobs'] } & { c: DB['companies'] }, 'j' | 'c'>;
type NullableColumn = 'j.category' | 'j.remote' | 'j.employment_type' | 'j.seniority' | 'j.country' | 'j.state' | 'c.domain';

/**
 * `column IN values`, where the marker value (`not_stated`, `uncategorised`) selects rows where the
 * column is null. `exclude` negates it null-safely: a row is dropped only when it matches.
 */
function inWithNull(eb: JobsEb, column: NullableColumn, values: readonly string[], marker: string | undefined, exclude = false): Expression<SqlBool> {
  const concrete = values.filter((v) => v !== marker);
  const withNull = marker !== undefined && values.includes(marker);
  if (!exclude) {
    const ors: Expression<SqlBool>[] = [];
    if (concrete.length > 0) ors.push(eb(column, 'in', concrete));
    if (withNull) ors.push(eb(column, 'is', null));
    return eb.or(ors);
  }
  const keepOthers = concrete.length > 0 ? eb(column, 'not in', concrete) : sql<SqlBool>`true`;
  return withNull ? eb.and([eb(column, 'is not', null), keepOthers]) : eb.or([eb(column, 'is', null), keepOthers]);
}

/** A web-search query in the `simple` configuration (spec: "No stemming"); never fails on user input. */
function webSearch(text: string) {
  return sql`websearch_to_tsquery('simple', jobledger_search_text(${text}))`;
}

/**
 * The company ids the company filters (`company`, `company_domain`, `exclude_company_domain`) stand
 * for, looked up before the listing query: with concrete ids the planner can use the per-company
 * index and its statistics, where a join condition on `companies` makes it walk the whole listing
 * order for a company with no rows (measured in docs/query-plans.md).
 */
export interface ResolvedCompanies {
  /** Rows must belong to one of these (both `company` and `company_domain` matched). */
  include?: string[];
  /** Rows of these companies are dropped (`exclude_company_domain`). */
  exclude?: string[];
}

/** Look up {@link ResolvedCompanies} for `filter`; no query when it has no company filter. */
export async function resolveCompanies(db: Kysely<DB>, filter: JobFilter): Promise<ResolvedCompanies> {
  const resolved: ResolvedCompanies = {};
  if (filter.company || filter.companyDomain) {
    let query = db.selectFrom('companies').select('id');
    if (filter.company) query = query.where('slug', 'in', filter.company);
    if (filter.companyDomain) query = query.where('domain', 'in', filter.companyDomain);
    resolved.include = (await query.execute()).map((r) => r.id);
  }
  if (filter.excludeCompanyDomain) {
    resolved.exclude = (await db.selectFrom('companies').select('id').where('domain', 'in', filter.excludeCompanyDomain).execute()).map((r) => r.id);
  }
  return resolved;
}

/** True when the filter has a full-text condition that selects rows (title_exclude only drops them). */
function hasTextSearch(filter: JobFilter): boolean {
  return Boolean(filter.q || filter.title || filter.descriptionContains);
}

/**
 * SQL conditions for the shared listing filters (spec: Endpoints › Shared listing filters), over
 * `jobs as j` joined with `companies as c`. Every value is bound as a parameter. The one entry point
 * for every endpoint with the shared filters (`/v1/jobs`, `/v1/jobs/closed`, `/v1/export`).
 *
 * With `companies` (from {@link resolveCompanies}) the company filters compare `j.company_id` with
 * the resolved ids and need no join; without it they compare `c.slug` and `c.domain`.
 */
export function filterConditions(eb: JobsEb, filter: JobFilter, companies?: ResolvedCompanies): Expression<SqlBool>[] {
  return [...structuredConditions(eb, filter, companies), ...textConditions(filter)];
}

/** The conditions of {@link filterConditions} other than full text. */
function structuredConditions(eb: JobsEb, filter: JobFilter, companies?: ResolvedCompanies): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [];
  if (filter.category) where.push(inWithNull(eb, 'j.category', filter.category, UNCATEGORISED));
  if (filter.excludeCategory) where.push(inWithNull(eb, 'j.category', filter.excludeCategory, UNCATEGORISED, true));
  if (filter.country) where.push(eb('j.country', 'in', filter.country));
  if (filter.excludeCountry) where.push(inWithNull(eb, 'j.country', filter.excludeCountry, undefined, true));
  if (filter.city) where.push(eb(sql<string>`lower(j.city)`, 'in', filter.city));
  // Only US rows carry a state (CHECK jobs_state_only_in_us), so rows elsewhere never match.
  if (filter.state) where.push(eb('j.state', 'in', filter.state));
  if (filter.remote) where.push(inWithNull(eb, 'j.remote', filter.remote, NOT_STATED));
  if (filter.remoteConfirmed !== undefined) {
    // The source stated the remote status exactly when a value is present and was not derived.
    where.push(
      filter.remoteConfirmed
        ? eb.and([eb('j.remote', 'is not', null), eb('j.remote_inferred', '=', false)])
        : eb.or([eb('j.remote', 'is', null), eb('j.remote_inferred', '=', true)]),
    );
  }
  if (filter.employmentType) where.push(inWithNull(eb, 'j.employment_type', filter.employmentType, NOT_STATED));
  if (filter.seniority) where.push(inWithNull(eb, 'j.seniority', filter.seniority, NOT_STATED));
  if (filter.provider) where.push(eb('j.provider_id', 'in', filter.provider));
  if (filter.excludeProvider) where.push(eb('j.provider_id', 'not in', filter.excludeProvider));
  if (filter.sourceType) {
    // The reserved values are accepted and match no rows (spec: source_type).
    const real = filter.sourceType.filter((v) => !RESERVED_SOURCE_TYPES.includes(v));
    where.push(real.length > 0 ? eb('j.source_type', 'in', real) : sql<SqlBool>`false`);
  }
  if (filter.excludeSourceType) {
    const real = filter.excludeSourceType.filter((v) => !RESERVED_SOURCE_TYPES.includes(v));
    if (real.length > 0) where.push(eb('j.source_type', 'not in', real));
  }
  if (companies?.include) where.push(companies.include.length > 0 ? eb('j.company_id', 'in', companies.include) : sql<SqlBool>`false`);
  else {
    if (filter.company) where.push(eb('c.slug', 'in', filter.company));
    if (filter.companyDomain) where.push(eb('c.domain', 'in', filter.companyDomain));
  }
  if (companies?.exclude) {
    if (companies.exclude.length > 0) where.push(eb('j.company_id', 'not in', companies.exclude));
  } else if (filter.excludeCompanyDomain) {
    where.push(inWithNull(eb, 'c.domain', filter.excludeCompanyDomain, undefined, true));
  }
  if (filter.hasSalary === 'structured') where.push(eb('j.salary_source', '=', 'structured'));
  if (filter.hasSalary === 'any') where.push(eb('j.salary_source', 'is not', null));
  if (filter.hasSalary === 'none') where.push(eb('j.salary_source', 'is', null));
  if (filter.minSalary !== undefined) where.push(eb('j.salary_min_annual_eur', '>=', filter.minSalary));
  if (filter.maxSalary !== undefined) where.push(eb('j.salary_min_annual_eur', '<=', filter.maxSalary));
  if (filter.hasDescription !== undefined || filter.descriptionContains) {
    // description_contains implies has_description=true (spec); an explicit false then matches nothing.
    where.push(eb('j.has_description', '=', filter.descriptionContains ? filter.hasDescription !== false : filter.hasDescription!));
  }
  if (filter.requireFields) {
    if (filter.requireFields.includes('source_type')) {
      // Spec: require_fields "source_type is accepted and matches nothing" (it is reserved, always inferred).
      where.push(sql<SqlBool>`false`);
    } else {
      const published = Object.fromEntries(filter.requireFields.map((k) => [k, 'published']));
      where.push(sql<SqlBool>`j.field_sources @> ${JSON.stringify(published)}::jsonb`);
    }
  }
  // sort_key = coalesce(posted_at, -infinity) is never later than a real instant when posted_at is
  // null, so this is exactly posted_at > x, and it can walk the listing-order indexes.
  if (filter.postedAfter) where.push(eb('j.sort_key', '>', filter.postedAfter));
  if (filter.countryLock) where.push(eb('j.country', '=', filter.countryLock));
  if (filter.verifiedAfter) where.push(eb('j.last_verified_at', '>', filter.verifiedAfter));
  return where;
}

/** The full-text conditions of {@link filterConditions}. */
function textConditions(filter: JobFilter): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [];
  if (filter.q) where.push(sql<SqlBool>`j.search_tsv @@ ${webSearch(filter.q)}`);
  if (filter.title) where.push(sql<SqlBool>`j.title_tsv @@ ${webSearch(filter.title)}`);
  if (filter.titleExclude) where.push(sql<SqlBool>`NOT (j.title_tsv @@ ${webSearch(filter.titleExclude)})`);
  if (filter.descriptionContains) where.push(sql<SqlBool>`j.description_tsv @@ ${webSearch(filter.descriptionContains)}`);
  return where;
}

/**
 * SQL conditions for the population a listing reads (spec: GET /v1/jobs `status`, `quality`,
 * `include_poster_type`). The default scope is exactly the `served` rows, which every partial
 * listing index covers. Removed and opted-out rows are never re-admitted, whatever the scope.
 */
function scopeConditions(eb: JobsEb, scope: ServingScope): Expression<SqlBool>[] {
  // The constant is written into the statement, not bound: a plan made without the values (below,
  // listJobsQueries) can then use the partial indexes on `served`.
  if (isDefaultScope(scope)) return [sql<SqlBool>`j.served`];
  const where: Expression<SqlBool>[] = [];
  if (scope.status !== 'any') where.push(eb('j.status', '=', scope.status));
  where.push(
    scope.qualityAll ? eb.or([eb('j.withheld_kind', 'is', null), eb('j.withheld_kind', '=', 'quality_gated')]) : eb('j.withheld_kind', 'is', null),
  );
  where.push(
    scope.posterTypes.length > 0 ? eb.or([eb('j.poster_type', 'is', null), eb('j.poster_type', 'in', scope.posterTypes)]) : eb('j.poster_type', 'is', null),
  );
  return where;
}

function afterCondition(eb: JobsEb, after: CursorPosition | undefined): Expression<SqlBool>[] {
  if (!after) return [];
  return [eb(eb.refTuple('j.sort_key', 'j.id'), '<', eb.tuple(sql<Date>`${after.key}::timestamptz`, sql<string>`${after.id}::uuid`))];
}

export interface ListPage {
  rows: JobViewRow[];
  hasMore: boolean;
  /** Position of the last row, for the next cursor; undefined when there is no next page. */
  next?: CursorPosition;
}

/** What one page asks for. */
export interface PageRequest {
  limit: number;
  after?: CursorPosition;
  includeDescription?: boolean;
  /**
   * Read each row's stored served Job JSON (`jobs.served_json`, migration 033) instead of its columns
   * ({@link listJobLines}); only for pages without descriptions and quality fields, which it lacks.
   */
  servedLines?: boolean;
}

/**
 * Rows examined by the bounded first step of a guarded listing: 64 per row of the page, at least
 * 1,000 and at most 20,000. A filter matching at least one row in 64 fills the page in this step,
 * stopping as soon as it has; a rarer one has few enough matches that collecting them all is cheaper
 * than walking on (the crossover on a million rows, measured in docs/query-plans.md).
 */
function guardWindow(limit: number): number {
  return Math.min(20_000, Math.max(1_000, 64 * (limit + 1)));
}

/**
 * How a page is read (docs/query-plans.md):
 * - `direct`: one query in the listing order; the planner picks the per-filter index. Used for the
 *   served rows with structured filters only, where its estimates are sound.
 * - `guarded`: used with a full-text condition or outside the served rows, where a rare (or absent)
 *   match could make the planner walk the whole date index. Step one examines a bounded window of
 *   rows in listing order (`window`); if that does not fill the page, step two (`complete`) collects
 *   every match through the best access path (GIN, per-filter index or a scan) and sorts them.
 *   Either step's page is exact: the window is a prefix of the listing order.
 */
export type ListingQueries =
  | { strategy: 'direct'; direct: ReturnType<typeof selectPage> }
  | { strategy: 'guarded'; window: ReturnType<typeof selectPage>; complete: ReturnType<typeof selectPage> };

/** The page columns, from `jobs as j` and `companies as c`, in the listing order. */
function selectPage<QB extends SelectQueryBuilder<DB & { j: DB['jobs'] } & { c: DB['companies'] }, 'j' | 'c', object>>(query: QB, page: PageRequest) {
  const columns = () =>
    query
      .select(LIST_COLUMNS)
      // Descriptions are the bulk of a row; they are read only when the page will carry them.
      .select(page.includeDescription ? sql<string | null>`j.description_html`.as('description_html') : sql<null>`null::text`.as('description_html'))
      .select(['c.slug as company_slug', 'c.logo_url as company_logo', 'c.domain as company_domain', sql<string>`j.sort_key::text`.as('sort_key_text')]);
  // The stored served Job (migration 033) and what the next cursor needs, nothing else. Typed as the
  // columns' query so both build the same statements around it; listJobLines reads its own row type.
  if (page.servedLines) return query.select(['j.id', 'j.served_json', sql<string>`j.sort_key::text`.as('sort_key_text')]) as unknown as ReturnType<typeof columns>;
  return columns();
}

/**
 * The queries of one page (see {@link ListingQueries}), unexecuted: for {@link listJobs}, and for
 * `EXPLAIN` in docs/query-plans.md. Each returns up to `limit + 1` rows.
 * @param companies what {@link resolveCompanies} found for `filter`.
 * @throws Error when `filter` has company filters that `companies` does not resolve.
 */
export function listJobsQueries(db: Kysely<DB>, filter: JobFilter, scope: ServingScope, page: PageRequest, companies: ResolvedCompanies): ListingQueries {
  // The bounded inner queries do not join `companies`, so company filters must arrive as ids.
  if (((filter.company || filter.companyDomain) && !companies.include) || (filter.excludeCompanyDomain && !companies.exclude)) {
    throw new Error('listJobsQueries: pass the company ids resolveCompanies() found for this filter');
  }
  const fetch = page.limit + 1;
  const defaultScope = isDefaultScope(scope);
  // A page of stored lines reads no `companies` column: the lines carry the company's fields, and
  // company filters arrive here as resolved ids. The join then keeps every row (`jobs.company_id` is
  // NOT NULL and references `companies`), yet PostgreSQL planned it at every request: on 200,000 rows
  // the salary + date page ran at 1,240 statements/s with it and 3,990 without (issue 22,
  // bench/README.md). Such a query is typed as the joined one; it names no `c` column.
  type Joined<Q> = Q extends SelectQueryBuilder<infer D, infer T, infer O> ? SelectQueryBuilder<D & { c: DB['companies'] }, T | 'c', O> : never;
  const joinCompanies = <Q extends SelectQueryBuilder<DB & { j: DB['jobs'] }, 'j', object>>(query: Q): Joined<Q> =>
    (page.servedLines ? query : query.innerJoin('companies as c', 'c.id', 'j.company_id')) as unknown as Joined<Q>;

  if (defaultScope && !hasTextSearch(filter)) {
    // The page size, an integer the query parser made, is written into the statement: the first page
    // of the served rows without filters then has no parameter at all, and PostgreSQL plans a named
    // statement without parameters once per session instead of at every execution (plancache.c,
    // choose_custom_plan; prepared-statements.ts). Planning was two thirds of that statement's time
    // (issue 22, bench/README.md).
    const direct = selectPage(joinCompanies(db.selectFrom('jobs as j')), page)
      .where((eb) => eb.and([...scopeConditions(eb, scope), ...filterConditions(eb, filter, companies), ...afterCondition(eb, page.after)]))
      .orderBy('j.sort_key', 'desc')
      .orderBy('j.id', 'desc')
      .limit(sql.lit(Math.trunc(fetch)));
    return { strategy: 'direct', direct };
  }

  // Step one. In the served rows the structured filters stay in the bounded inner query, where the
  // per-filter indexes apply; outside them only the scope does, because a filter there has no index
  // of its own and could make the inner query itself walk every row.
  const inner = db
    .selectFrom('jobs as j')
    .select(['j.id', 'j.sort_key'])
    .where((eb) => {
      // Resolved company filters reference no `c` column, so the inner query needs no join.
      const e = eb as unknown as JobsEb;
      return eb.and([...scopeConditions(e, scope), ...(defaultScope ? structuredConditions(e, filter, companies) : []), ...afterCondition(e, page.after)]);
    })
    .orderBy('j.sort_key', 'desc')
    .orderBy('j.id', 'desc')
    .limit(guardWindow(page.limit))
    .as('w');
  const window = selectPage(
    joinCompanies(db.selectFrom(inner).innerJoin('jobs as j', 'j.id', 'w.id')),
    page,
  )
    .where((eb) => {
      const e = eb as unknown as JobsEb;
      return eb.and(defaultScope ? textConditions(filter) : filterConditions(e, filter, companies));
    })
    .orderBy(sql`w.sort_key`, 'desc')
    .orderBy(sql`w.id`, 'desc')
    .limit(fetch);

  // Step two: every match, materialized, so the planner cannot turn it back into an order walk; the
  // top of it is sorted first and only those rows are read in full.
  const complete = selectPage(
    db
      .with(
        (cte) => cte('m').materialized(),
        (qb) =>
          qb
            .selectFrom('jobs as j')
            .select(['j.id', 'j.sort_key'])
            .where((eb) => {
              const e = eb as unknown as JobsEb;
              return eb.and([...scopeConditions(e, scope), ...filterConditions(e, filter, companies), ...afterCondition(e, page.after)]);
            }),
      )
      .selectFrom((qb) => qb.selectFrom('m').select(['m.id', 'm.sort_key']).orderBy('m.sort_key', 'desc').orderBy('m.id', 'desc').limit(fetch).as('t'))
      .innerJoin('jobs as j', 'j.id', 't.id')
      .$call(joinCompanies),
    page,
  )
    .orderBy(sql`t.sort_key`, 'desc')
    .orderBy(sql`t.id`, 'desc');
  return { strategy: 'guarded', window, complete };
}

/**
 * A listing's statements compiled once per query shape (issue 22: Kysely building and compiling the
 * query was a tenth of a listing request's Node.js time, 65-125 µs, on every request). The shape is
 * everything but the cursor position: filter, scope, page size, descriptions, resolved companies,
 * first page or not. A cursor page's statements are compiled with two placeholder values in the
 * cursor's place, which each request swaps for its own position; every other value of the statement
 * is the shape's own. Placeholders are random per process, so no value a client sends can equal them.
 */
const AFTER_KEY = `\u0000after-key-${randomUUID()}`;
const AFTER_ID = `\u0000after-id-${randomUUID()}`;
/** Most shapes kept per process (least recently used dropped first); each is a few KB of SQL and syntax tree. */
const MAX_COMPILED_SHAPES = 256;

interface CompiledListing {
  /** The direct query, or the guarded window. */
  first: CompiledQuery;
  /** The guarded strategy's complete query, run when the window does not fill the page. */
  second?: CompiledQuery;
  /**
   * True when the cursor position is the statements' only parameters (a cursor page of a listing
   * without filters): no value a request brings changes their best plan, so one generic plan per
   * session serves every page (see {@link listJobs}).
   */
  positionOnly: boolean;
}

const compiledListings = new Map<string, CompiledListing>();

/** The compiled statements of one listing shape (see {@link AFTER_KEY}), from the cache or compiled now. */
function compiledListing(db: Kysely<DB>, filter: JobFilter, scope: ServingScope, page: PageRequest, companies: ResolvedCompanies): CompiledListing {
  const shape = JSON.stringify([filter, scope, page.limit, page.includeDescription === true, page.servedLines === true, page.after !== undefined, companies]);
  const cached = compiledListings.get(shape);
  if (cached) {
    compiledListings.delete(shape);
    compiledListings.set(shape, cached);
    return cached;
  }
  const queries = listJobsQueries(db, filter, scope, { ...page, after: page.after && { key: AFTER_KEY, id: AFTER_ID } }, companies);
  const statements = queries.strategy === 'direct' ? { first: queries.direct.compile() } : { first: queries.window.compile(), second: queries.complete.compile() };
  const positionOnly = [statements.first, statements.second].every((c) => !c || (c.parameters.length > 0 && c.parameters.every((p) => p === AFTER_KEY || p === AFTER_ID)));
  const compiled = { ...statements, positionOnly };
  if (compiledListings.size >= MAX_COMPILED_SHAPES) compiledListings.delete(compiledListings.keys().next().value!);
  compiledListings.set(shape, compiled);
  return compiled;
}

/** `compiled` with this page's cursor position in place of the placeholders. */
function atPosition(compiled: CompiledQuery, after: CursorPosition | undefined): CompiledQuery {
  if (!after) return compiled;
  return { ...compiled, parameters: compiled.parameters.map((p) => (p === AFTER_KEY ? after.key : p === AFTER_ID ? after.id : p)) };
}

/**
 * The statements {@link listJobs} runs for one page, compiled: for the cache's test, which holds them
 * equal to a fresh compilation of {@link listJobsQueries}.
 */
export function compiledListingQueries(db: Kysely<DB>, filter: JobFilter, scope: ServingScope, page: PageRequest, companies: ResolvedCompanies): CompiledQuery[] {
  const compiled = compiledListing(db, filter, scope, page, companies);
  return [compiled.first, ...(compiled.second ? [compiled.second] : [])].map((c) => atPosition(c, page.after));
}

/**
 * One page of rows in the listing order `posted_at DESC NULLS LAST, id DESC` (spec: GET /v1/jobs),
 * after `page.after` when given, from the population `scope` selects.
 *
 * Plans: `db`'s sessions plan a statement with parameters at every execution, with its values (the
 * filtered listings need that, docs/query-plans.md). A cursor page of a listing without filters has
 * the cursor position as its only parameters, whose values never change the best plan (the walk of
 * the order index from that position); it runs on `genericDb`, sessions that keep one generic plan per
 * named statement (Database.genericReader), when the caller gives them. Issue 22: planning was about
 * half of that page's PostgreSQL time (bench/README.md).
 * @throws the database error (the API maps a statement timeout to 503 `timeout`, anything else to 500).
 */
export async function listJobs(db: Kysely<DB>, filter: JobFilter, scope: ServingScope, page: PageRequest, genericDb: Kysely<DB> = db): Promise<ListPage> {
  return readListing<JobViewRow>(db, filter, scope, { ...page, servedLines: false }, genericDb);
}

/** One page as {@link listJobLines} reads it: each row's served Job JSON text. */
export interface LinePage {
  /** Each row's `jobs.served_json`: the Job as the JSON answers write it, without `description`. */
  rows: string[];
  hasMore: boolean;
  next?: CursorPosition;
}

/**
 * The page {@link listJobs} reads, as the rows' stored served Job JSON (migration 033): the same rows,
 * order, statements and sessions, one text column per row instead of some 40 that the API decoded,
 * presented and serialized (issue 22). For pages without descriptions and without quality fields.
 * @throws the database error, as {@link listJobs}.
 */
export async function listJobLines(db: Kysely<DB>, filter: JobFilter, scope: ServingScope, page: Omit<PageRequest, 'includeDescription' | 'servedLines'>, genericDb: Kysely<DB> = db): Promise<LinePage> {
  const read = await readListing<{ id: string; served_json: string; sort_key_text: string }>(db, filter, scope, { ...page, servedLines: true }, genericDb);
  return { rows: read.rows.map((r) => r.served_json), hasMore: read.hasMore, next: read.next };
}

/** The rows of one page (see {@link listJobs}), as the compiled statements select them. */
async function readListing<R extends { id: string; sort_key_text: string }>(db: Kysely<DB>, filter: JobFilter, scope: ServingScope, page: PageRequest, genericDb: Kysely<DB>): Promise<{ rows: R[]; hasMore: boolean; next?: CursorPosition }> {
  const compiled = compiledListing(db, filter, scope, page, await resolveCompanies(db, filter));
  const on = compiled.positionOnly ? genericDb : db;
  let rows = (await on.executeQuery<R>(atPosition(compiled.first, page.after))).rows;
  if (compiled.second && rows.length <= page.limit) rows = (await on.executeQuery<R>(atPosition(compiled.second, page.after))).rows;
  const hasMore = rows.length > page.limit;
  const pageRows = hasMore ? rows.slice(0, page.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { rows: pageRows, hasMore, next: hasMore && last ? { key: last.sort_key_text, id: last.id } : undefined };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One row by uuid or slug (spec: GET /v1/jobs/{id}). Only served rows, plus closed rows when
 * `includeClosed` (those that were not withheld when they closed, as in /v1/jobs/closed); withheld
 * rows are never returned. Its one parameter, the id or slug, never changes its plan (a unique index
 * lookup): the routes run it on Database.genericReader, planned once per session (issue 22).
 */
export async function findJob(db: Kysely<DB>, idOrSlug: string, options: { includeClosed: boolean }): Promise<JobViewRow | undefined> {
  const key = idOrSlug.trim().toLowerCase();
  const row = await db
    .selectFrom('jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .select(JOB_COLUMNS)
    .select(['c.slug as company_slug', 'c.logo_url as company_logo', 'c.domain as company_domain', sql<string>`j.sort_key::text`.as('sort_key_text')])
    .where(UUID.test(key) ? 'j.id' : 'j.slug', '=', key)
    .where((eb) =>
      options.includeClosed
        ? eb.or([eb('j.served', '=', true), CLOSED_SERVED])
        : eb('j.served', '=', true),
    )
    .executeTakeFirst();
  return row as unknown as JobViewRow | undefined;
}

/** How many rows /v1/jobs serves by default (the `served` rows), for the start-up log. */
export async function countServed(db: Kysely<DB>): Promise<number> {
  const row = await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('served', '=', true).executeTakeFirstOrThrow();
  return Number(row.n);
}
