/**
 * The bundled real feeds, imported through the production path (replay server → fetcher → connectors →
 * enrichment → quality gate → ledger), as a client sees them on /v1/jobs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FIELD_SOURCE_KEYS, SERVED_FIELD_SOURCE_KEYS } from '../src/domain/field-sources.ts';
import type { Job } from '../src/domain/job.ts';
import { allPages, bearer, useCorpusApp } from './helpers/app.ts';

const ALWAYS = ['id', 'slug', 'title', 'company', 'company_slug', 'remote_inferred', 'last_verified_at', 'status', 'source', 'source_type', 'provider_type', 'has_description', 'field_sources'];
const NULLABLE = ['category_confidence', 'closed_at', 'closed_reason', 'salary_min_annual_eur'];
const OMITTED_WHEN_EMPTY = [
  'company_logo', 'category', 'country', 'city', 'location', 'remote', 'employment_type', 'seniority',
  'salary_min', 'salary_max', 'salary_currency', 'salary_period', 'salary_source', 'posted_at', 'apply_url', 'upstream_expired_at', 'first_seen_at',
];

describe('the imported real corpus on /v1/jobs', () => {
  const ctx = useCorpusApp();
  let all: Job[] = [];

  beforeAll(async () => {
    all = await allPages((url) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) }), '/v1/jobs?limit=200');
  });

  it('serves at least 2,000 live rows', () => {
    expect(all.length).toBeGreaterThanOrEqual(2000);
  });

  it('visits every served row exactly once when following next_cursor to the end', async () => {
    const ids = all.map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    const served = await ctx.t.db.selectFrom('jobs').select('id').where('served', '=', true).execute();
    expect(new Set(ids)).toEqual(new Set(served.map((r) => r.id)));
  });

  it('orders rows by posted_at descending, nulls last, then id descending', () => {
    for (let i = 1; i < all.length; i++) {
      const a = all[i - 1]!;
      const b = all[i]!;
      const ka = a.posted_at ? Date.parse(a.posted_at) : -Infinity;
      const kb = b.posted_at ? Date.parse(b.posted_at) : -Infinity;
      expect(ka > kb || (ka === kb && a.id > b.id)).toBe(true);
    }
  });

  it('gives every row each always-present and present-nullable field, and no empty optional field', () => {
    for (const job of all) {
      for (const field of [...ALWAYS, ...NULLABLE]) expect(job, `${job.id} lacks ${field}`).toHaveProperty(field);
      for (const field of OMITTED_WHEN_EMPTY) {
        const value = (job as Record<string, unknown>)[field];
        if (field in job) expect(value === null || value === '' || value === undefined, `${job.id} has an empty ${field}`).toBe(false);
      }
      expect(job.status).toBe('live');
      expect(job.closed_at).toBeNull();
      expect(job.closed_reason).toBeNull();
      expect('description' in job).toBe(false);
    }
  });

  it('tells the truth in all twelve field_sources keys on every row', () => {
    for (const job of all) {
      const fs = job.field_sources;
      expect(Object.keys(fs).sort()).toEqual([...FIELD_SOURCE_KEYS, ...SERVED_FIELD_SOURCE_KEYS].sort());
      // The three served at read time (issue 19): absent exactly when the field is.
      expect(fs.company_domain === 'absent', `${job.id} company_domain`).toBe(job.company_domain === undefined);
      expect(fs.state === 'absent', `${job.id} state`).toBe(job.state === undefined);
      expect(fs.expires_at === 'absent', `${job.id} expires_at`).toBe(job.expires_at === undefined);
      // remote: published = read from the source, inferred = derived, absent = no remote field.
      expect(fs.remote === 'absent', `${job.id} remote`).toBe(job.remote === undefined);
      expect(job.remote_inferred, `${job.id} remote_inferred`).toBe(fs.remote === 'inferred');
      expect(fs.employment_type === 'absent').toBe(job.employment_type === undefined);
      expect(fs.employment_type).not.toBe('inferred');
      // category and seniority are never published (spec: FieldSources).
      expect(fs.category).toBe(job.category === undefined ? 'absent' : 'inferred');
      expect(job.category_confidence === null).toBe(job.category === undefined);
      if (job.category_confidence !== null) expect(job.category_confidence).toBeGreaterThanOrEqual(0.6);
      expect(fs.seniority).toBe(job.seniority === undefined ? 'absent' : 'inferred');
      expect(fs.salary).toBe(job.salary_source === undefined ? 'absent' : job.salary_source === 'structured' ? 'published' : 'inferred');
      if (fs.location === 'absent') {
        expect(job.location ?? job.country ?? job.city).toBeUndefined();
      }
      expect(fs.posted_at === 'absent').toBe(job.posted_at === undefined);
      expect(fs.description === 'absent').toBe(!job.has_description);
      expect(fs.source_type).toBe('inferred');
    }
  });

  it('links every row to an apply page on the employer side', () => {
    for (const job of all) {
      expect(job.apply_url).toMatch(/^https:\/\//);
      const host = new URL(job.apply_url!).hostname;
      if (job.source === 'ashby') expect(host).toBe('jobs.ashbyhq.com');
      if (job.source === 'usajobs') expect(host).toBe('www.usajobs.gov');
    }
  });

  it('serves the federal announcements whose close date has not passed, and keeps the others as closed rows', async () => {
    const federal = all.filter((j) => j.source === 'usajobs');
    for (const job of federal) {
      expect(job.source_type).toBe('public_agency');
      expect(job.provider_type).toBe('government');
    }
    const closed = await ctx.t.db
      .selectFrom('jobs')
      .select(['status', 'closed_reason', 'upstream_expired_at', 'upstream_closes_at'])
      .where('provider_id', '=', 'usajobs')
      .where('status', '=', 'closed')
      .execute();
    expect(closed.length).toBeGreaterThan(4000);
    for (const row of closed) {
      expect(row.closed_reason).toBe('expired_upstream');
      expect(row.upstream_expired_at!.getTime()).toBe(row.upstream_closes_at!.getTime());
      expect(row.upstream_closes_at!.getTime()).toBeLessThanOrEqual(Date.now());
    }
  });

  it('gives a closed announcement only with include_closed=true', async () => {
    const row = await ctx.t.db.selectFrom('jobs').select(['id', 'slug']).where('provider_id', '=', 'usajobs').where('status', '=', 'closed').executeTakeFirstOrThrow();
    const hidden = await ctx.app.inject({ method: 'GET', url: `/v1/jobs/${row.id}`, headers: bearer(ctx.key) });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error).toBe('not_found');
    const shown = await ctx.app.inject({ method: 'GET', url: `/v1/jobs/${row.slug}?include_closed=true`, headers: bearer(ctx.key) });
    expect(shown.statusCode).toBe(200);
    const job = shown.json().data as Job;
    expect(job.status).toBe('closed');
    expect(job.closed_reason).toBe('expired_upstream');
    expect(job.closed_at).not.toBeNull();
    expect(job.upstream_expired_at).toBeDefined();
  });
});
