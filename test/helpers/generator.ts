/**
 * A small, deterministic generator of ledger rows for volume tests (the 100,000-row export). Rows are
 * written by one INSERT ... SELECT over generate_series, so 100,000 rows take seconds, not minutes.
 * They satisfy every constraint of the `jobs` table and look like real rows to the read side: ids are
 * md5-derived uuids (same seed, same ids), one row in ten is closed (not_seen), the rest are served.
 * Not a benchmark seeder: it makes shapes, not a realistic distribution.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/store/schema.ts';

export interface GenerateOptions {
  /** Rows to write. */
  count: number;
  /** Distinct companies the rows are spread over (round robin). Default 200. */
  companies?: number;
  /** Prefix of ids and posting ids; different seeds give disjoint rows. Default 'gen'. */
  seed?: string;
  /** Bytes of description HTML per row (0: no description). Default 0. */
  descriptionBytes?: number;
  /** Instant written as first_seen_at / last_verified_at; posted_at goes back one minute per row. */
  now?: Date;
}

/** Write the rows; returns how many live (served) and closed rows were written. */
export async function generateJobs(db: Kysely<DB>, options: GenerateOptions): Promise<{ served: number; closed: number }> {
  const seed = options.seed ?? 'gen';
  const companies = options.companies ?? 200;
  const bytes = options.descriptionBytes ?? 0;
  const now = options.now ?? new Date();
  const paragraph = 'We build dependable software for people who rely on it every day. ';
  const description = bytes > 0 ? `<p>${paragraph.repeat(Math.ceil(bytes / paragraph.length)).slice(0, bytes)}</p>` : null;
  const fieldSources = JSON.stringify({
    remote: 'published',
    employment_type: 'published',
    category: 'absent',
    seniority: 'absent',
    salary: 'absent',
    location: 'published',
    posted_at: 'published',
    description: bytes > 0 ? 'published' : 'absent',
    source_type: 'inferred',
  });

  await sql`
    INSERT INTO companies (id, slug, name, identity_key, domain, first_seen_at)
    SELECT md5(${seed} || '-company-' || k)::uuid, ${seed} || '-company-' || k, 'Generated ' || initcap(${seed}) || ' ' || k,
           'domain:' || ${seed} || '-' || k || '.example', ${seed} || '-' || k || '.example', ${now}
    FROM generate_series(1, ${companies}::int) k
    ON CONFLICT DO NOTHING`.execute(db);

  await sql`
    INSERT INTO jobs (id, slug, provider_id, source_posting_id, company_id, company_name, title, location, country, remote,
      remote_inferred, employment_type, posted_at, first_seen_at, last_verified_at, content_changed_at, status, closed_at,
      closed_reason, quality_verdict, apply_url, source_type, provider_type, has_description, description_html,
      description_text, field_sources, content_hash)
    SELECT md5(${seed} || '-job-' || i)::uuid,
      ${seed} || '-role-' || i,
      'ashby',
      ${seed} || '-' || i,
      md5(${seed} || '-company-' || (1 + i % ${companies}::int))::uuid,
      'Generated ' || initcap(${seed}) || ' ' || (1 + i % ${companies}::int),
      (ARRAY['Software Engineer', 'Registered Nurse', 'Account Executive', 'Data Analyst', 'Warehouse Associate'])[1 + i % 5] || ' ' || i,
      (ARRAY['Berlin, Germany', 'Austin, TX', 'London', 'Paris', 'Remote'])[1 + i % 5],
      (ARRAY['DE', 'US', 'GB', 'FR', NULL])[1 + i % 5],
      (ARRAY['on_site', 'hybrid', 'on_site', 'hybrid', 'remote'])[1 + i % 5],
      false,
      'Full-time',
      ${now}::timestamptz - make_interval(mins => i),
      ${now}, ${now}, ${now},
      CASE WHEN i % 10 = 0 THEN 'closed' ELSE 'live' END,
      CASE WHEN i % 10 = 0 THEN ${now}::timestamptz END,
      CASE WHEN i % 10 = 0 THEN 'not_seen' END,
      'live',
      'https://jobs.ashbyhq.com/' || ${seed} || '/' || i,
      'ats', 'employer_ats',
      ${description !== null},
      ${description}::text,
      CASE WHEN ${description !== null} THEN 'We build dependable software.' END,
      ${fieldSources}::jsonb,
      md5(${seed} || '-hash-' || i)
    FROM generate_series(1, ${options.count}::int) i`.execute(db);
  const closed = Math.floor(options.count / 10);
  return { served: options.count - closed, closed };
}
