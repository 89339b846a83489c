/**
 * Website proof through the guarded fetcher against a loopback replay server (spec: Company.website
 * and website_verified; GET /v1/companies has_website).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company, CompanyPage } from '../src/domain/company.ts';
import { FIXTURES_DIR } from '../src/ingest/bundled-feeds.ts';
import { createFetcher, type GuardedFetcher } from '../src/ingest/fetcher.ts';
import { startReplayServer, type ReplayServer } from '../src/ingest/replay-server.ts';
import { verifyWebsites } from '../src/ingest/website-verifier.ts';
import { bearer, useCorpusApp } from './helpers/app.ts';
import { testFetchConfig } from './helpers/corpus.ts';

describe('company websites', () => {
  const ctx = useCorpusApp();
  let replay: ReplayServer;
  let fetcher: GuardedFetcher;
  const urlFor = (domain: string) => `${replay.url}/sites/${domain}/`;
  const html = (title: string, body: string) => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>` });

  beforeAll(async () => {
    replay = await startReplayServer({ fixturesDir: FIXTURES_DIR });
    fetcher = createFetcher(testFetchConfig({ retries: 0 }));
  });
  afterAll(async () => {
    await fetcher.close();
    await replay.close();
  });

  const get = async (url: string) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) });

  it('publishes a website only where the home page names the company, and has_website filters on it', async () => {
    replay.override('/sites/deepl.com/', html('DeepL Translate: the world\'s most accurate translator', '<h1>Translate texts</h1>'));
    replay.override('/sites/hims.com/', html('Telehealth', '<p>Welcome to HIMS &amp; HERS.</p>'));
    replay.override('/sites/abridge.com/', html('Medical notes', '<p>Ambient documentation for clinicians.</p>'));
    replay.override('/sites/1password.com/', { status: 503, body: 'maintenance' });
    const now = new Date();
    const checks = await verifyWebsites(ctx.t.db, fetcher, { now, urlFor, limit: 1000 });
    const withDomain = await ctx.t.db.selectFrom('companies').select('slug').where('domain', 'is not', null).execute();
    expect(checks).toHaveLength(withDomain.length);
    const outcome = (domain: string) => checks.find((c) => c.domain === domain)?.outcome;
    expect(outcome('deepl.com')).toBe('verified');
    expect(outcome('hims.com')).toBe('verified');
    expect(outcome('abridge.com')).toBe('name_not_found');
    expect(outcome('1password.com')).toBe('fetch_failed');
    // Every other domain answered 404 from the replay server: not proven.
    expect(checks.filter((c) => c.outcome === 'verified')).toHaveLength(2);
    expect(replay.requests.every((r) => r.headers['user-agent']?.startsWith('jobledger/'))).toBe(true);

    const verified = ((await get('/v1/companies?has_website=true&limit=200')).json() as CompanyPage).data;
    expect(verified.map((c) => c.domain).sort()).toEqual(['deepl.com', 'hims.com']);
    const today = now.toISOString().slice(0, 10);
    for (const c of verified) expect(c).toMatchObject({ website: replay.url, website_verified: today });
    const unproven = ((await get('/v1/companies?has_website=false&limit=200')).json() as CompanyPage).data;
    expect(unproven.every((c) => c.website === undefined && c.website_verified === undefined)).toBe(true);
    const all = ((await get('/v1/companies?limit=200')).json() as CompanyPage).data;
    expect(unproven.length + verified.length).toBe(all.length);
    const abridge = all.find((c) => c.domain === 'abridge.com')!;
    expect(abridge.website).toBeUndefined();
  });

  it('re-checks only after the maximum age; a later failed proof clears the website, a failed fetch keeps it', async () => {
    const later = new Date(Date.now() + 1000);
    expect(await verifyWebsites(ctx.t.db, fetcher, { now: later, urlFor, limit: 1000 })).toEqual([]);

    replay.override('/sites/deepl.com/', html('Under new management', '<p>Nothing to see.</p>'));
    replay.override('/sites/hims.com/', { status: 500, body: 'oops' });
    const muchLater = new Date(Date.now() + 31 * 86_400_000);
    const checks = await verifyWebsites(ctx.t.db, fetcher, { now: muchLater, urlFor, limit: 1000 });
    expect(checks.find((c) => c.domain === 'deepl.com')?.outcome).toBe('name_not_found');
    expect(checks.find((c) => c.domain === 'hims.com')?.outcome).toBe('fetch_failed');
    const verified = ((await get('/v1/companies?has_website=true&limit=200')).json() as CompanyPage).data;
    expect(verified.map((c) => c.domain)).toEqual(['hims.com']);
    const deepl = ((await get('/v1/companies?q=deepl.com')).json() as CompanyPage).data[0] as Company;
    expect(deepl.website).toBeUndefined();
  });
});
