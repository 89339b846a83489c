/**
 * The reports on the imported real corpus plus a few withheld rows written through the real ledger
 * path (spec: Freshness report, Coverage report, Coverage per country; /public/stats, /public/status,
 * /health, /public/ai-prompt). Every expected number is computed here, independently, with SQL.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FX_CURRENCIES, loadFxRates } from '../src/enrich/fx.ts';
import { buildApp } from '../src/http/app.ts';
import { refreshReports } from '../src/reports/snapshots.ts';
import { connect } from '../src/store/database.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { bearer, buildTestApp, createKey, TEST_DOCS_URL } from './helpers/app.ts';
import { validatingInject } from './helpers/contract.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { addDiscoveryProvider, posting, writeCrawl } from './helpers/postings.ts';
import { providerRows } from '../src/ingest/connectors/registry.ts';

/** Every redistributable provider of the registry (the job-board feeds are discovery only). */
// Every connector's provider that may be served, plus `submissions` (direct submissions: a provider row, no connector).
const SERVED_PROVIDERS = [...providerRows().filter((p) => p.redistributable && !p.discoveryOnly).map((p) => p.id), 'submissions'].sort();

const HOUR = 3_600_000;
type Data = Record<string, unknown> & { measured_at: string; age_seconds: number; stale: boolean };

describe('reports', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let key: CreatedKey;
  let now: Date;
  /** Rows the imported corpus itself withholds as quality_removed (the job-board feeds). */
  let corpusRemoved: number;
  const fx = loadFxRates();

  const one = async <T = number>(query: ReturnType<typeof sql>): Promise<T> => {
    const row = (await query.execute(t.db)).rows[0] as Record<string, T>;
    return Object.values(row)[0]!;
  };
  const count = (where: ReturnType<typeof sql>) => one<number>(sql`SELECT count(*)::int FROM jobs WHERE ${where}`);
  const pct = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method: 'GET', url, headers });
    expect(res.statusCode, url).toBe(200);
    return res;
  };
  const data = async (url: string, headers: Record<string, string> = {}) => ((await get(url, headers)).json() as { data: Data }).data;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    // The corpus already withholds the job-board feeds' rows (quality_removed); this test adds four more.
    corpusRemoved = await count(sql`status = 'live' AND withheld_kind = 'quality_removed'`);
    // Withheld rows of every kind: a discovery-only source (quality_removed), a posting without an apply
    // link (quality_gated), and a verified opt-out of one served row (optout_hidden).
    await addDiscoveryProvider(t.db, 'careers-test', 'Careers pages (test)');
    await writeCrawl(t.db, {
      providerId: 'careers-test',
      board: 'heron',
      postings: [posting('h-1', 'Nurse', { name: 'Heron Care' }), posting('h-2', 'Pharmacist', { name: 'Heron Care' })],
    });
    await writeCrawl(t.db, {
      providerId: 'greenhouse',
      board: 'gated',
      postings: [posting('g-1', 'Welder', { name: 'Gated Works' }, { applyUrl: undefined })],
    });
    await sql`UPDATE jobs SET withheld_kind = 'optout_hidden', quality_verdict = 'optout_hidden'
              WHERE id = (SELECT id FROM jobs WHERE served ORDER BY id LIMIT 1)`.execute(t.db);
    // Verification spread: some live rows last confirmed 30 h, 3 days and 10 days ago.
    await sql`UPDATE jobs SET last_verified_at = now() - interval '30 hours' WHERE id IN (SELECT id FROM jobs WHERE served ORDER BY id DESC LIMIT 40)`.execute(t.db);
    await sql`UPDATE jobs SET last_verified_at = now() - interval '3 days' WHERE id IN (SELECT id FROM jobs WHERE served ORDER BY id DESC OFFSET 40 LIMIT 30)`.execute(t.db);
    await sql`UPDATE jobs SET last_verified_at = now() - interval '10 days' WHERE id IN (SELECT id FROM jobs WHERE served ORDER BY id DESC OFFSET 70 LIMIT 20)`.execute(t.db);
    now = new Date();
    await refreshReports(t.db, now);
    app = await buildTestApp(t);
    key = await createKey(t, 'explore');
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  const LIVE = sql`status = 'live' AND withheld_kind IS NULL`;
  const WITHHELD = sql`status = 'live' AND withheld_kind IS NOT NULL`;
  const CLOSED = sql`status = 'closed'`;
  const since = (ms: number) => new Date(now.getTime() - ms);

  it('freshness: populations, closures, field coverage, verification and salary normalisation, on both surfaces', async () => {
    const keyed = await data('/v1/meta/freshness', bearer(key));
    const pub = await get('/public/freshness');
    expect(pub.headers['cache-control']).toBe('public, max-age=900');
    const f = (pub.json() as { data: Data }).data;
    expect({ ...keyed, generated_at: 0, age_seconds: 0 }).toEqual({ ...f, generated_at: 0, age_seconds: 0 });

    const live = await count(LIVE);
    const withheld = await count(WITHHELD);
    const closed = await count(CLOSED);
    expect(withheld).toBe(corpusRemoved + 4);
    expect(f).toMatchObject({ measured_at: now.toISOString(), stale: false, ledger_rows: await count(sql`true`), live_listings: live, withheld_listings: withheld, closed_listings: closed });
    expect(f.ledger_rows).toBe(live + withheld + closed);
    expect(Date.parse(f.generated_at as string)).toBeGreaterThanOrEqual(now.getTime());
    expect(f.age_seconds).toBeGreaterThanOrEqual(0);

    expect(f.closures).toEqual({
      last_24h: await count(sql`${CLOSED} AND closed_at >= ${since(24 * HOUR)}`),
      last_7d: await count(sql`${CLOSED} AND closed_at >= ${since(7 * 24 * HOUR)}`),
      total: closed,
      reasons: ['expired_upstream', 'not_seen'],
      by_reason: { expired_upstream: await count(sql`closed_reason = 'expired_upstream'`), not_seen: await count(sql`closed_reason = 'not_seen'`) },
      retention: expect.any(String),
      note: expect.any(String),
    });

    const description = await count(sql`${LIVE} AND has_description`);
    const employment = await count(sql`${LIVE} AND employment_type IS NOT NULL`);
    const remoteInferred = await count(sql`${LIVE} AND remote IS NOT NULL AND remote_inferred`);
    const remotePublished = await count(sql`${LIVE} AND remote IS NOT NULL AND NOT remote_inferred`);
    const salary = await count(sql`${LIVE} AND salary_source = 'structured'`);
    expect(f.field_coverage).toEqual({
      description,
      description_pct: pct(description, live),
      employment_type: employment,
      employment_type_pct: pct(employment, live),
      remote_inferred: remoteInferred,
      remote_inferred_pct: pct(remoteInferred, live),
      remote_published: remotePublished,
      remote_published_pct: pct(remotePublished, live),
      salary_published: salary,
      salary_published_pct: pct(salary, live),
      note: expect.any(String),
    });
    expect(remoteInferred).toBeGreaterThan(0);

    const v = (ms: number) => count(sql`${LIVE} AND last_verified_at >= ${since(ms)}`);
    const [h1, h24, h48, d7] = [await v(HOUR), await v(24 * HOUR), await v(48 * HOUR), await v(7 * 24 * HOUR)];
    expect(new Set([h24, h48, d7, live]).size).toBe(4);
    expect(f.verification).toEqual({
      newest_verification: (await one<Date>(sql`SELECT max(last_verified_at) FROM jobs WHERE ${LIVE}`)).toISOString(),
      oldest_verification: (await one<Date>(sql`SELECT min(last_verified_at) FROM jobs WHERE ${LIVE}`)).toISOString(),
      reverified_last_hour: h1,
      reverified_last_hour_pct: pct(h1, live),
      reverified_last_24h: h24,
      reverified_last_24h_pct: pct(h24, live),
      reverified_last_48h: h48,
      reverified_last_48h_pct: pct(h48, live),
      reverified_last_7d: d7,
      reverified_last_7d_pct: pct(d7, live),
      note: expect.any(String),
    });

    const sn = f.salary_normalisation as { assumptions: unknown; rates_as_of: string; rates_eur_per_unit: Record<string, number> };
    expect(sn.assumptions).toEqual({ days_per_year: 260, hours_per_year: 2080, weeks_per_year: 52, unknown_period_or_currency: expect.stringContaining('null') });
    expect(Object.keys(sn.rates_eur_per_unit).sort()).toEqual([...FX_CURRENCIES].sort());
    expect(Object.keys(sn.rates_eur_per_unit)).toHaveLength(26);
    expect(sn.rates_as_of).toBe(fx.asOf);
    expect(sn.rates_eur_per_unit.EUR).toBe(1);
    for (const code of FX_CURRENCIES) expect(sn.rates_eur_per_unit[code]).toBe(fx.eurPerUnit[code]);
    // AED follows the US dollar peg (3.6725 AED per USD).
    expect(sn.rates_eur_per_unit.AED! * 3.6725).toBeCloseTo(sn.rates_eur_per_unit.USD!, 12);
    expect(typeof f.population_note).toBe('string');
    expect(typeof f.refresh_note).toBe('string');
  });

  it('coverage: populations reconcile exactly, withheld by kind, employers, countries, completeness, sources, excluded sources', async () => {
    const res = await get('/public/coverage');
    expect(res.headers['cache-control']).toBe('public, max-age=600');
    const c = (res.json() as { data: Data }).data;
    const live = await count(LIVE);
    expect(c).toMatchObject({
      measured_at: now.toISOString(),
      stale: false,
      live_listings: live,
      live_employer_direct: await count(sql`served`),
      withheld_listings: corpusRemoved + 4,
      withheld_breakdown: { quality_removed: corpusRemoved + 2, quality_gated: 1, optout_hidden: 1 },
      closed_listings: await count(CLOSED),
      ledger_rows: await count(sql`true`),
      employers: await one(sql`SELECT count(DISTINCT company_id)::int FROM jobs WHERE ${LIVE}`),
      countries: await one(sql`SELECT count(DISTINCT country)::int FROM jobs WHERE ${LIVE}`),
      posted_last_7d: await count(sql`${LIVE} AND posted_at >= ${since(7 * 24 * HOUR)} AND posted_at <= ${now}`),
    });
    expect(c.ledger_rows).toBe((c.live_listings as number) + (c.withheld_listings as number) + (c.closed_listings as number));
    const completeness = c.field_completeness as Record<string, { rows: number; pct: number }>;
    const country = await count(sql`${LIVE} AND country IS NOT NULL`);
    expect(completeness.country).toEqual({ rows: country, pct: pct(country, live) });
    expect(completeness.salary_min_annual_eur!.rows).toBe(await count(sql`${LIVE} AND salary_min_annual_eur IS NOT NULL`));
    expect(completeness.description!.rows).toBe(await count(sql`${LIVE} AND has_description`));
    const provenance = c.provenance as Record<string, { published: number; inferred: number; absent: number }>;
    expect(provenance.remote).toEqual({
      published: await count(sql`${LIVE} AND field_sources->>'remote' = 'published'`),
      inferred: await count(sql`${LIVE} AND field_sources->>'remote' = 'inferred'`),
      absent: await count(sql`${LIVE} AND field_sources->>'remote' = 'absent'`),
    });
    const sources = c.sources as Array<Record<string, unknown>>;
    // Every redistributable provider, career_site and submissions too (no rows in the corpus: live 0).
    expect(sources.map((s) => s.source).sort()).toEqual(SERVED_PROVIDERS);
    for (const s of sources) {
      expect(s.live).toBe(await count(sql`${LIVE} AND provider_id = ${s.source}`));
      expect(s.closed).toBe(await count(sql`${CLOSED} AND provider_id = ${s.source}`));
      expect(s.withheld).toBe(await count(sql`${WITHHELD} AND provider_id = ${s.source}`));
    }
    // Every provider fetched but never redistributed, counted independently: the corpus's job-board feeds
    // and this test's careers pages.
    const excluded = (
      await sql<{ source: string; label: string; reason: string; ledger_rows: number; live_unserved: number }>`
        SELECT p.id AS source, p.label,
               CASE WHEN p.discovery_only THEN 'discovery_only' ELSE 'not_redistributable' END AS reason,
               count(j.id)::int AS ledger_rows,
               count(j.id) FILTER (WHERE j.status = 'live' AND j.withheld_kind IS NOT NULL)::int AS live_unserved
        FROM providers p LEFT JOIN jobs j ON j.provider_id = p.id
        WHERE p.discovery_only OR NOT p.redistributable
        GROUP BY p.id ORDER BY p.id`.execute(t.db)
    ).rows;
    expect(excluded.map((e) => e.source)).toContain('careers-test');
    expect(excluded.find((e) => e.source === 'careers-test')).toEqual({ source: 'careers-test', label: 'Careers pages (test)', reason: 'discovery_only', ledger_rows: 2, live_unserved: 2 });
    expect(c.excluded_sources).toEqual(excluded);
  });

  it('coverage per country and per employer match the ledger', async () => {
    const res = await get('/public/coverage/countries');
    expect(res.headers['cache-control']).toBe('public, max-age=900');
    const countries = (res.json() as { data: Data & { countries: unknown[] } }).data;
    const expected = (
      await sql`SELECT country, count(*)::int AS live, count(*) FILTER (WHERE has_description)::int AS with_description,
                  count(*) FILTER (WHERE salary_source = 'structured')::int AS with_salary, count(DISTINCT company_id)::int AS employers
                FROM jobs WHERE ${LIVE} AND country IS NOT NULL GROUP BY country ORDER BY count(*) DESC, country`.execute(t.db)
    ).rows;
    expect(countries.countries).toEqual(expected);
    expect(countries.live_without_country).toBe(await count(sql`${LIVE} AND country IS NULL`));
    expect(countries.live_listings).toBe(await count(LIVE));

    const emp = await get('/public/coverage/employers');
    expect(emp.headers['cache-control']).toBe('public, max-age=600');
    const employers = (emp.json() as { data: Data & { employers: unknown[] } }).data;
    const expectedEmployers = (
      await sql`SELECT c.slug, c.name, count(*)::int AS live, count(*) FILTER (WHERE j.has_description)::int AS with_description,
                  count(*) FILTER (WHERE j.salary_source = 'structured')::int AS with_salary, count(DISTINCT j.country)::int AS countries
                FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.status = 'live' AND j.withheld_kind IS NULL
                GROUP BY c.id ORDER BY count(*) DESC, c.name, c.slug`.execute(t.db)
    ).rows;
    expect(employers.employers).toEqual(expectedEmployers);
    expect(employers).toMatchObject({ employer_count: expectedEmployers.length, listed: expectedEmployers.length, truncated: false, live_listings: await count(LIVE) });
  });

  it('stats: a summary of served rows with its own definitions', async () => {
    const res = await get('/public/stats');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const s = (res.json() as { data: Data }).data;
    const jobs = await count(sql`served`);
    const remote = await count(sql`served AND remote = 'remote'`);
    const salary = await count(sql`served AND salary_source IS NOT NULL`);
    const median = await one<number>(sql`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY salary_min_annual_eur) FROM jobs WHERE served`);
    expect(s).toMatchObject({
      jobs,
      companies: await one(sql`SELECT count(DISTINCT company_id)::int FROM jobs WHERE served`),
      countries: await one(sql`SELECT count(DISTINCT country)::int FROM jobs WHERE served`),
      remote_jobs: remote,
      remote_jobs_pct: pct(remote, jobs),
      jobs_with_salary: salary,
      jobs_with_salary_pct: pct(salary, jobs),
      median_salary_min_annual_eur: Math.round(Number(median)),
      new_jobs_24h: await count(sql`served AND first_seen_at >= ${since(24 * HOUR)}`),
      new_jobs_7d: await count(sql`served AND first_seen_at >= ${since(7 * 24 * HOUR)}`),
      closed_24h: await count(sql`${CLOSED} AND closed_at >= ${since(24 * HOUR)}`),
      closed_7d: await count(sql`${CLOSED} AND closed_at >= ${since(7 * 24 * HOUR)}`),
    });
    expect(s.top_countries).toEqual(
      (await sql`SELECT country, count(*)::int AS jobs FROM jobs WHERE served AND country IS NOT NULL GROUP BY country ORDER BY count(*) DESC, country LIMIT 10`.execute(t.db)).rows,
    );
    expect(s.top_categories).toEqual(
      (await sql`SELECT category, count(*)::int AS jobs FROM jobs WHERE served AND category IS NOT NULL GROUP BY category ORDER BY count(*) DESC, category LIMIT 10`.execute(t.db)).rows,
    );
    const definitions = s.definitions as Record<string, string>;
    for (const field of Object.keys(s)) {
      if (['measured_at', 'age_seconds', 'stale', 'definitions'].includes(field) || field.endsWith('_pct')) continue;
      expect(definitions[field], field).toEqual(expect.any(String));
    }
  });

  it('ages snapshots: a report measured longer ago than twice the refresh interval is stale, and status degrades', async () => {
    const old = await createTestDatabase();
    const oldApp = await buildTestApp(old, { reports: { fx, refreshSeconds: 60 } });
    try {
      const measured = new Date(Date.now() - 2 * HOUR);
      await refreshReports(old.db, measured, { fx, refreshSeconds: 60 });
      const res = await oldApp.inject({ method: 'GET', url: '/public/coverage' });
      const c = (res.json() as { data: Data }).data;
      expect(c.measured_at).toBe(measured.toISOString());
      expect(c.stale).toBe(true);
      expect(c.age_seconds).toBeGreaterThanOrEqual(7200);
      const status = (await oldApp.inject({ method: 'GET', url: '/public/status' })).json() as { data: Data & { reports: Data[] } };
      expect(status.data.status).toBe('degraded');
      expect(status.data.reports.every((r) => r.stale)).toBe(true);
      await refreshReports(old.db, new Date(), { fx, refreshSeconds: 60 });
      const fresh = (await oldApp.inject({ method: 'GET', url: '/public/status' })).json() as { data: Data };
      expect(fresh.data.status).toBe('ok');
    } finally {
      await oldApp.close();
      await old.drop();
    }
  });

  it('measures a report on first request when no snapshot exists yet', async () => {
    await sql`DELETE FROM report_snapshots WHERE name = 'stats'`.execute(t.db);
    const before = Date.now();
    const s = await data('/public/stats');
    expect(Date.parse(s.measured_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(s.jobs).toBe(await count(sql`served`));
    expect(await one(sql`SELECT count(*)::int FROM report_snapshots WHERE name = 'stats'`)).toBe(1);
  });

  it('status, liveness and readiness', async () => {
    const status = await get('/public/status');
    expect(status.headers['cache-control']).toBe('no-store');
    const s = (status.json() as { data: Data & { reports: Data[]; ingestion: Data } }).data;
    expect(s).toMatchObject({ database: 'ok', version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(s.reports.map((r) => r.name)).toEqual(['freshness', 'coverage', 'coverage_countries', 'coverage_employers', 'stats']);
    expect(s.ingestion).toMatchObject({ targets: await one(sql`SELECT count(*)::int FROM crawl_targets WHERE enabled`), failing: 0 });
    expect((await get('/health')).json()).toEqual({ status: 'ok' });
    expect((await get('/health/ready')).json()).toEqual({ status: 'ready' });

    // A database that cannot be reached: liveness still answers, readiness fails with 503 unavailable.
    const { db } = connect('postgres://postgres@127.0.0.1:1/nowhere', { statementTimeoutMs: 1000, maxConnections: 1 });
    const down = await buildApp({ db, log: pino({ level: 'silent' }), docsUrl: TEST_DOCS_URL, cursorSecret: 'x'.repeat(32) });
    validatingInject(down);
    try {
      expect((await down.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      const ready = await down.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.json()).toMatchObject({ error: 'unavailable', docs: `${TEST_DOCS_URL}#unavailable` });
      expect(ready.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
      expect((await down.inject({ method: 'GET', url: '/public/status' })).statusCode).toBe(503);
    } finally {
      await down.close();
      await db.destroy();
    }
  });

  it('ai-prompt: a plain-text brief naming every documented endpoint and the live counts', async () => {
    const res = await get('/public/ai-prompt');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=600');
    const doc = (await get('/public/openapi.json')).json() as { paths: Record<string, Record<string, unknown>>; info: { version: string } };
    // Every operation with its method (POST /mcp is the one that is not a GET).
    for (const [path, methods] of Object.entries(doc.paths)) for (const method of Object.keys(methods)) expect(res.body).toContain(`${method.toUpperCase()} ${path}`);
    expect(res.body).toContain(doc.info.version);
    expect(res.body).toContain(`live listings: ${(await count(LIVE)).toLocaleString('en-US')}`);
    expect(res.body).toContain('Authorization: Bearer');
  });
});
