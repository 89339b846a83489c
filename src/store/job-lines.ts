/**
 * The served Job as JSON text built by PostgreSQL (issue 22: "let PostgreSQL build the bytes where it
 * is cheaper: export and feed lines ... in the served field order with the same omission rules").
 *
 * {@link jobObjectSql} is one SQL expression over `jobs as j` joined with `companies as c` whose value
 * is, byte for byte, what the JSON answers' serializer (fast-json-stringify over JobSchema) writes for
 * `toJob(row, { includeDescription })` of http/presenters/job.ts: the same keys in the same order,
 * "present, may be null" fields as `null`, "omitted when empty" fields left out when null or the empty
 * string (spec: Resources › Job, nullability table). Without descriptions it is frozen into migration
 * 033, whose trigger stores it on every row as `jobs.served_json`: the listing pages, the change feed
 * and the export read that; with descriptions it is evaluated per read. `test/job-lines.test.ts`
 * holds it, and every stored line, to the serializer on every row of the imported corpus. A change to
 * the presenter or to JobSchema must be made here too, and in a migration that replaces the stored
 * lines' function; that test fails until it is.
 *
 * How each JavaScript value is matched:
 * - instants: `Date.prototype.toISOString()` of the row's instant with sub-millisecond digits
 *   truncated (the driver's parse), i.e. `to_char(... AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
 * - numbers: `numeric` and `real` columns reach JavaScript as `Number(text)`; PostgreSQL's `float8`
 *   input of the same text is the same double, and its output (shortest exact digits since
 *   PostgreSQL 12, `extra_float_digits` at its default) is JavaScript's for the magnitudes stored here
 *   (salaries, rates and counts between 1e-4 and 1e15);
 * - `Math.round(x)` as `floor(x + 0.5)` in `float8` (ties towards +∞, as ECMAScript rounds);
 * - strings through `to_json`, whose escapes are `JSON.stringify`'s (`\"`, `\\`, `\b \f \n \r \t`,
 *   other control characters as lower-case `\u00xx`);
 * - `field_sources`: the nine tracked keys in FieldSourcesSchema's order (the serializer's), each
 *   from the stored object, then the five served keys derived from the row (the ledger stores only
 *   the nine, migration 028, so none of the five is among them).
 *
 * No value of a request reaches this text: it is constant SQL, so it is safe to inline.
 */
import { JobSchema } from '../domain/job.ts';
import { FIELD_SOURCE_KEYS } from '../domain/field-sources.ts';

/** An instant as `toISOString()` gives it, or SQL NULL. */
function instant(column: string): string {
  return `('"' || to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"')`;
}

/** A `numeric`/`real` column as the JSON number JavaScript writes for `Number(text)`, or SQL NULL. */
function number(column: string): string {
  return `((${column})::text::float8)::text`;
}

/** A text column as a JSON string, or SQL NULL (also for the empty string when `dropEmpty`). */
function text(column: string, dropEmpty: boolean): string {
  return dropEmpty ? `to_json(NULLIF(${column}, ''))::text` : `to_json(${column})::text`;
}

/** `Math.round((first_seen_at - posted_at) / 1 h)` on millisecond instants (domain/lifecycle.ts firstSeenLagHours). */
const LAG_HOURS = `(floor((extract(epoch FROM date_trunc('milliseconds', j.first_seen_at)) - extract(epoch FROM date_trunc('milliseconds', j.posted_at))) * 1000 / 3600000 + 0.5))::bigint::text`;

/** `known(value, provenance)` of the presenter: "absent" when the value is null or empty. */
function known(valueIsEmpty: string, provenance: string): string {
  return `CASE WHEN ${valueIsEmpty} THEN '"absent"' ELSE ${provenance} END`;
}

/** The five served provenance keys derived from the row (http/presenters/job.ts servedFieldSources), as concat() arguments. */
const DERIVED_FIELD_SOURCES = [
  `',"company_domain":', ${known(`NULLIF(c.domain, '') IS NULL`, `'"inferred"'`)}`,
  `',"state":' || ${known(`NULLIF(j.state, '') IS NULL`, `CASE WHEN j.field_sources->>'location' = 'absent' THEN '"inferred"' ELSE (j.field_sources->'location')::text END`)}`,
  `',"expires_at":', ${known('j.upstream_closes_at IS NULL', `'"published"'`)}`,
  `',"repost_count":"inferred"'`,
  `',"first_seen_lag_hours":', ${known('j.posted_at IS NULL OR j.first_seen_at IS NULL', `'"inferred"'`)}`,
  `'}'`,
].join(', ');

/** field_sources in the contract's order (domain/job.ts FieldSourcesSchema: the nine in the spec's order, then the derived ones). */
const FIELD_SOURCES_CONTRACT = `'{', ${FIELD_SOURCE_KEYS.map((k, i) => `'${i === 0 ? '' : ','}"${k}":', (j.field_sources->'${k}')::text`).join(', ')}, ${DERIVED_FIELD_SOURCES}`;

/** One served field: its SQL (NULL when empty) and whether it is omitted then or written as `null`. */
interface LineField {
  key: string;
  sql: string;
  omitWhenEmpty: boolean;
}

/** The Job's fields in the presenter's insertion order (http/presenters/job.ts toJob). */
function jobFields(includeDescription: boolean, fieldSources: string): LineField[] {
  const always = (key: string, sql: string): LineField => ({ key, sql, omitWhenEmpty: false });
  const optional = (key: string, sql: string): LineField => ({ key, sql, omitWhenEmpty: true });
  return [
    always('id', 'to_json(j.id)::text'),
    always('slug', text('j.slug', false)),
    always('title', text('j.title', false)),
    always('company', text('j.company_name', false)),
    always('company_slug', text('c.slug', false)),
    always('category_confidence', `(floor((j.category_confidence)::text::float8 * 1000 + 0.5) / 1000)::text`),
    always('remote_inferred', 'to_json(j.remote_inferred)::text'),
    always('last_verified_at', instant('j.last_verified_at')),
    always('status', text('j.status', false)),
    always('closed_at', instant('j.closed_at')),
    always('closed_reason', text('j.closed_reason', false)),
    always('source', text('j.provider_id', false)),
    always('source_type', text('j.source_type', false)),
    always('provider_type', text('j.provider_type', false)),
    always('has_description', 'to_json(j.has_description)::text'),
    always('salary_min_annual_eur', number('j.salary_min_annual_eur')),
    always('salary_max_annual_eur', number('j.salary_max_annual_eur')),
    always('repost_count', 'j.repost_count::text'),
    // Several concat() arguments, never NULL.
    always('field_sources', fieldSources),
    optional('company_logo', text('c.logo_url', true)),
    optional('company_domain', text('c.domain', true)),
    optional('state', text('j.state', true)),
    optional('expires_at', instant('j.upstream_closes_at')),
    optional('category', text('j.category', true)),
    optional('country', text('j.country', true)),
    optional('city', text('j.city', true)),
    optional('location', text('j.location', true)),
    optional('remote', text('j.remote', true)),
    optional('employment_type', text('j.employment_type', true)),
    optional('seniority', text('j.seniority', true)),
    optional('posted_at', instant('j.posted_at')),
    optional('first_seen_at', instant('j.first_seen_at')),
    optional('first_seen_lag_hours', LAG_HOURS),
    optional('upstream_expired_at', instant('j.upstream_expired_at')),
    optional('apply_url', text('j.apply_url', true)),
    ...(includeDescription ? [optional('description', `CASE WHEN j.has_description THEN ${text('j.description_html', true)} END`)] : []),
    optional('salary_min', number('j.salary_min')),
    optional('salary_max', number('j.salary_max')),
    optional('salary_currency', text('j.salary_currency', true)),
    optional('salary_period', text('j.salary_period', true)),
    optional('salary_source', text('j.salary_source', true)),
    optional('attribution', text('j.attribution', true)),
    optional('canonical_url', text('j.canonical_url', true)),
  ];
}

/**
 * The order the response serializer (fast-json-stringify) writes a JobSchema object in: the required
 * properties in the schema's order, then the optional ones in the schema's order.
 */
const CONTRACT_ORDER: readonly string[] = (() => {
  const keys = Object.keys(JobSchema.properties);
  const required = new Set<string>(JobSchema.required ?? []);
  return [...keys.filter((k) => required.has(k)), ...keys.filter((k) => !required.has(k))];
})();

/** One concat() of `fields` in that order: the text in one allocation, NULL arguments (omitted fields) skipped. */
function concatObject(fields: LineField[]): string {
  const args = fields.map((f, i) => {
    const name = `'${i === 0 ? '{' : ','}"${f.key}":'`;
    if (f.key === 'field_sources') return `${name}, ${f.sql}`;
    return f.omitWhenEmpty ? `${name} || ${f.sql}` : `${name}, COALESCE(${f.sql}, 'null')`;
  });
  return `concat(${args.join(',\n  ')}, '}')`;
}

/** The two expressions, built once: each is some 5 KB of SQL text, asked for on every export batch and feed page with descriptions. */
const EXPRESSIONS = [false, true].map((d) => {
  const fields = new Map(jobFields(d, FIELD_SOURCES_CONTRACT).map((f) => [f.key, f]));
  return concatObject(CONTRACT_ORDER.filter((k) => fields.has(k)).map((k) => fields.get(k)!));
});

/**
 * The same Job as the JSON responses write it (fast-json-stringify over JobSchema): the keys in
 * {@link CONTRACT_ORDER} and field_sources in its schema's order. For pages and lines assembled from
 * text (listings, the change feed, the export). The first key (`id`) must be required, as it is.
 */
export function jobObjectSql(includeDescription: boolean): string {
  return EXPRESSIONS[includeDescription ? 1 : 0]!;
}

/**
 * A row's served Job as the JSON answers write it, as SQL over `jobs as j` joined with `companies as
 * c`: the stored line (`j.served_json`, migration 033) without descriptions, which PostgreSQL only
 * reads; with them {@link jobObjectSql}`(true)`, built per read. For the change feed and the export.
 */
export function servedJobSql(includeDescription: boolean): string {
  return includeDescription ? jobObjectSql(true) : 'j.served_json';
}
