/**
 * Controlled vocabularies and providers at run time, on the imported real corpus (spec: GET
 * /v1/meta/facets, /v1/meta/providers, /public/facets, /public/providers): every facet value, sent to
 * /v1/jobs and paged to the end, yields exactly the facet's count. The snapshot is the cluster's
 * (issue 20): stored once, served by every process.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CATEGORY_FAMILIES, EMPLOYMENT_TYPES, SENIORITY_LEVELS, US_STATES } from '../src/domain/vocabulary.ts';
import { allPages, bearer, buildTestApp, useCorpusApp } from './helpers/app.ts';
import { providerRows } from '../src/ingest/connectors/registry.ts';

/** Every redistributable provider of the registry (the job-board feeds are discovery only). */
// Every connector's provider that may be served, plus `submissions` (direct submissions: a provider row, no connector).
const SERVED_PROVIDERS = [...providerRows().filter((p) => p.redistributable && !p.discoveryOnly).map((p) => p.id), 'submissions'].sort();

interface Entry {
  value: string;
  label: string;
  count: number;
}
interface Facets {
  data: Record<string, Entry[]>;
  parameters: Record<string, string>;
  live_listings: number;
  measured_at: string;
  age_seconds: number;
  refresh_seconds: number;
}
interface ProviderEntry {
  provider: string;
  label: string;
  live: number;
  with_description: number;
  with_description_pct: number;
  provider_type: string;
  source_type: string;
}

describe('facets and providers', () => {
  const ctx = useCorpusApp({ key: 'unlimited' });
  let facets: Facets;

  beforeAll(async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/meta/facets', headers: bearer(ctx.key) });
    expect(res.statusCode).toBe(200);
    facets = res.json() as Facets;
  });

  /** Rows /v1/jobs gives for one query, paged to the end. */
  async function countRows(query: string): Promise<number> {
    return (await allPages((url) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) }), `/v1/jobs?${query}&limit=200`)).length;
  }

  it('lists every group with entries of value, label and live count, and says how fresh they are', async () => {
    expect(Object.keys(facets.data).sort()).toEqual(['city', 'country', 'employment', 'family', 'provider', 'remote', 'seniority', 'source_type', 'state']);
    const served = await ctx.t.db.selectFrom('jobs').where('served', '=', true).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(facets.live_listings).toBe(Number(served.n));
    expect(Date.now() - Date.parse(facets.measured_at)).toBeLessThan(60_000);
    expect(facets.age_seconds).toBeLessThan(60);
    expect(facets.refresh_seconds).toBe(300);
    for (const entries of Object.values(facets.data)) {
      for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(['count', 'label', 'value']);
      const counts = entries.map((e) => e.count);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    }
    // Closed vocabularies list every legal value, zero counts included.
    expect(facets.data.family!.map((e) => e.value).sort()).toEqual([...CATEGORY_FAMILIES, 'uncategorised'].sort());
    expect(facets.data.seniority!.map((e) => e.value).sort()).toEqual([...SENIORITY_LEVELS, 'not_stated'].sort());
    expect(facets.data.employment!.map((e) => e.value).sort()).toEqual([...EMPLOYMENT_TYPES, 'not_stated'].sort());
    expect(facets.data.remote!.map((e) => e.value).sort()).toEqual(['hybrid', 'not_stated', 'on_site', 'remote']);
    expect(facets.data.state!.map((e) => e.value).sort()).toEqual(Object.keys(US_STATES).sort());
    expect(facets.data.source_type!.map((e) => e.value)).toEqual(expect.arrayContaining(['ats', 'career_site', 'public_agency', 'aggregator', 'agency']));
    expect(facets.data.country!.find((e) => e.value === 'DE')).toMatchObject({ label: 'Germany' });
    expect(facets.data.state!.find((e) => e.value === 'CA')).toMatchObject({ label: 'California' });
    expect(facets.data.remote!.find((e) => e.value === 'on_site')).toMatchObject({ label: 'On-site' });
    // A group that every row falls into exactly once sums to the live rows.
    for (const group of ['family', 'remote', 'employment', 'seniority', 'source_type', 'provider']) {
      expect(facets.data[group]!.reduce((sum, e) => sum + e.count, 0), group).toBe(facets.live_listings);
    }
  });

  it.each(['family', 'country', 'city', 'state', 'remote', 'employment', 'seniority', 'source_type', 'provider'])(
    'every %s value, sent to /v1/jobs and paged to the end, gives the facet count',
    async (group) => {
      const parameter = facets.parameters[group]!;
      const entries = facets.data[group]!;
      expect(entries.length).toBeGreaterThan(0);
      expect(entries.some((e) => e.count > 0)).toBe(true);
      for (const entry of entries) {
        expect(await countRows(`${parameter}=${encodeURIComponent(entry.value)}`), `${parameter}=${entry.value}`).toBe(entry.count);
      }
    },
  );

  it('serves the same vocabularies keyless, cacheable and open cross-origin', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/public/facets', headers: { origin: 'https://example.org' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect((res.json() as Facets).data).toEqual(facets.data);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/meta/facets' })).statusCode).toBe(401);
  });

  it('lists every redistributable provider with live rows and description coverage', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/meta/providers', headers: bearer(ctx.key) });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { data: ProviderEntry[]; measured_at: string; age_seconds: number };
    expect(body.data.map((p) => p.provider).sort()).toEqual(SERVED_PROVIDERS);
    // The public agencies (issue 18) are listed before they have rows: none in this corpus.
    for (const id of ['nav', 'jobtech', 'bundesagentur', 'usajobs_api']) expect(body.data.find((p) => p.provider === id), id).toMatchObject({ live: 0, provider_type: 'government', source_type: 'public_agency' });
    for (const p of body.data) {
      expect(p.live).toBe(await countRows(`provider=${p.provider}`));
      expect(p.with_description).toBe(await countRows(`provider=${p.provider}&has_description=true`));
      expect(p.with_description_pct).toBeCloseTo(p.live === 0 ? 0 : (100 * p.with_description) / p.live, 1);
      expect(facets.data.provider!.find((e) => e.value === p.provider)!.count).toBe(p.live);
    }
    expect(body.data.find((p) => p.provider === 'usajobs')).toMatchObject({ label: 'USAJOBS', provider_type: 'government', source_type: 'public_agency' });
    expect(body.data.find((p) => p.provider === 'ashby')).toMatchObject({ provider_type: 'employer_ats', source_type: 'ats' });
    expect(body.data.find((p) => p.provider === 'career_site')).toMatchObject({ label: 'Company career pages', provider_type: 'direct', source_type: 'career_site' });
    // The federal announcements carry no description in the recorded files; the Ashby boards nearly all do.
    expect(body.data.find((p) => p.provider === 'usajobs')!.with_description_pct).toBe(0);
    expect(body.data.find((p) => p.provider === 'ashby')!.with_description_pct).toBeGreaterThan(90);

    const keyless = await ctx.app.inject({ method: 'GET', url: '/public/providers' });
    expect(keyless.headers['cache-control']).toBe('public, max-age=900');
    expect(keyless.json().data).toEqual(body.data);
  });

  it('declares the facet, provider and completeness field names in the served OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const text = JSON.stringify(doc);
    for (const path of ['/v1/meta/facets', '/v1/meta/providers', '/public/facets', '/public/providers']) expect(doc.paths[path]?.get, path).toBeDefined();
    for (const name of ['with_description_pct', 'refresh_seconds', 'measured_at', 'live_listings', 'completeness', 'quality_rule_id', 'include_poster_type', 'require_fields']) {
      expect(text).toContain(`"${name}"`);
    }
  });

  it('serves the cluster\'s one stored snapshot from every process, and replaces it once it is older than five minutes', async () => {
    // A second API process over the same database serves the snapshot the first stored.
    const other = await buildTestApp(ctx.t);
    try {
      const again = (await other.inject({ method: 'GET', url: '/public/facets' })).json() as Facets;
      expect(again.measured_at).toBe(facets.measured_at);
      expect(again.live_listings).toBe(facets.live_listings);
      // A stored snapshot past its age (the chore stalled) is measured anew by the next process to read it.
      await ctx.t.db.updateTable('report_snapshots').set({ measured_at: new Date(Date.now() - 301_000) }).where('name', '=', 'facets').execute();
      const third = await buildTestApp(ctx.t);
      try {
        const fresh = (await third.inject({ method: 'GET', url: '/public/facets' })).json() as Facets;
        expect(Date.parse(fresh.measured_at)).toBeGreaterThan(Date.parse(facets.measured_at));
        expect(fresh.age_seconds).toBeLessThan(60);
        const stored = await ctx.t.db.selectFrom('report_snapshots').select('measured_at').where('name', '=', 'facets').executeTakeFirstOrThrow();
        expect(stored.measured_at.toISOString()).toBe(fresh.measured_at);
      } finally {
        await third.close();
      }
    } finally {
      await other.close();
    }
  });
});
