/**
 * Retention of the change feed (issue 20): events older than the window are deleted in batches, a
 * `since` before the oldest kept event answers 410 since_expired, and the documented recovery
 * (export, then /v1/changes from the export's watermark) loses and repeats nothing while writers keep
 * committing. Real PostgreSQL, real recorded postings through the production write path, the real app.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import type { LedgerPosting } from '../src/domain/lifecycle.ts';
import { upsertTarget } from '../src/store/crawl-targets.ts';
import { resolveCompanies, writeCrawl } from '../src/store/ledger.ts';
import { applyRetention, changeFeedHorizon, deleteClosedEnrichmentRecords } from '../src/store/retention.ts';
import { bearer, TEST_DOCS_URL, useTestApp } from './helpers/app.ts';
import { ashbyLedgerPostings } from './helpers/postings.ts';

type ChangeItem = { change: string; id: string; changed_at: string; job?: Job };
type ChangesPage = { count: number; data: ChangeItem[]; next_since: string };

describe('change feed retention', () => {
  const ctx = useTestApp({ database: { maxConnections: 8 }, key: 'unlimited' });
  let targetId: string;
  let postings: LedgerPosting[];
  let companies: Awaited<ReturnType<typeof resolveCompanies>>;

  const changes = (since: string, limit = 500) =>
    ctx.app.inject({ method: 'GET', url: `/v1/changes?since=${encodeURIComponent(since)}&limit=${limit}`, headers: bearer(ctx.key) });

  async function write(batch: LedgerPosting[]): Promise<void> {
    await ctx.t.db.transaction().execute((trx) => writeCrawl(trx, { targetId, providerId: 'ashby', postings: batch, now: new Date() }, companies));
  }

  beforeAll(async () => {
    targetId = await upsertTarget(ctx.t.db, { providerId: 'ashby', board: 'retention-test' });
    // Real postings without descriptions: the test is about the feed, not about indexing text.
    postings = ['vanta', 'ramp']
      .flatMap((board) => ashbyLedgerPostings(board))
      .map((p) => ({ verdict: p.verdict, job: { ...p.job, descriptionHtml: undefined, descriptionText: undefined, hasDescription: false, fieldSources: { ...p.job.fieldSources, description: 'absent' as const } } }));
    companies = await resolveCompanies(ctx.t.db, postings);
    await write(postings);
  });

  it('deletes events older than the window in batches; a since before the deleted events answers 410 since_expired', async () => {
    const events = await ctx.t.db.selectFrom('change_events').select(['id', 'job_id']).orderBy('published_at').orderBy('job_id').execute();
    expect(events.length).toBeGreaterThan(50);
    const old = events.slice(0, 40);
    // 40 events are made 200 days old (the stamp trigger fires only on insert), and some crawl runs too.
    await sql`UPDATE change_events SET published_at = published_at - interval '200 days' WHERE id = ANY(${old.map((e) => e.id)}::uuid[])`.execute(ctx.t.db);
    await ctx.t.db.insertInto('crawl_runs').values([
      { target_id: targetId, started_at: new Date(Date.now() - 200 * 86_400_000), finished_at: new Date(Date.now() - 200 * 86_400_000), outcome: 'fetched' },
      { target_id: targetId, started_at: new Date(), finished_at: new Date(), outcome: 'fetched' },
    ]).execute();

    // Nothing deleted yet: any since works as before.
    expect((await changes('1970-01-01T00:00:00Z')).statusCode).toBe(200);
    expect(await changeFeedHorizon(ctx.t.db)).toBeUndefined();

    const result = await applyRetention(ctx.t.db, new Date(), { changeEventDays: 90, crawlRunDays: 90 });
    expect(result.changeEvents).toBe(40);
    expect(result.crawlRuns).toBe(1);
    const left = await ctx.t.db.selectFrom('change_events').select('id').where('published_at', '<', new Date(Date.now() - 90 * 86_400_000)).execute();
    expect(left).toEqual([]);
    expect(await ctx.t.db.selectFrom('change_events').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).toEqual({ n: events.length - 40 });
    expect((await ctx.t.db.selectFrom('crawl_runs').select('finished_at').where('target_id', '=', targetId).execute()).length).toBe(1);

    // A since before the oldest kept event: 410 since_expired, with the recovery in the message.
    for (const since of ['1970-01-01T00:00:00Z', new Date(Date.now() - 201 * 86_400_000).toISOString()]) {
      const res = await changes(since);
      expect(res.statusCode, res.body).toBe(410);
      expect(res.json()).toMatchObject({ error: 'since_expired', docs: `${TEST_DOCS_URL}#since_expired`, status: 410 });
      expect(res.json().message).toContain('/v1/export');
    }
    // A cursor exactly at the last deleted event lost nothing; one just before it did.
    const horizon = (await changeFeedHorizon(ctx.t.db))!;
    expect((await changes(`${horizon.at}|${horizon.id}`)).statusCode).toBe(200);
    expect((await changes(`${horizon.at}|00000000-0000-0000-0000-000000000000`)).statusCode).toBe(410);
    // A since after the deleted events, even one older than the window, lost nothing: it works as today.
    expect((await changes(new Date(Date.now() - 100 * 86_400_000).toISOString())).statusCode).toBe(200);
    // A since inside the window works as today and serves every kept event.
    let since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    let served = 0;
    for (;;) {
      const res = await changes(since, 100);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as ChangesPage;
      if (page.count === 0) break;
      served += page.count;
      since = page.next_since;
    }
    // Folded per job: one item per job that still has a kept event.
    const kept = await ctx.t.db.selectFrom('change_events').select(sql<number>`count(DISTINCT job_id)::int`.as('n')).executeTakeFirstOrThrow();
    expect(served).toBe(kept.n);
  });

  it('export, then /v1/changes from the export watermark, loses and repeats nothing while writers keep committing', async () => {
    let stop = false;
    let serial = 0;
    let commits = 0;
    // Two writers rewrite titles of real postings (and so emit updated events) the whole time.
    const writer = async (offset: number) => {
      while (!stop) {
        const batch = postings.filter((_, i) => (i + serial) % 7 === offset).slice(0, 5).map((p) => ({ verdict: p.verdict, job: { ...p.job, title: `${p.job.title} (rev ${++serial})` } }));
        await write(batch);
        commits++;
      }
    };
    const writers = [writer(0), writer(3)];
    try {
      // The client's copy: the export first.
      const exported = await ctx.app.inject({ method: 'GET', url: '/v1/export', headers: bearer(ctx.key) });
      expect(exported.statusCode, exported.body).toBe(200);
      const lines = exported.body.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const final = lines.pop()!;
      expect(final).toMatchObject({ complete: true, count: lines.length });
      expect(typeof final.since).toBe('string');
      const copy = new Map(lines.map((j) => [j.id as string, j.title as string]));
      const watermark = final.since as string;
      const [markAt, markId] = watermark.split('|') as [string, string];

      // Then the feed from the watermark, while the writers keep going, then once more after they stop.
      const seen = new Set<string>();
      let cursor = watermark;
      const follow = async () => {
        for (;;) {
          const res = await changes(cursor, 50);
          expect(res.statusCode, res.body).toBe(200);
          const page = res.json() as ChangesPage;
          if (page.count === 0) return;
          for (const item of page.data) {
            // Nothing repeated: every item is after the watermark and delivered once.
            expect(item.changed_at > markAt || (item.changed_at === markAt && item.id > markId)).toBe(true);
            const key = `${item.changed_at}|${item.id}`;
            expect(seen.has(key)).toBe(false);
            seen.add(key);
            if (item.job) copy.set(item.id, item.job.title);
            else copy.delete(item.id);
          }
          cursor = page.next_since;
        }
      };
      await follow();
      while (commits < 20) await new Promise((r) => setTimeout(r, 10));
      await follow();
      stop = true;
      await Promise.all(writers);
      await follow();

      // Nothing lost: the copy is exactly what the ledger serves now.
      const served = await ctx.t.db.selectFrom('jobs').select(['id', 'title']).where('served', '=', true).execute();
      expect(new Map(served.map((r) => [r.id, r.title]))).toEqual(copy);
      expect(seen.size).toBeGreaterThan(0);
    } finally {
      stop = true;
      await Promise.allSettled(writers);
    }
  });

  it('deletes the enrichment records of rows closed before the crawl-run window, and only those', async () => {
    const db = ctx.t.db;
    const ids = (await db.selectFrom('jobs').select('id').where('target_id', '=', targetId).where('status', '=', 'live').orderBy('id').limit(8).execute()).map((j) => j.id);
    expect(ids).toHaveLength(8);
    const keepRecords = () =>
      sql`INSERT INTO job_enrichments (job_id, source_digest, record, content_hash, board_signals)
          SELECT id, 'digest', '{}'::json, 'hash', '{}'::json FROM jobs WHERE id = ANY(${ids}::uuid[])
          ON CONFLICT (job_id) DO NOTHING`.execute(db);
    const recorded = async () => (await db.selectFrom('job_enrichments').select('job_id').where('job_id', 'in', ids).orderBy('job_id').execute()).map((r) => r.job_id);
    await keepRecords();
    const closeDaysAgo = async (rows: string[], days: number) => {
      await sql`UPDATE jobs SET status = 'closed', closed_reason = 'not_seen' WHERE id = ANY(${rows}::uuid[])`.execute(db);
      await sql`UPDATE jobs SET closed_at = now() - make_interval(days => ${days}) WHERE id = ANY(${rows}::uuid[])`.execute(db);
    };
    const longClosed = ids.slice(0, 3);
    const recentlyClosed = ids.slice(3, 5);
    await closeDaysAgo(longClosed, 200);
    await closeDaysAgo(recentlyClosed, 10);

    const result = await applyRetention(db, new Date(), { changeEventDays: 90, crawlRunDays: 90 });
    expect(result.enrichmentRecords).toBe(3);
    // Live rows and rows closed inside the window keep theirs; the closed rows themselves stay.
    expect(await recorded()).toEqual(ids.slice(3));
    expect(await db.selectFrom('jobs').select('status').where('id', 'in', longClosed).execute()).toEqual(longClosed.map(() => ({ status: 'closed' })));

    // In batches smaller than the rows to delete, every one of them goes.
    await keepRecords();
    expect(await deleteClosedEnrichmentRecords(db, new Date(Date.now() - 90 * 86_400_000), 2)).toBe(3);
    expect(await recorded()).toEqual(ids.slice(3));
  });
});
