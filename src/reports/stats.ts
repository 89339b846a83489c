/**
 * The public summary (spec: GET /public/stats, "summary with definitions that differ from coverage";
 * its body is not shown, so this module defines it and every number carries its definition in
 * `definitions`). It describes what a keyless or default /v1/jobs reader sees (served rows), where
 * the coverage report describes the ledger's populations.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { CLOSED } from '../store/populations.ts';
import { pct } from './share.ts';

const DAY_MS = 86_400_000;
const TOP = 10;

export interface StatsSnapshot {
  measured_at: string;
  jobs: number;
  companies: number;
  countries: number;
  remote_jobs: number;
  remote_jobs_pct: number;
  jobs_with_salary: number;
  jobs_with_salary_pct: number;
  median_salary_min_annual_eur: number | null;
  new_jobs_24h: number;
  new_jobs_7d: number;
  closed_24h: number;
  closed_7d: number;
  top_categories: Array<{ category: string; jobs: number }>;
  top_countries: Array<{ country: string; jobs: number }>;
  definitions: Record<string, string>;
}

/** The {@link TOP} values of `column` carried by the most served rows, most first (ties by value). */
async function topServed<C extends 'category' | 'country'>(db: Kysely<DB>, column: C): Promise<Array<Record<C, string> & { jobs: number }>> {
  const ref = sql.ref(`j.${column}`);
  const rows = await sql<Record<C, string> & { jobs: number }>`
    SELECT ${ref}, count(*)::int AS jobs FROM jobs j
    WHERE j.served AND ${ref} IS NOT NULL
    GROUP BY ${ref} ORDER BY count(*) DESC, ${ref} LIMIT ${TOP}`.execute(db);
  return rows.rows;
}

/** Measure the summary at `now`. */
export async function computeStats(db: Kysely<DB>, now: Date): Promise<StatsSnapshot> {
  const day = new Date(now.getTime() - DAY_MS);
  const week = new Date(now.getTime() - 7 * DAY_MS);
  const t = (
    await sql<{
      jobs: number;
      companies: number;
      countries: number;
      remote_jobs: number;
      with_salary: number;
      median: string | null;
      new_24h: number;
      new_7d: number;
      closed_24h: number;
      closed_7d: number;
    }>`
      SELECT
        count(*) FILTER (WHERE j.served)::int AS jobs,
        count(DISTINCT j.company_id) FILTER (WHERE j.served)::int AS companies,
        count(DISTINCT j.country) FILTER (WHERE j.served)::int AS countries,
        count(*) FILTER (WHERE j.served AND j.remote = 'remote')::int AS remote_jobs,
        count(*) FILTER (WHERE j.served AND j.salary_source IS NOT NULL)::int AS with_salary,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY j.salary_min_annual_eur) FILTER (WHERE j.served AND j.salary_min_annual_eur IS NOT NULL) AS median,
        count(*) FILTER (WHERE j.served AND j.first_seen_at >= ${day})::int AS new_24h,
        count(*) FILTER (WHERE j.served AND j.first_seen_at >= ${week})::int AS new_7d,
        count(*) FILTER (WHERE ${CLOSED} AND j.closed_at >= ${day})::int AS closed_24h,
        count(*) FILTER (WHERE ${CLOSED} AND j.closed_at >= ${week})::int AS closed_7d
      FROM jobs j`.execute(db)
  ).rows[0]!;
  const categories = await topServed(db, 'category');
  const countries = await topServed(db, 'country');
  return {
    measured_at: now.toISOString(),
    jobs: t.jobs,
    companies: t.companies,
    countries: t.countries,
    remote_jobs: t.remote_jobs,
    remote_jobs_pct: pct(t.remote_jobs, t.jobs),
    jobs_with_salary: t.with_salary,
    jobs_with_salary_pct: pct(t.with_salary, t.jobs),
    median_salary_min_annual_eur: t.median === null ? null : Math.round(Number(t.median)),
    new_jobs_24h: t.new_24h,
    new_jobs_7d: t.new_7d,
    closed_24h: t.closed_24h,
    closed_7d: t.closed_7d,
    top_categories: categories,
    top_countries: countries,
    definitions: {
      jobs: 'Rows GET /v1/jobs serves by default: live, not withheld, employer-posted. Unlike coverage live_listings, rows posted by staffing agencies or job boards are not counted.',
      companies: 'Companies with at least one of those rows (coverage employers also counts companies whose only live rows are agency- or board-posted).',
      countries: 'Distinct countries of those rows.',
      remote_jobs: 'Of those rows, remote = remote, whether the source stated it or the service inferred it (hybrid not counted).',
      jobs_with_salary: 'Of those rows, any salary: published by the source or read from the advert text (coverage and freshness count source-published salaries only).',
      median_salary_min_annual_eur: 'Median of salary_min_annual_eur over those rows that have it, rounded to whole EUR per year; null when none has one.',
      new_jobs_24h: 'Of those rows, first seen by the ledger (first_seen_at) in the 24 hours before measured_at (coverage posted_last_7d uses the source\'s posted_at instead).',
      new_jobs_7d: 'As new_jobs_24h, over 7 days.',
      closed_24h: 'Rows closed (closed_at) in the 24 hours before measured_at, whatever the reason.',
      closed_7d: 'As closed_24h, over 7 days.',
      top_categories: `The ${TOP} categories with the most of those rows (rows without a confident category are left out).`,
      top_countries: `The ${TOP} countries with the most of those rows.`,
    },
  };
}
