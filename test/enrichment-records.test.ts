/**
 * A re-crawl enriches again only the postings whose enrichment inputs changed (issue 22, re-crawl;
 * src/enrich/enrichment-record.ts): the whole bundled corpus is crawled through the replay server, then
 * fetched in full again, and every restored posting must be what enriching it afresh gives, which the
 * ledger checks posting by posting through its content hash (an unequal one would be an update).
 */
import { describe, expect, it } from 'vitest';
import type { CrawlReport } from '../src/ingest/pipeline.ts';
import { enrichmentRecord, restoreEnrichment } from '../src/enrich/enrichment-record.ts';
import { contentHash } from '../src/domain/lifecycle.ts';
import { useReplayApp } from './helpers/corpus.ts';
import { ashbyPayload } from './helpers/postings.ts';

type Fetched = Extract<CrawlReport, { outcome: 'fetched' }>;

function fetched(reports: CrawlReport[]): Fetched[] {
  return reports.filter((r): r is Fetched => r.outcome === 'fetched');
}

function sum(reports: Fetched[], of: (r: Fetched) => number): number {
  return reports.reduce((n, r) => n + of(r), 0);
}

describe('enrichment records', () => {
  const ctx = useReplayApp();

  /** Every job row without its verification stamps, and the number of change events. */
  async function ledger() {
    const jobs = await ctx.t.db
      .selectFrom('jobs')
      .selectAll()
      .orderBy('id')
      .execute();
    const events = await ctx.t.db.selectFrom('change_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    // served_json is the row's served Job, which carries last_verified_at (migration 033): it moves
    // with the verification stamp and is held to the row by test/job-lines.test.ts.
    return { jobs: jobs.map(({ last_verified_at: _v, missed_crawls: _m, served_json: _s, ...rest }) => rest), events: Number(events.n) };
  }

  /** Make every board answer in full at its next crawl (no conditional request can be answered 304). */
  async function forgetValidators() {
    await ctx.t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).execute();
  }

  it('the first crawl enriches every posting and keeps one record per crawled row', async () => {
    const reports = fetched(await ctx.pipeline.crawl());
    expect(reports.length).toBeGreaterThan(50);
    const postings = sum(reports, (r) => r.counts.postings);
    expect(postings).toBeGreaterThan(5000);
    expect(sum(reports, (r) => r.enriched)).toBe(postings);
    const { n } = await ctx.t.db
      .selectFrom('jobs')
      .leftJoin('job_enrichments', 'job_enrichments.job_id', 'jobs.id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('jobs.target_id', 'is not', null)
      .where('job_enrichments.job_id', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(0);
  });

  it('every kept record, with its row\'s descriptions, is the job the row was written from', async () => {
    const rows = await ctx.t.db
      .selectFrom('jobs')
      .innerJoin('job_enrichments', 'job_enrichments.job_id', 'jobs.id')
      .innerJoin('crawl_targets', 'crawl_targets.id', 'jobs.target_id')
      .select(['jobs.content_hash', 'jobs.description_html', 'jobs.description_text', 'job_enrichments.record', 'job_enrichments.content_hash as kept_hash', 'crawl_targets.poster_evidence'])
      .execute();
    expect(rows.length).toBeGreaterThan(5000);
    for (const row of rows) {
      const job = restoreEnrichment(row.record, { html: row.description_html, text: row.description_text });
      expect(contentHash(job)).toBe(row.kept_hash);
      // Rows of boards judged an intermediary's carry the board's poster type on top of their record.
      if (row.poster_evidence === null) expect(row.kept_hash).toBe(row.content_hash);
      expect(JSON.parse(enrichmentRecord(job))).toEqual(row.record);
    }
  });

  it('a board fetched in full again with nothing changed enriches no posting and changes no row', async () => {
    await forgetValidators();
    const before = await ledger();
    const reports = fetched(await ctx.pipeline.crawl());
    expect(reports.length).toBeGreaterThan(50);
    expect(sum(reports, (r) => r.enriched)).toBe(0);
    expect(sum(reports, (r) => r.counts.unchanged)).toBe(sum(reports, (r) => r.counts.postings));
    expect(await ledger()).toEqual(before);
  });

  it('an edited posting is enriched afresh, alone, and its row and record follow the edit', async () => {
    const ramp = ashbyPayload('ramp');
    const edited = ramp.jobs[2] as { id: string; descriptionHtml: string; descriptionPlain: string };
    const boardPath = '/posting-api/job-board/ramp';
    ctx.pipeline.replay.override(boardPath, {
      json: {
        ...ramp,
        jobs: ramp.jobs.map((j) =>
          j === edited ? { ...edited, descriptionHtml: `${edited.descriptionHtml}<p>Interviews now include a paid work sample.</p>`, descriptionPlain: `${edited.descriptionPlain}\nInterviews now include a paid work sample.` } : j,
        ),
      },
    });
    try {
      const target = ctx.pipeline.targets.filter((x) => x.id === 'ashby:ramp');
      const recordBefore = await recordOf(edited.id);
      await forgetValidators();
      const [report] = fetched(await ctx.pipeline.crawl(target));
      expect(report).toMatchObject({ enriched: 1, counts: { updated: 1, unchanged: report!.counts.postings - 1 } });
      const row = await ctx.t.db
        .selectFrom('jobs')
        .innerJoin('job_enrichments', 'job_enrichments.job_id', 'jobs.id')
        .select(['jobs.description_text', 'job_enrichments.source_digest', 'job_enrichments.record'])
        .where('jobs.source_posting_id', '=', edited.id)
        .executeTakeFirstOrThrow();
      expect(row.description_text).toContain('paid work sample');
      expect(row.source_digest).not.toBe(recordBefore.source_digest);

      // The edit stays: the next full fetch restores the new record.
      await forgetValidators();
      const [again] = fetched(await ctx.pipeline.crawl(target));
      expect(again).toMatchObject({ enriched: 0, counts: { updated: 0 } });
    } finally {
      ctx.pipeline.replay.override(boardPath, null);
    }
  });

  it('new FX rates enrich every posting again, and the euro figures follow the rates', async () => {
    const target = ctx.pipeline.targets.filter((x) => x.id === 'ashby:ramp');
    const salaried = await ctx.t.db
      .selectFrom('jobs')
      .select(['source_posting_id', 'salary_min_annual_eur'])
      .where('target_id', '=', 'ashby:ramp')
      .where('salary_currency', '=', 'USD')
      .where('salary_period', '=', 'annual')
      .orderBy('source_posting_id')
      .execute();
    expect(salaried.length).toBeGreaterThan(5);
    const fx = ctx.pipeline.deps.fx;
    ctx.pipeline.deps.fx = { ...fx, eurPerUnit: { ...fx.eurPerUnit, USD: fx.eurPerUnit.USD * 1.1 } };
    try {
      await forgetValidators();
      const [report] = fetched(await ctx.pipeline.crawl(target));
      expect(report!.enriched).toBe(report!.counts.postings);
      const after = await ctx.t.db
        .selectFrom('jobs')
        .select(['source_posting_id', 'salary_min_annual_eur'])
        .where('source_posting_id', 'in', salaried.map((r) => r.source_posting_id))
        .orderBy('source_posting_id')
        .execute();
      for (const [i, row] of after.entries()) {
        expect(row.salary_min_annual_eur!).toBeCloseTo(salaried[i]!.salary_min_annual_eur! * 1.1, -1);
      }
    } finally {
      ctx.pipeline.deps.fx = fx;
    }
  });

  async function recordOf(sourcePostingId: string) {
    return ctx.t.db
      .selectFrom('job_enrichments')
      .innerJoin('jobs', 'jobs.id', 'job_enrichments.job_id')
      .select(['job_enrichments.source_digest'])
      .where('jobs.source_posting_id', '=', sourcePostingId)
      .executeTakeFirstOrThrow();
  }
});
