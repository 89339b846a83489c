/**
 * No change is ever lost (issue: "Design the event stamping so that a reader can never pass an event
 * that has not yet committed, and prove it"). Real PostgreSQL (embedded, or DATABASE_URL in CI), real
 * recorded postings through the production write path (`writeCrawl`), the real HTTP app as the reader.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { upsertTarget } from '../src/store/crawl-targets.ts';
import type { LedgerPosting } from '../src/domain/lifecycle.ts';
import { resolveCompanies, writeCrawl } from '../src/store/ledger.ts';
import { bearer, useTestApp } from './helpers/app.ts';
import { ashbyLedgerPostings } from './helpers/postings.ts';

type ChangeItem = { change: string; id: string; changed_at: string; job?: Job };
type ChangesPage = { count: number; data: ChangeItem[]; next_since: string };

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A small deterministic PRNG (mulberry32), so a failing run can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `<timestamp>|<uuid>` as a comparable pair (the timestamp text is fixed-width RFC 3339). */
function position(cursor: string): [string, string] {
  const [at, id] = cursor.split('|');
  return [new Date(at!).toISOString(), id ?? ''];
}

function notBefore(a: [string, string], b: [string, string]): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);
}

const TIME_ZERO = '1970-01-01T00:00:00Z';

describe('the change feed never loses a change', () => {
  // The reader polls thousands of times a minute: this test measures the feed, not the metering.
  const ctx = useTestApp({ database: { maxConnections: 12 }, key: 'unlimited' });
  let targetId: string;

  beforeAll(async () => {
    targetId = await upsertTarget(ctx.t.db, { providerId: 'ashby', board: 'feed-test' });
  });

  async function changes(since: string, limit: number): Promise<ChangesPage> {
    const res = await ctx.app.inject({ method: 'GET', url: `/v1/changes?since=${encodeURIComponent(since)}&limit=${limit}`, headers: bearer(ctx.key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ChangesPage;
  }

  /** Follow next_since from `since` until an empty page; returns every item and the last cursor. */
  async function drain(since: string, limit = 500): Promise<{ items: ChangeItem[]; cursor: string }> {
    let cursor = since;
    const items: ChangeItem[] = [];
    for (;;) {
      const page = await changes(cursor, limit);
      if (page.count === 0) {
        expect(page.next_since).toBe(cursor);
        return { items, cursor };
      }
      items.push(...page.data);
      cursor = page.next_since;
    }
  }

  it('delivers the event of a writer that stamped first and committed last', async () => {
    const a = ashbyLedgerPostings('cursor').slice(0, 3);
    const b = ashbyLedgerPostings('n8n').slice(0, 3);
    const companies = await resolveCompanies(ctx.t.db, [...a, ...b]);
    const now = new Date();

    // Writer A writes its rows and its events (taking its feed stamp), then holds its transaction open.
    const aStamped = deferred<number>();
    const releaseA = deferred();
    const writerA = ctx.t.db.transaction().execute(async (trx) => {
      await writeCrawl(trx, { targetId, providerId: 'ashby', postings: a, now }, companies);
      const { rows } = await sql<{ pid: number; stamp: Date }>`SELECT pg_backend_pid() AS pid, (SELECT max(published_at) FROM change_events) AS stamp`.execute(trx);
      aStamped.resolve(rows[0]!.pid);
      await releaseA.promise;
    });
    await aStamped.promise;

    // Writer B starts later, so its changes must come after A's; its commit has to wait for A.
    const bStarted = deferred<number>();
    let bCommitted = false;
    const writerB = ctx.t.db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        bStarted.resolve(rows[0]!.pid);
        await writeCrawl(trx, { targetId, providerId: 'ashby', postings: b, now }, companies);
      })
      .then(() => {
        bCommitted = true;
      });
    const bPid = await bStarted.promise;
    // B is held at its feed stamp behind A's open transaction (a lock wait in PostgreSQL itself).
    for (let i = 0; ; i++) {
      const { rows } = await sql<{ wait: string | null }>`SELECT wait_event_type AS wait FROM pg_stat_activity WHERE pid = ${bPid}`.execute(ctx.t.db);
      if (rows[0]?.wait === 'Lock') break;
      expect(i, 'writer B never waited for writer A').toBeLessThan(500);
      await new Promise((r) => setTimeout(r, 10));
    }

    // The reader reads now: nothing has committed, so nothing is delivered and the cursor stays put.
    const early = await changes(TIME_ZERO, 100);
    expect(early).toEqual({ count: 0, data: [], next_since: TIME_ZERO });
    expect(bCommitted).toBe(false);

    // A commits, then B. The reader, continuing from its cursor, gets A's changes first, then B's.
    releaseA.resolve();
    await writerA;
    await writerB;
    const { items } = await drain(early.next_since, 100);
    const aIds = await ctx.t.db.selectFrom('jobs').select('id').where('source_posting_id', 'in', a.map((p) => p.job.sourcePostingId)).execute();
    const bIds = await ctx.t.db.selectFrom('jobs').select('id').where('source_posting_id', 'in', b.map((p) => p.job.sourcePostingId)).execute();
    expect(items.map((i) => i.change)).toEqual(Array(6).fill('created'));
    expect(new Set(items.slice(0, 3).map((i) => i.id))).toEqual(new Set(aIds.map((r) => r.id)));
    expect(new Set(items.slice(3).map((i) => i.id))).toEqual(new Set(bIds.map((r) => r.id)));
    expect(items[2]!.changed_at < items[3]!.changed_at).toBe(true);
  });

  it('keeps a polling reader exactly in step with 4 writers doing 20,000 upserts, some long, some rolled back', async () => {
    const seed = Number(process.env.FEED_TEST_SEED ?? Date.now() % 1_000_000);
    const random = prng(seed);
    const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
    // Real postings of five boards, without their descriptions: every rewrite of a row with a description
    // re-indexes hundreds of words (GIN), which would make this test about indexing speed, not ordering.
    const base = ['vanta', 'ramp', 'harvey', '1password', 'supabase']
      .flatMap((board) => ashbyLedgerPostings(board))
      .map((p) => ({
        verdict: p.verdict,
        job: { ...p.job, descriptionHtml: undefined, descriptionText: undefined, hasDescription: false, fieldSources: { ...p.job.fieldSources, description: 'absent' as const } },
      }));
    const companies = await resolveCompanies(ctx.t.db, base);
    const WRITERS = 4;
    const UPSERTS = 20_000;
    let remaining = UPSERTS;
    let serial = 0;
    const stats = { committed: 0, rolledBack: 0, long: 0, held: 0, retried: 0 };

    // One mutation of a real posting: new content, a verdict against it, a passed close date, or as recorded.
    function mutate(p: LedgerPosting): LedgerPosting {
      const r = random();
      if (r < 0.5) return { job: { ...p.job, title: `${p.job.title} (rev ${++serial})` }, verdict: p.verdict };
      if (r < 0.65) return { job: p.job, verdict: { verdict: 'quality_gated', ruleId: 'apply_url.missing' } };
      if (r < 0.75) return { job: { ...p.job, upstreamClosesAt: '2025-01-01T23:59:59.000Z' }, verdict: p.verdict };
      return p;
    }

    async function transaction(postings: LedgerPosting[], shape: 'plain' | 'long' | 'held' | 'rollback'): Promise<void> {
      for (let attempt = 0; ; attempt++) {
        try {
          await ctx.t.db.transaction().execute(async (trx) => {
            if (shape === 'long') {
              // A long transaction: it holds its rows' locks for a while before writing its changes.
              await trx.selectFrom('jobs').select('id').where('source_posting_id', 'in', postings.map((p) => p.job.sourcePostingId)).orderBy('id').forUpdate().execute();
              await new Promise((r) => setTimeout(r, int(20, 120)));
            }
            await writeCrawl(trx, { targetId, providerId: 'ashby', postings, now: new Date() }, companies);
            // Holding the transaction open after its feed stamp: every other writer's stamp waits.
            if (shape === 'held') await new Promise((r) => setTimeout(r, int(5, 30)));
            if (shape === 'rollback') throw new Error('rollback');
          });
          stats.committed++;
          return;
        } catch (error) {
          if ((error as Error).message === 'rollback') {
            stats.rolledBack++;
            return;
          }
          // A serialization failure or deadlock is retried like any production writer would.
          if (['40001', '40P01'].includes((error as { code?: string }).code ?? '') && attempt < 5) {
            stats.retried++;
            continue;
          }
          throw error;
        }
      }
    }

    let created = 0;
    const allCreated = deferred();
    async function writer(index: number): Promise<void> {
      // First every writer creates its own slice of the real postings, then all writers mutate any of them.
      const own = base.filter((_, i) => i % WRITERS === index);
      for (let i = 0; i < own.length; i += 20) {
        const batch = own.slice(i, i + 20);
        remaining -= batch.length;
        await transaction(batch, 'plain');
      }
      if (++created === WRITERS) allCreated.resolve();
      await allCreated.promise;
      while (remaining > 0) {
        const size = Math.min(remaining, int(1, 40));
        remaining -= size;
        const picked = new Map<string, LedgerPosting>();
        while (picked.size < size) {
          const p = base[int(0, base.length - 1)]!;
          picked.set(p.job.sourcePostingId, mutate(p));
        }
        const r = random();
        const shape = r < 0.1 ? 'rollback' : r < 0.15 ? 'long' : r < 0.18 ? 'held' : 'plain';
        if (shape === 'long') stats.long++;
        if (shape === 'held') stats.held++;
        await transaction([...picked.values()], shape);
      }
    }

    // The reader polls with small pages from time zero while the writers run, then drains.
    const state = new Map<string, Job>();
    let cursor = TIME_ZERO;
    let pages = 0;
    let writersDone = false;
    const apply = (page: ChangesPage) => {
      const before = position(cursor);
      for (const item of page.data) {
        expect(notBefore(position(`${item.changed_at}|${item.id}`), before)).toBe(true);
        if (item.change === 'created' || item.change === 'updated') state.set(item.id, item.job!);
        else state.delete(item.id);
      }
      expect(notBefore(position(page.next_since), before), `cursor went backwards: ${cursor} -> ${page.next_since}`).toBe(true);
      cursor = page.next_since;
      pages++;
    };
    const reader = (async () => {
      for (;;) {
        const done = writersDone;
        const page = await changes(cursor, int(10, 120));
        apply(page);
        if (page.count === 0) {
          if (done) return;
          await new Promise((r) => setTimeout(r, 2));
        }
      }
    })();

    const started = Date.now();
    try {
      await Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i)));
    } finally {
      writersDone = true;
      await reader;
    }
    const seconds = (Date.now() - started) / 1000;

    // The reader holds exactly what /v1/jobs serves, row for row. Only last_verified_at may be newer on
    // the server: a re-verification is not a change (issue: "content change ... not last_verified_at").
    const served: Job[] = [];
    let next: string | null = null;
    do {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/jobs?limit=200${next ? `&cursor=${encodeURIComponent(next)}` : ''}`, headers: bearer(ctx.key) });
      const page = res.json() as { data: Job[]; next_cursor: string | null };
      served.push(...page.data);
      next = page.next_cursor;
    } while (next);
    const context = `seed ${seed}, ${JSON.stringify(stats)}, ${pages} pages, ${seconds}s`;
    expect(served.length, context).toBeGreaterThan(0);
    expect(state.size, context).toBe(served.length);
    const content = ({ last_verified_at: _, ...rest }: Job) => rest;
    for (const job of served) expect(content(state.get(job.id)!), `${job.id} (${context})`).toEqual(content(job));
    expect(stats.rolledBack, context).toBeGreaterThan(0);
    expect(stats.long, context).toBeGreaterThan(0);
    // Every kind of change went through the feed.
    const kinds = await ctx.t.db.selectFrom('change_events').select('change').distinct().execute();
    expect(new Set(kinds.map((k) => k.change))).toEqual(new Set(['created', 'updated', 'withdrawn', 'delisted']));
    // The fold the feed reads (migration 035) is exactly "a later event of the job exists", after all of it.
    const fold = await sql<{ superseded: number; wrong: number }>`
      SELECT count(*) FILTER (WHERE superseded)::int AS superseded,
             count(*) FILTER (WHERE superseded IS DISTINCT FROM EXISTS (SELECT 1 FROM change_events l WHERE l.job_id = e.job_id AND l.published_at > e.published_at))::int AS wrong
        FROM change_events e`.execute(ctx.t.db);
    expect(fold.rows[0]!.superseded, context).toBeGreaterThan(1_000);
    expect(fold.rows[0]!.wrong, context).toBe(0);
    console.info(`change feed concurrency: ${UPSERTS} upserts by ${WRITERS} writers in ${seconds}s; ${context}`);
  });
});
