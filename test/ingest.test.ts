/**
 * Ingestion through the real HTTP path: re-imports change nothing, and a failed crawl changes and
 * closes nothing (spec: What the service does; issue acceptance "A failed crawl (500, timeout, HTML
 * page, empty board, truncated JSON) closes nothing: a test per case").
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { createFetcher, type FetchErrorKind } from '../src/ingest/fetcher.ts';
import { outcomes, replayPipeline, testFetchConfig, type ReplayPipeline } from './helpers/corpus.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { ashbyPayload } from './helpers/postings.ts';

async function snapshot(t: TestDatabase) {
  const jobs = await t.db
    .selectFrom('jobs')
    .select(['id', 'target_id', 'missed_crawls', 'status', 'content_hash', 'last_verified_at', 'updated_at', 'withheld_kind', 'closed_at'])
    .orderBy('id')
    .execute();
  const events = await t.db.selectFrom('change_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { jobs, events: events.n };
}

describe('ingestion', () => {
  let t: TestDatabase;
  let pipeline: ReplayPipeline;
  let boards: CrawlTargetRow[];

  beforeAll(async () => {
    t = await createTestDatabase();
    pipeline = await replayPipeline(t.db, { retries: 1, backoffMs: 10 });
    // Three Ashby boards with postings and one USAJOBS file keep this file fast.
    const ashby = pipeline.targets.filter((x) => x.provider_id === 'ashby');
    boards = [...ashby.slice(0, 3), pipeline.targets.find((x) => x.provider_id === 'usajobs')!];
    const reports = await pipeline.crawl(boards);
    expect(reports.every((r) => r.outcome === 'fetched')).toBe(true);
  });
  afterAll(async () => {
    await pipeline.close();
    await t.drop();
  });

  it('records a created event for every served row and none for rows that entered closed or withheld', async () => {
    const served = await t.db.selectFrom('jobs').select('id').where('served', '=', true).execute();
    const events = await t.db.selectFrom('change_events').select(['job_id', 'change']).execute();
    expect(events.every((e) => e.change === 'created')).toBe(true);
    expect(new Set(events.map((e) => e.job_id))).toEqual(new Set(served.map((r) => r.id)));
  });

  it('answers a second import with 304s: nothing changes but last_verified_at', async () => {
    const before = await snapshot(t);
    const targetsBefore = await t.db.selectFrom('crawl_targets').select(['id', 'good_crawls']).where('id', 'in', boards.map((b) => b.id)).execute();
    const startedAt = new Date();
    const reports = await pipeline.crawl(boards);
    expect(outcomes(reports)).toEqual(boards.map(() => 'not_modified'));
    // Each 304 is recorded as a good not-modified crawl, with the rows it re-verified, and its lease given back.
    const runs = await t.db.selectFrom('crawl_runs').selectAll().where('started_at', '>=', startedAt).where('target_id', 'in', boards.map((b) => b.id)).execute();
    expect(runs.map((r) => r.target_id).sort()).toEqual(boards.map((b) => b.id).sort());
    for (const run of runs) {
      const listed = before.jobs.filter((j) => j.target_id === run.target_id && j.missed_crawls === 0).length;
      expect(run).toMatchObject({ outcome: 'not_modified', error_kind: null, postings: 0, created: 0, updated: 0, unchanged: listed, closed: 0, withdrawn: 0 });
      expect(listed).toBeGreaterThan(0);
      expect(run.finished_at.getTime()).toBeGreaterThanOrEqual(run.started_at.getTime());
    }
    const targetsAfter = await t.db.selectFrom('crawl_targets').selectAll().where('id', 'in', boards.map((b) => b.id)).execute();
    for (const target of targetsAfter) {
      const was = targetsBefore.find((x) => x.id === target.id)!;
      expect(target).toMatchObject({ good_crawls: was.good_crawls + 1, consecutive_failures: 0, last_error: null, lease_owner: null, lease_expires_at: null });
      expect(target.last_success_at!.getTime()).toBeGreaterThanOrEqual(startedAt.getTime());
      expect(target.etag ?? target.last_modified).toBeTruthy();
    }
    const after = await snapshot(t);
    expect(after.events).toBe(before.events);
    expect(after.jobs.map(({ last_verified_at: _, ...rest }) => rest)).toEqual(before.jobs.map(({ last_verified_at: _, ...rest }) => rest));
    const listed = after.jobs.filter((j, i) => j.last_verified_at.getTime() > before.jobs[i]!.last_verified_at.getTime());
    expect(listed.length).toBe(after.jobs.length);
  });

  it('changes no row and emits no event when unchanged feeds are fetched in full again', async () => {
    await t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).execute();
    const before = await snapshot(t);
    const reports = await pipeline.crawl(boards);
    for (const r of reports) {
      expect(r.outcome).toBe('fetched');
      if (r.outcome === 'fetched') {
        expect(r.counts.created + r.counts.updated + r.counts.closed).toBe(0);
        expect(r.counts.unchanged).toBe(r.counts.postings);
      }
    }
    const after = await snapshot(t);
    expect(after.events).toBe(before.events);
    expect(after.jobs.map(({ last_verified_at: _, ...rest }) => rest)).toEqual(before.jobs.map(({ last_verified_at: _, ...rest }) => rest));
  });

  it('counts a 304 as one more good crawl for a live row the board stopped listing, and closes it as not_seen at the threshold', async () => {
    const board = boards[0]!;
    const live = await t.db.selectFrom('jobs').select(['id', 'last_verified_at']).where('target_id', '=', board.id).where('status', '=', 'live').orderBy('id').limit(2).execute();
    const [gone, listed] = [live[0]!, live[1]!];
    // As the last good crawl would have left a row it did not list (the 304 says the board is still as then).
    await t.db.updateTable('jobs').set({ missed_crawls: 1 }).where('id', '=', gone.id).execute();
    const state = (id: string) => t.db.selectFrom('jobs').select(['status', 'closed_reason', 'missed_crawls', 'last_verified_at']).where('id', '=', id).executeTakeFirstOrThrow();
    pipeline.deps.absence = { crawls: 3, minSeconds: 0 };
    try {
      const [first] = await pipeline.crawl([board]);
      expect(first).toMatchObject({ outcome: 'not_modified', notSeen: 0 });
      expect(await state(gone.id)).toMatchObject({ status: 'live', missed_crawls: 2, last_verified_at: gone.last_verified_at });
      const seen = await state(listed.id);
      expect(seen).toMatchObject({ status: 'live', missed_crawls: 0 });
      expect(seen.last_verified_at.getTime()).toBeGreaterThan(listed.last_verified_at.getTime());

      const [second] = await pipeline.crawl([board]);
      expect(second).toMatchObject({ outcome: 'not_modified', notSeen: 1 });
      expect(await state(gone.id)).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
      const delisted = await t.db.selectFrom('change_events').select('change').where('job_id', '=', gone.id).orderBy('published_at', 'desc').executeTakeFirstOrThrow();
      expect(delisted.change).toBe('delisted');
    } finally {
      pipeline.deps.absence = undefined;
    }
  });

  describe('a crawl that fails closes nothing, even rows one good crawl away from not_seen', () => {
    // One posting of the board has already missed a good crawl; with a threshold of two, the next good
    // crawl without it closes it. Every failure below must leave it (and everything else) alone.
    let board: CrawlTargetRow;
    let path: string;
    let payload: { jobs: Array<{ id: string }> };
    let missingId: string;

    beforeAll(async () => {
      board = boards[1]!;
      path = `/posting-api/job-board/${encodeURIComponent(board.board)}`;
      payload = ashbyPayload(board.board) as unknown as typeof payload;
      missingId = payload.jobs[0]!.id;
      pipeline.deps.absence = { crawls: 2, minSeconds: 0 };
      pipeline.replay.override(path, { json: { ...payload, jobs: payload.jobs.slice(1) } });
      const [report] = await pipeline.crawl([board]);
      pipeline.replay.override(path, null);
      expect(report!.outcome).toBe('fetched');
      const row = await t.db.selectFrom('jobs').select(['status', 'missed_crawls']).where('source_posting_id', '=', missingId).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'live', missed_crawls: 1 });
    });
    afterAll(() => {
      pipeline.deps.absence = undefined;
    });

    const failures: Array<[string, Parameters<ReplayPipeline['replay']['override']>[1], FetchErrorKind | 'malformed']> = [
      ['a 500', { status: 500, body: '{"error":"internal"}', headers: { 'content-type': 'application/json' } }, 'http_status'],
      ['a timeout', { status: 200, body: '{"jobs":[]}', delayMs: 4_000 }, 'timeout'],
      ['an HTML page', { status: 200, body: '<!doctype html><html><body><h1>We are down for maintenance</h1></body></html>', headers: { 'content-type': 'text/html' } }, 'malformed'],
      ['truncated JSON', { status: 200, body: '{"jobs":[{"id":"abc","title":"Engi', headers: { 'content-type': 'application/json' } }, 'malformed'],
      ['a malformed payload', { json: { jobs: 'none', apiVersion: '1' } }, 'malformed'],
      ['a cut connection', { destroySocket: true }, 'network'],
    ];
    for (const [name, response, kind] of failures) {
      it(`on ${name}`, async () => {
        await t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).execute();
        const before = await snapshot(t);
        pipeline.replay.override(path, response);
        const fetcher = pipeline.deps.fetcher;
        // The timeout case gets a fetcher with a time limit shorter than the answer's delay.
        const impatient = kind === 'timeout' ? createFetcher(testFetchConfig({ timeoutMs: 1_500, retries: 1, backoffMs: 10 })) : undefined;
        if (impatient) pipeline.deps.fetcher = impatient;
        try {
          const [report] = await pipeline.crawl([board]);
          expect(report!.outcome).toBe('failed');
          if (report!.outcome === 'failed') expect(report!.errorKind).toBe(kind);
        } finally {
          pipeline.replay.override(path, null);
          pipeline.deps.fetcher = fetcher;
          await impatient?.close();
        }
        expect(await snapshot(t)).toEqual(before);
        const row = await t.db.selectFrom('jobs').select(['status', 'missed_crawls']).where('source_posting_id', '=', missingId).executeTakeFirstOrThrow();
        expect(row).toEqual({ status: 'live', missed_crawls: 1 });
        const target = await t.db.selectFrom('crawl_targets').select(['last_error', 'consecutive_failures']).where('id', '=', board.id).executeTakeFirstOrThrow();
        expect(target.last_error).toBeTruthy();
        expect(target.consecutive_failures).toBeGreaterThan(0);
      });
    }

    it('on a ledger that cannot be read before the write (reported as ledger, not internal)', async () => {
      await t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).execute();
      const before = await snapshot(t);
      // A real statement failure on the read of the kept enrichment records (42P01, no such relation).
      await sql`ALTER TABLE job_enrichments RENAME TO job_enrichments_away`.execute(t.db);
      let report;
      try {
        [report] = await pipeline.crawl([board]);
      } finally {
        await sql`ALTER TABLE job_enrichments_away RENAME TO job_enrichments`.execute(t.db);
      }
      expect(report).toMatchObject({ outcome: 'failed', errorKind: 'ledger' });
      expect(await snapshot(t)).toEqual(before);
      const row = await t.db.selectFrom('jobs').select(['status', 'missed_crawls']).where('source_posting_id', '=', missingId).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'live', missed_crawls: 1 });
    });

    it('on an empty board', async () => {
      const before = await snapshot(t);
      pipeline.replay.override(path, { json: { jobs: [], apiVersion: '1' } });
      try {
        const [report] = await pipeline.crawl([board]);
        expect(report!.outcome).toBe('fetched');
      } finally {
        pipeline.replay.override(path, null);
      }
      expect(await snapshot(t)).toEqual(before);
      // Its validators are not kept, so no later 304 can stand for "still empty".
      const target = await t.db.selectFrom('crawl_targets').select('etag').where('id', '=', board.id).executeTakeFirstOrThrow();
      expect(target.etag).toBeNull();
    });

    it('while a good crawl without the posting does close it (the control)', async () => {
      pipeline.replay.override(path, { json: { ...payload, jobs: payload.jobs.slice(1) } });
      try {
        const [report] = await pipeline.crawl([board]);
        expect(report!.outcome === 'fetched' && report!.counts.notSeen).toBe(1);
      } finally {
        pipeline.replay.override(path, null);
      }
      const row = await t.db.selectFrom('jobs').select(['status', 'closed_reason']).where('source_posting_id', '=', missingId).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'closed', closed_reason: 'not_seen' });
    });
  });
});
