/**
 * The served Job line built by PostgreSQL (store/job-lines.ts, issue 22) and stored on each row
 * (migration 033) is, byte for byte, what the JSON answers' serializer writes for the presented row
 * (`toJob(row)`, http/presenters/job.ts): on every row of the
 * imported corpus, live, closed and withheld, with and without descriptions, and on rows whose values
 * sit where the two could part (sub-millisecond instants, rounding ties, fractional salaries, control
 * characters and non-Latin text, empty strings, rows without a posting date).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { JobSchema } from '../src/domain/job.ts';
import { toJob } from '../src/http/presenters/job.ts';
import { exportBatch, exportLineBatch } from '../src/store/export-queries.ts';
import { jobObjectSql } from '../src/store/job-lines.ts';
import { listJobs } from '../src/store/job-queries.ts';
import { DEFAULT_SCOPE, type JobFilter } from '../src/domain/listing-filter.ts';
import { JobPageSchema } from '../src/domain/job.ts';
import { bearer, buildTestApp, createKey } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { handBuiltJob, writeHandBuiltRows } from './helpers/ledger-rows.ts';

describe('job lines built in SQL', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    await writeHandBuiltRows(t.db, [
      {
        job: handBuiltJob({
          sourcePostingId: 'edge-1',
          title: 'Ingénieur \u0001 "quoted" \\ back\tslash\n Программист 工程师 😀',
          companyName: 'Édition "Nord" & Söhne',
          location: 'Austin, Texas, United States',
          country: 'US',
          city: 'Austin',
          state: 'TX',
          remote: 'hybrid',
          category: 'Engineering',
          categoryConfidence: 0.6665,
          hasDescription: true,
          descriptionHtml: '<p>Line\u2028separator \u001f and </script> "quotes"</p>',
          salary: { min: 95000.5, max: 1234567.891, currency: 'USD', period: 'annual', source: 'structured', minAnnualEur: 87912.35, maxAnnualEur: 1130000 },
          postedAt: '2026-11-20T10:29:59.999Z',
          fieldSources: { location: 'published', remote: 'published', category: 'inferred', salary: 'published', posted_at: 'published', description: 'published' },
        }),
      },
      { job: handBuiltJob({ sourcePostingId: 'edge-2', title: 'Bare row without a posting date' }) },
      { job: handBuiltJob({ sourcePostingId: 'edge-3', title: 'Withheld row', companyName: 'Staffing Example' }), verdict: { verdict: 'quality_gated', ruleId: 'test-rule', matchedHost: 'staffing.example' } },
    ]);
    // Values the write path does not produce but a column can hold: microseconds, ties, empty strings.
    await sql`UPDATE jobs SET last_verified_at = '2026-11-27 23:59:59.999999+00', first_seen_at = '2026-11-20 12:00:00.000501+00',
                              category_confidence = 0.8125, salary_min_annual_eur = 87912.35, salary_max_annual_eur = 0.5,
                              upstream_closes_at = '2027-01-31 00:00:00+00', attribution = '', canonical_url = 'https://careers.example.org/x?a=1&b=2'
              WHERE source_posting_id = 'edge-1'`.execute(t.db);
    await sql`UPDATE jobs SET status = 'closed', closed_at = '2026-11-28 01:02:03.456789+00', closed_reason = 'not_seen', upstream_expired_at = now()
              WHERE source_posting_id = 'edge-2'`.execute(t.db);
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** What the JSON answers' serializer (fast-json-stringify over JobSchema) writes for `jobs`. */
  async function serialized(jobs: unknown[]): Promise<string> {
    const app = Fastify();
    app.get('/jobs', { schema: { response: { 200: Type.Object({ data: Type.Array(JobSchema) }) } } }, async () => ({ data: jobs }));
    const body = (await app.inject({ url: '/jobs' })).body;
    await app.close();
    return body;
  }

  /** `built` equal to `served`, showing where they part when they do. */
  function expectSameText(built: string, served: string): void {
    const at = [...built].findIndex((ch, i) => ch !== served[i]);
    expect(at === -1 ? '' : built.slice(Math.max(0, at - 200), at + 200)).toBe(at === -1 ? '' : served.slice(Math.max(0, at - 200), at + 200));
    expect(built).toBe(served);
  }

  for (const includeDescription of [true, false]) {
    it(`as export lines, equal the serializer's JSON of the presented row on every row ${includeDescription ? 'with' : 'without'} descriptions`, async () => {
      const page = { limit: 1_000_000, includeDescription };
      const rows = await exportBatch(t.db, {}, 'any', page);
      const lines = await exportLineBatch(t.db, {}, 'any', page);
      expect(rows.length).toBeGreaterThan(2_000);
      expect(lines.map((l) => l.id)).toEqual(rows.map((r) => r.id));
      expectSameText(`{"data":[${lines.map((l) => l.line).join(',')}]}`, await serialized(rows.map((row) => toJob(row, { includeDescription }))));
    });
  }

  it("in the contract's order, equal what the response serializer writes for the presenter's Job on every row", async () => {
    // The change feed writes its jobs from jobObjectSql (or the stored line) instead.
    const rows = await exportBatch(t.db, {}, 'any', { limit: 1_000_000, includeDescription: false });
    const objects = await sql<{ id: string; job: string }>`SELECT j.id, ${sql.raw(jobObjectSql(false))} AS job FROM jobs j JOIN companies c ON c.id = j.company_id`.execute(t.db);
    const byId = new Map(objects.rows.map((r) => [r.id, r.job]));
    expectSameText(`{"data":[${rows.map((r) => byId.get(r.id)).join(',')}]}`, await serialized(rows.map((row) => toJob(row, { includeDescription: false }))));
  });

  /** Rows whose stored line (jobs.served_json, migration 033) differs from jobObjectSql(false) over the row now. */
  const staleLines = async () =>
    (await sql<{ id: string }>`SELECT j.id FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.served_json IS DISTINCT FROM ${sql.raw(jobObjectSql(false))}`.execute(t.db)).rows;

  it('are stored on every row as the expression builds them, and stay so through closures and company changes (migration 033)', async () => {
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs`.execute(t.db)).rows[0]!.n).toBeGreaterThan(2_000);
    expect(await staleLines()).toEqual([]);
    // A closure: the stamp trigger sets closed_at before the line is written.
    const open = (await sql<{ id: string; company_id: string }>`SELECT id, company_id FROM jobs WHERE status = 'live' AND served ORDER BY id LIMIT 1`.execute(t.db)).rows[0]!;
    await sql`UPDATE jobs SET status = 'closed', closed_reason = 'not_seen' WHERE id = ${open.id}`.execute(t.db);
    const closed = (await sql<{ served_json: string }>`SELECT served_json FROM jobs WHERE id = ${open.id}`.execute(t.db)).rows[0]!;
    expect(JSON.parse(closed.served_json)).toMatchObject({ status: 'closed', closed_reason: 'not_seen', closed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // The company's slug, logo and domain are in its rows' lines.
    await sql`UPDATE companies SET slug = slug || '-renamed', logo_url = 'https://logo.example/l.png', domain = 'renamed.example' WHERE id = ${open.company_id}`.execute(t.db);
    const renamed = (await sql<{ served_json: string }>`SELECT served_json FROM jobs WHERE company_id = ${open.company_id}`.execute(t.db)).rows;
    expect(renamed.length).toBeGreaterThan(0);
    for (const row of renamed) expect(JSON.parse(row.served_json)).toMatchObject({ company_slug: expect.stringMatching(/-renamed$/), company_logo: 'https://logo.example/l.png', company_domain: 'renamed.example' });
    expect(await staleLines()).toEqual([]);
  });

  it('are rebuilt by an UPDATE of any column the line reads (the column list of their trigger, migration 034)', async () => {
    const reads = new Set([...jobObjectSql(false).matchAll(/\bj\.(\w+)/g)].map((m) => m[1]!));
    const listed = (
      await sql<{ attname: string }>`
        SELECT a.attname FROM pg_trigger t JOIN pg_attribute a ON a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr)
         WHERE t.tgrelid = 'jobs'::regclass AND t.tgname = 'jobs_zz_served_json'`.execute(t.db)
    ).rows.map((r) => r.attname);
    // last_verified_at has its own trigger, which writes the new instant into the line in place.
    const expected = [...reads].filter((c) => c !== 'last_verified_at').concat('company_id', 'served_json');
    expect(reads.size).toBeGreaterThan(30);
    expect(listed.sort()).toEqual(expected.sort());
  });

  it('stay the expression through re-verifications, which rewrite only their instant, and under session_replication_role = replica (migration 034)', async () => {
    // The hand-built edge rows keep their values for the test below.
    const corpus = sql`source_posting_id NOT LIKE 'edge-%'`;
    const before = (await sql<{ id: string; served_json: string }>`SELECT id, served_json FROM jobs WHERE ${corpus} ORDER BY id LIMIT 1`.execute(t.db)).rows[0]!;
    // Every row a different instant, sub-millisecond digits included (the line truncates them).
    await sql`UPDATE jobs SET last_verified_at = last_verified_at + (random() * interval '40 days') + interval '0.000371 s' WHERE ${corpus}`.execute(t.db);
    expect(await staleLines()).toEqual([]);
    const after = (await sql<{ served_json: string; last_verified_at: Date }>`SELECT served_json, last_verified_at FROM jobs WHERE id = ${before.id}`.execute(t.db)).rows[0]!;
    expect(after.served_json).not.toBe(before.served_json);
    expect(JSON.parse(after.served_json).last_verified_at).toBe(after.last_verified_at.toISOString());
    // The re-crawl's statement: last_verified_at with missed_crawls, and a content rewrite with it.
    await sql`UPDATE jobs SET last_verified_at = now(), missed_crawls = 0 WHERE id = ${before.id}`.execute(t.db);
    await sql`UPDATE jobs SET last_verified_at = now() + interval '1 day', title = title || ' (re-titled)' WHERE id IN (SELECT id FROM jobs WHERE ${corpus} ORDER BY id DESC LIMIT 5)`.execute(t.db);
    expect(await staleLines()).toEqual([]);
    // The bench seeder writes with ordinary triggers off; the lines are derived data and are still written.
    await t.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`UPDATE jobs SET title = title || ' (replica)', last_verified_at = last_verified_at + interval '1 hour' WHERE id = ${before.id}`.execute(trx);
    });
    expect(await staleLines()).toEqual([]);
    expect(JSON.parse((await sql<{ served_json: string }>`SELECT served_json FROM jobs WHERE id = ${before.id}`.execute(t.db)).rows[0]!.served_json).title).toMatch(/ \(replica\)$/);
  });

  it('make the /v1/jobs pages the response serializer writes for the presented rows', async () => {
    const app = await buildTestApp(t);
    const key = await createKey(t, 'scale');
    const serializer = Fastify();
    serializer.post('/page', { schema: { response: { 200: JobPageSchema } } }, async (request) => request.body);
    try {
      const pages: [string, JobFilter][] = [
        ['limit=100', {}],
        ['limit=50&country=US,DE&remote=remote,hybrid', { country: ['US', 'DE'], remote: ['remote', 'hybrid'] }],
      ];
      for (const [query, filter] of pages) {
        const served = await app.inject({ method: 'GET', url: `/v1/jobs?${query}`, headers: bearer(key) });
        expect(served.statusCode, served.body).toBe(200);
        const limit = Number(/limit=(\d+)/.exec(query)![1]);
        const page = await listJobs(t.db, filter, DEFAULT_SCOPE, { limit, includeDescription: false });
        expect(page.rows.length).toBeGreaterThan(5);
        const body = { data: page.rows.map((row) => toJob(row, { includeDescription: false })), has_more: page.hasMore, next_cursor: (JSON.parse(served.body) as { next_cursor: string | null }).next_cursor };
        const expected = (await serializer.inject({ method: 'POST', url: '/page', payload: body })).body;
        expect(served.body).toBe(expected);
        expect(served.headers['content-type']).toBe('application/json; charset=utf-8');
      }
    } finally {
      await app.close();
      await serializer.close();
    }
  });

  it('render the edge values as the presenter does', async () => {
    const [line] = (await exportLineBatch(t.db, {}, 'any', { limit: 1_000_000, includeDescription: true })).filter((l) => l.line.includes('Ingénieur'));
    const job = JSON.parse(line!.line) as Record<string, unknown>;
    expect(job).toMatchObject({
      category_confidence: 0.813,
      last_verified_at: '2026-11-27T23:59:59.999Z',
      salary_min: 95000.5,
      salary_max: 1234567.891,
      salary_min_annual_eur: 87912.35,
      salary_max_annual_eur: 0.5,
      first_seen_lag_hours: 2,
      expires_at: '2027-01-31T00:00:00.000Z',
    });
    expect(job).not.toHaveProperty('attribution');
  });

  it('rest on field_sources holding only the nine keys and the three provenance words (migration 028)', async () => {
    const edge = sql`source_posting_id = 'edge-2'`;
    for (const change of [`{"remote": "published", "extra": "absent"}`, `{"remote": "maybe"}`, `{"remote": 1}`, `{"remote": "published\\", \\""}`]) {
      await expect(sql`UPDATE jobs SET field_sources = field_sources || ${change}::jsonb WHERE ${edge}`.execute(t.db)).rejects.toThrow(/jobs_field_sources_vocabulary/);
    }
    await sql`UPDATE jobs SET field_sources = field_sources || '{"remote": "inferred"}'::jsonb WHERE ${edge}`.execute(t.db);
  });
});
