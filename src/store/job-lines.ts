/**
 * The served Job as JSON text built by PostgreSQL (issue 22: "let PostgreSQL build the bytes where it
 * is cheaper: export and feed lines ... in the served field order with the same omission rules").
 *
 * {@link jobLineSql} is one SQL expression over `jobs as j` joined with `companies as c` whose value
 * is, byte for byte, `JSON.stringify(toJob(row, { includeDescription }))` of http/presenters/job.ts:
 * the same keys in the same order, "present, may be null" fields as `null`, "omitted when empty"
 * fields left out when null or the empty string (spec: Resources › Job, nullability table).
 * `test/job-lines.test.ts` holds the two to that on every row of the imported corpus. A change to the
 * presenter must be made here too; that test fails until it is.
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
 * - `field_sources`: the stored object's keys in their stored (jsonb) order, which is the order
 *   `JSON.parse` of the jsonb text gives, then the five served keys derived from the row (the ledger
 *   stores only the nine tracked keys, migration 028, so none of the five is among them).
 *
 * No value of a request reaches this text: it is constant SQL, so it is safe to inline.
 */

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

/** `"key":value` for an always-present field: `null` when the value is SQL NULL. */
function always(key: string, value: string): string {
  return `',"${key}":', COALESCE(${value}, 'null')`;
}

/** `,"key":value` for a field omitted when empty: a NULL argument, which `concat` skips, when the value is SQL NULL. */
function optional(key: string, value: string): string {
  return `',"${key}":' || ${value}`;
}

/** `Math.round((first_seen_at - posted_at) / 1 h)` on millisecond instants (domain/lifecycle.ts firstSeenLagHours). */
const LAG_HOURS = `(floor((extract(epoch FROM date_trunc('milliseconds', j.first_seen_at)) - extract(epoch FROM date_trunc('milliseconds', j.posted_at))) * 1000 / 3600000 + 0.5))::bigint::text`;

/** `known(value, provenance)` of the presenter: "absent" when the value is null or empty. */
function known(valueIsEmpty: string, provenance: string): string {
  return `CASE WHEN ${valueIsEmpty} THEN '"absent"' ELSE ${provenance} END`;
}

/**
 * The stored object's text with jsonb's `": "` and `", "` separators made JSON.stringify's; exact
 * because migration 028 (jobs_field_sources_vocabulary) allows only the nine keys and the three
 * provenance words, none of which holds a quote, a colon or a comma. Its closing brace is dropped so
 * the derived keys follow.
 */
const STORED_FIELD_SOURCES = `left(replace(replace(j.field_sources::text, '": "', '":"'), '", "', '","'), -1)`;

const FIELD_SOURCES = [
  STORED_FIELD_SOURCES,
  `',"company_domain":', ${known(`NULLIF(c.domain, '') IS NULL`, `'"inferred"'`)}`,
  `',"state":' || ${known(`NULLIF(j.state, '') IS NULL`, `CASE WHEN j.field_sources->>'location' = 'absent' THEN '"inferred"' ELSE (j.field_sources->'location')::text END`)}`,
  `',"expires_at":', ${known('j.upstream_closes_at IS NULL', `'"published"'`)}`,
  `',"repost_count":"inferred"'`,
  `',"first_seen_lag_hours":', ${known('j.posted_at IS NULL OR j.first_seen_at IS NULL', `'"inferred"'`)}`,
  `'}'`,
].join(', ');

/**
 * The SQL expression of one served Job line (without its newline) over `jobs as j` inner-joined with
 * `companies as c`. With `includeDescription` the line carries `description` where the row has one.
 */
export function jobLineSql(includeDescription: boolean): string {
  const parts = [
    `'{"id":', to_json(j.id)`,
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
    `',"field_sources":', ${FIELD_SOURCES}`,
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
    `'}'`,
  ];
  // One concat() builds the text in one allocation (a chain of || copies the growing line per field)
  // and skips the NULL arguments of omitted fields.
  return `concat(${parts.join(',\n  ')})`;
}
