/**
 * The reality signals of issue 15 ("Also": `repost_count`, "the same employer, title and location seen
 * again after closing", and how far `posted_at` lags `first_seen_at`), as a client of /v1/jobs sees them,
 * on a real recorded Ashby board replayed through the loopback replay server, the real fetcher, connector,
 * enrichment, quality gate and ledger. The rules are domain/lifecycle.ts's (decideRepostCount,
 * firstSeenLagHours); docs/lifecycle.md "Reality signals".
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { bearer } from './helpers/app.ts';
import { outcomes, useReplayApp } from './helpers/corpus.ts';
import { ashbyPayload } from './helpers/postings.ts';

type AshbyJob = Record<string, unknown> & { id: string; jobUrl: string; title: string };

describe('reality signals on a replayed real board', () => {
  let ramp: CrawlTargetRow;

  const payload = ashbyPayload('ramp');
  const jobs = payload.jobs as AshbyJob[];
  // Real postings of the recorded board: one the employer re-posts under new ids, one that leaves and
  // comes back under its own id, one with a second opening posted beside it.
  const [reposted, returning, opening] = jobs.slice(0, 3) as [AshbyJob, AshbyJob, AshbyJob];
  const boardPath = `/posting-api/job-board/${encodeURIComponent('ramp')}`;
  /** The same advert under a new posting id (new URLs too), as an employer re-posting it would publish. */
  const copyOf = (job: AshbyJob): AshbyJob => {
    const id = randomUUID();
    return { ...job, id, jobUrl: `https://jobs.ashbyhq.com/ramp/${id}`, applyUrl: `https://jobs.ashbyhq.com/ramp/${id}/application` };
  };
  const repostedAgain = copyOf(reposted);
  const repostedThird = copyOf(reposted);
  const secondOpening = copyOf(opening);

  const board = (list: AshbyJob[]) => ({ ...payload, jobs: list });

  const ctx = useReplayApp({ plan: 'growth', fetch: { retries: 0 }, lifecycle: { absence: { crawls: 2, minSeconds: 0 } } });
  beforeAll(() => {
    ramp = ctx.pipeline.targets.find((x) => x.id === 'ashby:ramp')!;
  });

  async function served(sourcePostingId: string): Promise<Job> {
    const row = await ctx.t.db.selectFrom('jobs').select(['id', 'status']).where('provider_id', '=', 'ashby').where('source_posting_id', '=', sourcePostingId).executeTakeFirstOrThrow();
    const res = await ctx.app.inject({ method: 'GET', url: `/v1/jobs/${row.id}?include_closed=true`, headers: bearer(ctx.key) });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: Job }).data;
  }

  async function crawl(list: AshbyJob[] | null) {
    ctx.pipeline.replay.override(boardPath, list ? { json: board(list) } : null);
    const reports = await ctx.pipeline.crawl([ramp]);
    expect(outcomes(reports)[0]).toMatch(/^(fetched|not_modified)$/);
  }

  it('first crawl: no row is a repost, and each row with posted_at says how long after it the ledger first saw it', async () => {
    await crawl(null);
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/jobs?company=ramp&limit=200', headers: bearer(ctx.key) });
    expect(res.statusCode, res.body).toBe(200);
    const page = (res.json() as { data: Job[] }).data;
    expect(page.length).toBeGreaterThan(10);
    for (const job of page) {
      expect(job.repost_count).toBe(0);
      expect(job.field_sources.repost_count).toBe('inferred');
      if (job.posted_at) {
        // The board was recorded on 2025-10-28; the ledger first sees it today, so the lag is the advert's age.
        const expected = Math.round((Date.parse(job.first_seen_at!) - Date.parse(job.posted_at)) / 3_600_000);
        expect(job.first_seen_lag_hours).toBe(expected);
        expect(job.first_seen_lag_hours).toBeGreaterThan(24 * 20);
        expect(job.field_sources.first_seen_lag_hours).toBe('inferred');
      } else {
        expect(job).not.toHaveProperty('first_seen_lag_hours');
        expect(job.field_sources.first_seen_lag_hours).toBe('absent');
      }
    }
    expect(page.some((j) => j.posted_at !== undefined)).toBe(true);
  });

  it('an advert taken down and put up under a new id is a repost; a second opening beside a listed one is not', async () => {
    const rest = jobs.filter((j) => j !== reposted && j !== returning);
    await crawl([...rest, repostedAgain, secondOpening]);
    const again = await served(repostedAgain.id);
    expect([again.title, again.status, again.repost_count, again.field_sources.repost_count]).toEqual([reposted.title, 'live', 1, 'inferred']);
    // The first posting's row is still live (the absence rule closes it later), but it left its source.
    expect((await served(reposted.id)).status).toBe('live');
    expect((await served(secondOpening.id)).repost_count).toBe(0);
    expect((await served(opening.id)).repost_count).toBe(0);
  });

  it('a closed advert that comes back under its own id counts one more, and so does a third posting of the same advert', async () => {
    const rest = jobs.filter((j) => j !== reposted && j !== returning);
    // A second good crawl without them closes the first posting and the returning one as not_seen.
    await crawl([...rest, repostedAgain, secondOpening, { ...opening, descriptionPlain: `${String(opening.descriptionPlain)}\n` }]);
    for (const id of [reposted.id, returning.id]) expect((await served(id)).closed_reason).toBe('not_seen');
    expect((await served(returning.id)).repost_count).toBe(0);

    await crawl([...rest, returning, repostedThird, secondOpening]);
    const back = await served(returning.id);
    expect([back.status, back.repost_count]).toEqual(['live', 1]);
    // Its predecessors: the first posting (closed, 0) and the second (left the board now, 1).
    const third = await served(repostedThird.id);
    expect([third.status, third.repost_count]).toEqual(['live', 2]);
    // Rows that were not re-posted keep 0; the closed first posting keeps its own count.
    expect((await served(reposted.id)).repost_count).toBe(0);
    expect((await served(opening.id)).repost_count).toBe(0);
  });
});
