/**
 * Job-board / aggregator inventory is never served (spec: What the service does, items 2 and 11).
 * The three feeds (Remotive, Himalayas, Arbeitnow; hand-written fixtures in their real shapes) are
 * crawled end to end: replay server → guarded fetcher → connector → enrichment → quality gate →
 * ledger. Every row is stored, withheld as quality_removed, and no listing surface returns it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { bearer } from './helpers/app.ts';
import { outcomes, useReplayApp } from './helpers/corpus.ts';

const FEEDS = ['remotive', 'himalayas', 'arbeitnow'];
const TITLES = ['Backend Engineer (Go)', 'Customer Support Specialist', 'Product Designer', 'Data Analyst (Contract)', 'Werkstudent Marketing (m/w/d)', 'Senior DevOps Engineer'];

describe('job-board feeds', () => {
  const ctx = useReplayApp();

  beforeAll(async () => {
    const reports = await ctx.pipeline.crawl(ctx.pipeline.targets.filter((target) => FEEDS.includes(target.provider_id)));
    expect(outcomes(reports)).toEqual(['fetched', 'fetched', 'fetched']);
  });

  it('are registered as discovery-only, not redistributable providers of the aggregator class', async () => {
    const providers = await ctx.t.db.selectFrom('providers').selectAll().where('id', 'in', FEEDS).orderBy('id').execute();
    expect(providers.map((p) => [p.id, p.provider_class, p.source_type, p.redistributable, p.discovery_only])).toEqual([
      ['arbeitnow', 'aggregator', 'aggregator', false, true],
      ['himalayas', 'aggregator', 'aggregator', false, true],
      ['remotive', 'aggregator', 'aggregator', false, true],
    ]);
  });

  it('stores every row withheld as quality_removed, with its rule and poster type, never served', async () => {
    const rows = await ctx.t.db
      .selectFrom('jobs')
      .select(['provider_id', 'title', 'status', 'withheld_kind', 'quality_verdict', 'quality_rule_id', 'poster_type', 'served'])
      .where('provider_id', 'in', FEEDS)
      .execute();
    expect(rows.map((r) => r.title).sort()).toEqual([...TITLES].sort());
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'live', withheld_kind: 'quality_removed', quality_verdict: 'quality_removed', quality_rule_id: 'source.not_redistributable', poster_type: 'jobboard', served: false });
    }
    // Withheld on arrival: no sync client ever saw them, so no change event exists.
    const events = await ctx.t.db.selectFrom('change_events').innerJoin('jobs', 'jobs.id', 'change_events.job_id').select('change').where('jobs.provider_id', 'in', FEEDS).execute();
    expect(events).toEqual([]);
  });

  it('never appears on /v1/jobs or /public/jobs, by title search or by listing everything', async () => {
    for (const title of TITLES) {
      const q = encodeURIComponent(title.replace(/[()]/g, ''));
      for (const url of [`/v1/jobs?q=${q}`, `/public/jobs?q=${q}`, `/v1/jobs?title=${q}&quality=all&include_poster_type=all`]) {
        const res = await ctx.app.inject({ method: 'GET', url, headers: url.startsWith('/v1') ? bearer(ctx.key) : {} });
        expect(res.statusCode, url).toBe(200);
        expect((res.json().data as Job[]).filter((j) => FEEDS.includes(j.source)), url).toEqual([]);
      }
    }
    const all = await ctx.app.inject({ method: 'GET', url: '/v1/jobs?limit=200', headers: bearer(ctx.key) });
    expect((all.json().data as Job[]).some((j) => FEEDS.includes(j.source))).toBe(false);
  });

  it('answers 404 for a withheld row on the single-row endpoints', async () => {
    const row = await ctx.t.db.selectFrom('jobs').select(['id', 'slug']).where('provider_id', '=', 'remotive').executeTakeFirstOrThrow();
    for (const url of [`/v1/jobs/${row.id}`, `/public/jobs/${row.slug}`]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: url.startsWith('/v1') ? bearer(ctx.key) : {} });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
