/**
 * Ingestion through the real HTTP path: re-imports change nothing, and a failed crawl changes nothing
 * (spec: What the service does; issue acceptance "A connector that receives a 500, a timeout, an HTML
 * error page, or an empty board changes nothing in the ledger").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { replayPipeline, type ReplayPipeline } from './helpers/corpus.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

async function snapshot(t: TestDatabase) {
  const jobs = await t.db
    .selectFrom('jobs')
    .select(['id', 'status', 'content_hash', 'last_verified_at', 'updated_at', 'withheld_kind', 'closed_at'])
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
    pipeline = await replayPipeline(t.db, { timeoutMs: 1_500, retries: 1, backoffMs: 10 });
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
    const reports = await pipeline.crawl(boards);
    expect(reports.map((r) => r.outcome)).toEqual(boards.map(() => 'not_modified'));
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

  describe('a crawl that fails changes nothing in the ledger', () => {
    const cases: Array<[string, Parameters<ReplayPipeline['replay']['override']>[1], string]> = [
      ['a 500', { status: 500, body: '{"error":"internal"}', headers: { 'content-type': 'application/json' } }, 'http_status'],
      ['a timeout', { status: 200, body: '{"jobs":[]}', delayMs: 4_000 }, 'timeout'],
      ['an HTML error page', { status: 200, body: '<html><body><h1>Service Unavailable</h1></body></html>', headers: { 'content-type': 'text/html' } }, 'malformed'],
      ['truncated JSON', { status: 200, body: '{"jobs":[{"id":"abc","title":"Engi', headers: { 'content-type': 'application/json' } }, 'malformed'],
      ['a cut connection', { destroySocket: true }, 'network'],
    ];

    for (const [name, response, kind] of cases) {
      it(`on ${name}`, async () => {
        const board = boards[0]!;
        const path = `/posting-api/job-board/${encodeURIComponent(board.board)}`;
        await t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).execute();
        const before = await snapshot(t);
        pipeline.replay.override(path, response);
        try {
          const [report] = await pipeline.crawl([board]);
          expect(report!.outcome).toBe('failed');
          if (report!.outcome === 'failed') expect(report!.errorKind).toBe(kind);
        } finally {
          pipeline.replay.override(path, null);
        }
        expect(await snapshot(t)).toEqual(before);
        const target = await t.db.selectFrom('crawl_targets').select(['last_error', 'consecutive_failures']).where('id', '=', board.id).executeTakeFirstOrThrow();
        expect(target.last_error).toBeTruthy();
        expect(target.consecutive_failures).toBeGreaterThan(0);
      });
    }

    it('on an empty board: an answer, but no evidence', async () => {
      const board = boards[0]!;
      const path = `/posting-api/job-board/${encodeURIComponent(board.board)}`;
      const before = await snapshot(t);
      pipeline.replay.override(path, { json: { jobs: [], apiVersion: '1' } });
      try {
        const [report] = await pipeline.crawl([board]);
        expect(report!.outcome).toBe('fetched');
      } finally {
        pipeline.replay.override(path, null);
      }
      expect(await snapshot(t)).toEqual(before);
    });
  });
});
