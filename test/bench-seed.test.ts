/**
 * The benchmark ledger generator (`jobledger bench-seed`, src/bench/seed.ts): deterministic by seed,
 * rows that satisfy the ledger's constraints and follow the imported corpus, and a change feed clock
 * moved past the generated history.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchContentHash, seedBenchLedger } from '../src/bench/seed.ts';
import { jobObjectSql } from '../src/store/job-lines.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

const ROWS = 2_000;
const ANCHOR = new Date('2026-06-01T00:00:00Z');

describe('bench-seed', () => {
  let a: TestDatabase;
  let b: TestDatabase;
  let c: TestDatabase;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([createTestDatabase({ corpus: true }), createTestDatabase({ corpus: true }), createTestDatabase({ corpus: true })]);
    await seedBenchLedger(a, { rows: ROWS, seed: 42, anchor: ANCHOR, chunkRows: 700 });
    await seedBenchLedger(b, { rows: ROWS, seed: 42, anchor: ANCHOR, chunkRows: 1_000 });
    await seedBenchLedger(c, { rows: ROWS, seed: 43, anchor: ANCHOR });
  }, 240_000);
  afterAll(async () => {
    await Promise.all([a?.drop(), b?.drop(), c?.drop()]);
  });

  it('gives identical rows for the same seed, whatever the chunk size, and other rows for another seed', async () => {
    const [ha, hb, hc] = await Promise.all([benchContentHash(a.db), benchContentHash(b.db), benchContentHash(c.db)]);
    expect(ha).toMatch(/^[0-9a-f]{32}$/);
    expect(hb).toBe(ha);
    expect(hc).not.toBe(ha);
  });

  it('writes the rows asked for, mostly served, some closed and withheld, spread over the year before the anchor', async () => {
    const stats = await sql<{ rows: number; served: number; closed: number; withheld: number; first: Date; last: Date; slugs: number }>`
      SELECT count(*)::int AS rows, count(*) FILTER (WHERE served)::int AS served, count(*) FILTER (WHERE status = 'closed')::int AS closed,
             count(*) FILTER (WHERE status = 'live' AND NOT served)::int AS withheld, min(first_seen_at) AS first, max(first_seen_at) AS last,
             count(DISTINCT slug)::int AS slugs
        FROM jobs WHERE source_posting_id LIKE 'bench-42-%'`.execute(a.db);
    const s = stats.rows[0]!;
    expect(s.rows).toBe(ROWS);
    expect(s.slugs).toBe(ROWS);
    expect(s.served / ROWS).toBeGreaterThan(0.7);
    expect(s.closed / ROWS).toBeGreaterThan(0.15);
    expect(s.withheld).toBeGreaterThan(0);
    expect(s.first.getTime()).toBeGreaterThanOrEqual(ANCHOR.getTime() - 366 * 86_400_000);
    expect(s.last.getTime()).toBeLessThanOrEqual(ANCHOR.getTime());
    expect(s.last.getTime() - s.first.getTime()).toBeGreaterThan(300 * 86_400_000);
  });

  it('gives every row its change events and moves the feed clock past them', async () => {
    const events = await sql<{ change: string; n: number }>`
      SELECT e.change, count(*)::int AS n FROM change_events e JOIN jobs j ON j.id = e.job_id
       WHERE j.source_posting_id LIKE 'bench-42-%' GROUP BY 1`.execute(a.db);
    const byChange = Object.fromEntries(events.rows.map((r) => [r.change, r.n]));
    expect(byChange.created).toBe(ROWS);
    const closed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE source_posting_id LIKE 'bench-42-%' AND status = 'closed'`.execute(a.db);
    expect(byChange.delisted).toBe(closed.rows[0]!.n);
    expect(byChange.updated).toBeGreaterThan(0);
    // Each event carries its row's country, as the ledger's trigger would have set it (country-locked feeds read it).
    const mismatched = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM change_events e JOIN jobs j ON j.id = e.job_id
       WHERE j.source_posting_id LIKE 'bench-42-%' AND e.country IS DISTINCT FROM j.country`.execute(a.db);
    expect(mismatched.rows[0]!.n).toBe(0);
    // The change feed's fold (migration 035): every event but its row's latest is superseded.
    const fold = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM change_events e JOIN jobs j ON j.id = e.job_id
       WHERE j.source_posting_id LIKE 'bench-42-%'
         AND e.superseded IS DISTINCT FROM EXISTS (SELECT 1 FROM change_events l WHERE l.job_id = e.job_id AND l.published_at > e.published_at)`.execute(a.db);
    expect(fold.rows[0]!.n).toBe(0);
    const clock = await sql<{ ok: boolean }>`
      SELECT (SELECT stamp FROM change_feed_clock) >= greatest((SELECT max(published_at) FROM change_events), (SELECT max(closed_at) FROM jobs)) AS ok`.execute(a.db);
    expect(clock.rows[0]!.ok).toBe(true);
  });

  it('gives every generated row its served line, as the listings read it (migration 034: the seeder writes as a replica)', async () => {
    const lines = await sql<{ n: number; stale: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE j.served_json IS DISTINCT FROM ${sql.raw(jobObjectSql(false))})::int AS stale
        FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.source_posting_id LIKE 'bench-42-%'`.execute(a.db);
    expect(lines.rows[0]).toEqual({ n: ROWS, stale: 0 });
  });

  it('varies titles and descriptions instead of copying the corpus', async () => {
    const variety = await sql<{ titles: number; descriptions: number; with_description: number }>`
      SELECT count(DISTINCT title)::int AS titles, count(DISTINCT description_text)::int AS descriptions,
             count(*) FILTER (WHERE has_description)::int AS with_description
        FROM jobs WHERE source_posting_id LIKE 'bench-42-%'`.execute(a.db);
    const v = variety.rows[0]!;
    expect(v.descriptions).toBe(v.with_description);
    expect(v.titles).toBeGreaterThan(ROWS / 3);
  });
});
