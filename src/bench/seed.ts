/**
 * The benchmark ledger generator (`jobledger bench-seed`, issue 8): N job rows whose distributions follow
 * the imported real data, written by set-based SQL so 5,000,000 rows cost time linear in N and no
 * memory in Node.
 *
 * How a row is made. The ledger must already hold the imported real corpus (the bundled feeds of
 * `npm start`; the CLI imports them first when they are missing). Its rows become *templates* in
 * three classes: served (live, employer-posted), closed, and withheld (live but not served: quality
 * verdicts, job-board posters). Row i of seed S draws, from hashes of (i, S) only:
 *
 * - its class, with the shares given (default 22 % closed, 1 % withheld): the corpus's own shares are
 *   an artefact of the fixtures (a year of USAJOBS announcements, 60 % closed), and with them a
 *   million rows would hold fewer served rows than the half-million-deep page the benchmark reads;
 * - a template of that class, uniformly: so country, category, remote mode, salary presence,
 *   employment type, seniority, description length, provider, company and truthful field_sources
 *   follow the real rows of the class, whatever they are;
 * - variations, so rows are not copies: one title in four gets a real word of the corpus's
 *   descriptions appended (as a team or product name), and every description gets a closing
 *   paragraph of 6 to 25 real words sampled by frequency rank;
 * - its dates: posted (or first seen, when the template has no posting date) uniformly over the 365
 *   days before the anchor, a closure some time after that, one row in ten updated once.
 *
 * Rows get `created`, `updated` and `delisted` change events at those instants, so /v1/changes has a
 * year of history. Ids are `<i as 8 hex digits><md5 of seed and i>`: unique slugs (title slug plus the
 * first 8 characters of the id) and append-only primary-key inserts. Generated rows have no crawl
 * target (no worker will ever close them as not_seen) and posting ids `bench-<seed>-<i>`.
 *
 * Every statement runs with `session_replication_role = replica` (transaction-local), so the feed-stamp
 * triggers keep the generated instants instead of stamping "now", and foreign keys, which the
 * templates satisfy, are not re-checked row by row. The event-country trigger of migration 008 does
 * not fire either, so each event is given its row's country here (a generated row never moves
 * country). The feed clock is then moved past the newest generated instant, so later writes still
 * stamp strictly later. That needs a superuser, which the embedded ledger and a benchmark database
 * have.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';

export interface SeedOptions {
  /** Rows to generate. */
  rows: number;
  /** Seed: the same seed (and anchor) on the same corpus gives the same rows. Default 1. */
  seed?: number;
  /** Instant the year of dates ends at. Default: the start of the current UTC day. */
  anchor?: Date;
  /** Share of closed rows, 0..1. Default 0.22. */
  closedShare?: number;
  /** Share of withheld (live, not served) rows, 0..1. Default 0.01. */
  withheldShare?: number;
  /** Rows per INSERT statement (one transaction each). Default 25,000. */
  chunkRows?: number;
  /** Called after each chunk with the rows written so far. */
  onProgress?: (done: number) => void;
}

export interface SeedResult {
  rows: number;
  templates: { served: number; closed: number; withheld: number };
  vocabulary: number;
  seconds: number;
}

/** Prefix of generated posting ids; the templates are every other row. */
export const BENCH_POSTING_PREFIX = 'bench-';

/** Rows of the ledger that the generator did not write (the corpus its templates come from). */
export async function countCorpusRows(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('source_posting_id', 'not like', `${BENCH_POSTING_PREFIX}%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Words sampled for variations: the most frequent lexemes of the corpus's descriptions. */
const VOCABULARY_SIZE = 5000;

/** Start of the current UTC day. */
function startOfUtcDay(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** Build the template and vocabulary tables from the corpus rows (those not generated). */
async function prepareTemplates(db: Kysely<DB>): Promise<{ counts: SeedResult['templates']; vocabulary: number }> {
  await sql`DROP TABLE IF EXISTS bench_template, bench_vocab`.execute(db);
  // Ordered by (provider, posting id): the corpus's content is fixed, its uuids and dates are not.
  await sql`
    CREATE UNLOGGED TABLE bench_template AS
    SELECT row_number() OVER (PARTITION BY class ORDER BY provider_id, source_posting_id)::bigint AS n, j.*
      FROM (SELECT CASE WHEN status = 'closed' THEN 'closed' WHEN served THEN 'served' ELSE 'withheld' END AS class, *
              FROM jobs WHERE source_posting_id NOT LIKE ${BENCH_POSTING_PREFIX + '%'}) j`.execute(db);
  await sql`CREATE UNIQUE INDEX ON bench_template (class, n)`.execute(db);
  await sql`
    CREATE UNLOGGED TABLE bench_vocab AS
    SELECT row_number() OVER (ORDER BY ndoc DESC, word)::bigint AS n, word
      FROM ts_stat('SELECT description_tsv FROM bench_template')
     WHERE word ~ '^[a-z]{4,20}$'
     ORDER BY ndoc DESC, word
     LIMIT ${VOCABULARY_SIZE}`.execute(db);
  await sql`CREATE UNIQUE INDEX ON bench_vocab (n)`.execute(db);
  const rows = (await sql<{ class: string; n: string }>`SELECT class, count(*) AS n FROM bench_template GROUP BY class`.execute(db)).rows;
  const counts = { served: 0, closed: 0, withheld: 0 };
  for (const r of rows) counts[r.class as keyof typeof counts] = Number(r.n);
  const vocabulary = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM bench_vocab`.execute(db)).rows[0]?.n ?? 0);
  return { counts, vocabulary };
}

/**
 * Generate rows [lo, hi] in one statement: jobs and their change events. Every random choice is
 * `hashint8extended(i, seed + stream)`, so the content depends on (seed, i, anchor, corpus) only.
 */
async function insertChunk(
  db: Kysely<DB>,
  p: { lo: number; hi: number; seed: number; anchor: Date; closed: number; withheld: number; vocabulary: number },
): Promise<void> {
  const seed = p.seed * 16;
  await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await sql`
      WITH g AS (
        SELECT i,
               (hashint8extended(i, ${seed}::bigint) & 16777215)::float8 / 16777216 AS u_class,
               hashint8extended(i, ${seed + 1}::bigint) & 2147483647 AS h_tpl,
               (hashint8extended(i, ${seed + 2}::bigint) & 16777215)::float8 / 16777216 AS u_time,
               (hashint8extended(i, ${seed + 3}::bigint) & 16777215)::float8 / 16777216 AS u_close,
               hashint8extended(i, ${seed + 4}::bigint) & 2147483647 AS h_var
          FROM generate_series(${p.lo}::bigint, ${p.hi}::bigint) AS i
      ), c AS (
        SELECT g.*,
               CASE WHEN u_class < ${p.closed}::float8 THEN 'closed'
                    WHEN u_class < ${p.closed + p.withheld}::float8 THEN 'withheld'
                    ELSE 'served' END AS cls,
               (lpad(to_hex(i), 8, '0') || substr(md5(${String(p.seed)} || ':' || i), 9))::uuid AS new_id,
               date_trunc('milliseconds', ${p.anchor}::timestamptz - u_time * interval '365 days') AS base
          FROM g
      ), k AS (
        SELECT class, count(*) AS n FROM bench_template GROUP BY class
      ), r AS (
        SELECT c.*, t.*,
               tw.word AS title_word,
               ph.words AS phrase,
               CASE WHEN t.status = 'closed' THEN c.base + interval '1 hour' + date_trunc('milliseconds', u_close * (${p.anchor}::timestamptz - c.base)) END AS new_closed_at,
               CASE WHEN h_var % 10 = 1 THEN c.base + interval '1 millisecond' + date_trunc('milliseconds', u_close / 2 * (${p.anchor}::timestamptz - c.base)) ELSE c.base END AS changed_at
          FROM c
          JOIN k ON k.class = c.cls
          JOIN bench_template t ON t.class = c.cls AND t.n = 1 + c.h_tpl % k.n
          LEFT JOIN bench_vocab tw ON h_var % 4 = 0 AND tw.n = 1 + (h_var >> 8) % ${p.vocabulary}::bigint
          CROSS JOIN LATERAL (
            SELECT string_agg(v.word, ' ' ORDER BY s) AS words
              FROM generate_series(0, 5 + (c.h_var >> 4) % 20) AS s
              JOIN bench_vocab v ON v.n = 1 + (hashint8extended(c.i * 64 + s, ${seed + 5}::bigint) & 2147483647) % ${p.vocabulary}::bigint
          ) ph
      ), ins AS (
        INSERT INTO jobs (id, slug, provider_id, target_id, source_posting_id, company_id, company_name, title, location, country,
          city, state, remote, remote_inferred, employment_type, seniority, category, category_confidence, posted_at, first_seen_at,
          last_verified_at, content_changed_at, status, closed_at, closed_reason, upstream_expired_at, upstream_closes_at,
          withheld_kind, quality_verdict, quality_rule_id, quality_matched_host, poster_type, poster_rule_id, apply_url, posting_url, source_type,
          provider_type, has_description, description_html, description_text, salary_min, salary_max, salary_currency,
          salary_period, salary_source, salary_min_annual_eur, field_sources, attribution, canonical_url, content_hash,
          missed_crawls, created_at, updated_at)
        SELECT new_id,
               CASE WHEN title_word IS NULL THEN left(slug, length(slug) - 9)
                    ELSE rtrim(left(left(slug, length(slug) - 9) || '-' || title_word, 80), '-') END || '-' || left(new_id::text, 8),
               provider_id, NULL, ${BENCH_POSTING_PREFIX + String(p.seed) + '-'} || i, company_id, company_name,
               CASE WHEN title_word IS NULL THEN title ELSE title || ' - ' || initcap(title_word) END,
               location, country, city, state, remote, remote_inferred, employment_type, seniority, category, category_confidence,
               CASE WHEN posted_at IS NOT NULL THEN base END,
               base,
               coalesce(new_closed_at, ${p.anchor}::timestamptz - date_trunc('milliseconds', u_close * interval '6 hours')),
               changed_at,
               status, new_closed_at, closed_reason,
               CASE WHEN closed_reason = 'expired_upstream' THEN new_closed_at END,
               NULL,
               withheld_kind, quality_verdict, quality_rule_id, quality_matched_host, poster_type, poster_rule_id, apply_url, posting_url, source_type,
               provider_type, has_description,
               CASE WHEN has_description THEN description_html || '<p>' || phrase || '</p>' END,
               CASE WHEN has_description THEN coalesce(description_text, '') || E'\n\n' || phrase END,
               salary_min, salary_max, salary_currency, salary_period, salary_source, salary_min_annual_eur, field_sources, attribution,
               canonical_url,
               encode(sha256(convert_to(${String(p.seed)} || ':' || i || ':' || content_hash, 'UTF8')), 'hex'),
               0, base, changed_at
          FROM r
        RETURNING id, country, first_seen_at, content_changed_at, closed_at
      )
      INSERT INTO change_events (id, job_id, change, recorded_at, published_at, country)
      SELECT md5(ins.id::text || e.change)::uuid, ins.id, e.change, e.at, e.at, ins.country
        FROM ins
        CROSS JOIN LATERAL (VALUES ('created', ins.first_seen_at), ('updated', ins.content_changed_at), ('delisted', ins.closed_at)) AS e(change, at)
       WHERE e.at IS NOT NULL AND (e.change <> 'updated' OR ins.content_changed_at > ins.first_seen_at)`.execute(trx);
  });
}

/**
 * Generate `options.rows` rows into the ledger behind `db` (which must hold the imported corpus), then
 * move the feed clock past them and refresh planner statistics.
 */
export async function seedBenchLedger(db: Kysely<DB>, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const seed = options.seed ?? 1;
  const anchor = options.anchor ?? startOfUtcDay();
  const chunk = options.chunkRows ?? 25_000;
  const { counts, vocabulary } = await prepareTemplates(db);
  if (counts.served === 0 || vocabulary === 0) throw new Error('the ledger holds no imported corpus to sample: import the bundled feeds first (jobledger ingest --demo)');
  // A class without templates is given no rows; its share goes to the served rows.
  const closed = counts.closed > 0 ? (options.closedShare ?? 0.22) : 0;
  const withheld = counts.withheld > 0 ? (options.withheldShare ?? 0.01) : 0;
  if (closed < 0 || withheld < 0 || closed + withheld > 1) throw new Error('closed and withheld shares must be between 0 and 1 together');
  try {
    for (let lo = 1; lo <= options.rows; lo += chunk) {
      const hi = Math.min(options.rows, lo + chunk - 1);
      await insertChunk(db, { lo, hi, seed, anchor, closed, withheld, vocabulary });
      options.onProgress?.(hi);
    }
  } finally {
    await sql`DROP TABLE IF EXISTS bench_template, bench_vocab`.execute(db);
  }
  await sql`
    UPDATE change_feed_clock
       SET stamp = greatest(stamp, (SELECT max(published_at) FROM change_events), (SELECT max(closed_at) FROM jobs))`.execute(db);
  await sql`VACUUM ANALYZE jobs`.execute(db);
  await sql`VACUUM ANALYZE change_events`.execute(db);
  await sql`ANALYZE companies`.execute(db);
  return { rows: options.rows, templates: counts, vocabulary, seconds: (Date.now() - started) / 1000 };
}

/**
 * A content hash of the generated rows (and their events), independent of what differs between two
 * imports of the same corpus (company uuids): same seed, same anchor, same corpus, same hash.
 */
export async function benchContentHash(db: Kysely<DB>): Promise<string> {
  const result = await sql<{ h: string | null }>`
    SELECT md5(string_agg(md5(row(j.id, j.slug, j.provider_id, j.source_posting_id, c.slug, j.title, j.country, j.remote,
                 j.category, j.posted_at, j.first_seen_at, j.last_verified_at, j.status, j.closed_at, j.withheld_kind,
                 j.poster_type, j.description_html, j.description_text, j.salary_min, j.field_sources, j.content_hash,
                 (SELECT string_agg(e.change || '@' || e.published_at, ',' ORDER BY e.published_at) FROM change_events e WHERE e.job_id = j.id))::text),
                 '' ORDER BY j.id)) AS h
      FROM jobs j JOIN companies c ON c.id = j.company_id
     WHERE j.source_posting_id LIKE ${BENCH_POSTING_PREFIX + '%'}`.execute(db);
  return result.rows[0]?.h ?? '';
}
