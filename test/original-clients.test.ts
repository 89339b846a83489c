/**
 * What the original service's published clients read and send (issue 19, compatibility), and the HTTP
 * conventions around them, on the imported real corpus.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { bearer, createKey, useCorpusApp } from './helpers/app.ts';

const ctx = useCorpusApp({ key: false });
let growth: CreatedKey;

beforeAll(async () => {
  growth = await createKey(ctx.t, 'growth');
});

describe('compatibility with the original service\'s clients', () => {
  const get = (url: string, headers: Record<string, string> = bearer(growth)) => ctx.app.inject({ method: 'GET', url, headers });
  const servable = () => ctx.t.db.selectFrom('jobs').where('withheld_kind', 'is', null).where('poster_type', 'is', null);

  it('repeats description at the top level of a single row, on the keyed and keyless routes', async () => {
    const row = await servable().where('status', '=', 'live').where('has_description', '=', true).select(['id', 'slug']).executeTakeFirstOrThrow();
    for (const [url, headers] of [[`/v1/jobs/${row.id}`, bearer(growth)], [`/public/jobs/${row.slug}`, {}]] as const) {
      const body = (await get(url, headers)).json();
      expect(typeof body.description).toBe('string');
      expect(body.description.length).toBeGreaterThan(0);
      expect(body.description).toBe(body.data.description);
    }
    const bare = await servable().where('status', '=', 'live').where('has_description', '=', false).select('id').executeTakeFirst();
    if (bare) {
      const body = (await get(`/v1/jobs/${bare.id}`)).json();
      expect(body.description).toBeNull();
      expect(body.data.description).toBeUndefined();
    }
  });

  it('accepts the original closed_reason values as the spec values they cover', async () => {
    const ids = async (reason: string) => {
      const res = await get(`/v1/jobs/closed?limit=20&closed_reason=${reason}`);
      expect(res.statusCode).toBe(200);
      return (res.json().data as Array<{ id: string; closed_reason: string }>).map((j) => j.id);
    };
    const expired = await ids('expired_upstream');
    expect(expired.length).toBeGreaterThan(0);
    expect(await ids('deadline_passed')).toEqual(expired);
    expect(await ids('DEADLINE_PASSED,employer_closed')).toEqual(await ids('expired_upstream,not_seen'));
    expect(await ids('employer_closed')).toEqual(await ids('not_seen'));
    const served = (await get('/v1/jobs/closed?limit=5&closed_reason=deadline_passed')).json().data as Array<{ closed_reason: string }>;
    expect(served.every((j) => j.closed_reason === 'expired_upstream')).toBe(true);
    expect((await get('/v1/jobs/closed?closed_reason=employer_gone')).statusCode).toBe(422);
  });
});

describe('the fields the original clients read: company_domain, state, expires_at', () => {
  const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: bearer(growth) });
  type Row = { id: string; company_domain?: string; state?: string; country?: string; expires_at?: string; field_sources: Record<string, string> };

  it('serves company_domain as the key its filter matches, with inferred provenance', async () => {
    const rows = (await get('/v1/jobs?limit=100')).json().data as Row[];
    const withDomain = rows.find((r) => r.company_domain);
    expect(withDomain).toBeDefined();
    expect(withDomain!.company_domain).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}$/);
    expect(withDomain!.field_sources.company_domain).toBe('inferred');
    const matched = (await get(`/v1/jobs?limit=20&company_domain=${withDomain!.company_domain}`)).json().data as Row[];
    expect(matched.length).toBeGreaterThan(0);
    expect(matched.every((r) => r.company_domain === withDomain!.company_domain)).toBe(true);
    for (const r of rows) expect(r.field_sources.company_domain).toBe(r.company_domain ? 'inferred' : 'absent');
  });

  it('serves state only on US rows, the value the state filter matches, following location provenance', async () => {
    const ca = (await get('/v1/jobs?limit=50&state=CA')).json().data as Row[];
    expect(ca.length).toBeGreaterThan(0);
    for (const r of ca) {
      expect(r.state).toBe('CA');
      expect(r.country).toBe('US');
      expect(r.field_sources.state).toBe(r.field_sources.location === 'absent' ? 'inferred' : r.field_sources.location);
    }
    const de = (await get('/v1/jobs?limit=50&country=DE')).json().data as Row[];
    expect(de.every((r) => r.state === undefined && r.field_sources.state === 'absent')).toBe(true);
  });

  it('serves expires_at exactly when the source stated a closing date, as published', async () => {
    const stated = await servableWithClosing();
    if (stated) {
      const body = (await get(`/v1/jobs/${stated.id}`)).json();
      expect(body.data.expires_at).toBe(stated.upstream_closes_at!.toISOString());
      expect(body.data.field_sources.expires_at).toBe('published');
    }
    const unstated = await ctx.t.db.selectFrom('jobs').where('served', '=', true).where('upstream_closes_at', 'is', null).select('id').executeTakeFirstOrThrow();
    const body = (await get(`/v1/jobs/${unstated.id}`)).json();
    expect(body.data.expires_at).toBeUndefined();
    expect(body.data.field_sources.expires_at).toBe('absent');
  });

  async function servableWithClosing() {
    return ctx.t.db.selectFrom('jobs').where('served', '=', true).where('upstream_closes_at', 'is not', null).select(['id', 'upstream_closes_at']).executeTakeFirst();
  }
});

describe('ignored query parameters', () => {
  const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

  it('names unknown parameters, with a did-you-mean for a near miss, and still answers as without them', async () => {
    const plain = await get('/public/jobs?limit=3');
    const res = await get('/public/jobs?limit=3&contry=DE&foo=1&Limit=9');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ignored-params']).toBe('contry, foo, Limit');
    expect(res.headers['x-ignored-params-did-you-mean']).toBe('contry=country, Limit=limit');
    expect(res.json().data).toEqual(plain.json().data);
    expect(plain.headers['x-ignored-params']).toBeUndefined();
  });

  it('names them on keyed routes and error responses too, and not for declared names', async () => {
    const keyed = await get('/v1/jobs?providr=greenhouse&country=DE', bearer(growth));
    expect(keyed.statusCode).toBe(200);
    expect(keyed.headers['x-ignored-params']).toBe('providr');
    expect(keyed.headers['x-ignored-params-did-you-mean']).toBe('providr=provider');
    const bad = await get('/v1/jobs/closed?closed_reason=gone&zzzzzzzz=1', bearer(growth));
    expect(bad.statusCode).toBe(422);
    expect(bad.headers['x-ignored-params']).toBe('zzzzzzzz');
    expect(bad.headers['x-ignored-params-did-you-mean']).toBeUndefined();
    const single = await get('/public/jobs/no-such-job?include_closed=true');
    expect(single.headers['x-ignored-params']).toBe('include_closed');
  });

  it('documents both headers in the OpenAPI document', async () => {
    const doc = (await get('/v1/openapi.json')).json();
    expect(doc.components.headers['X-Ignored-Params'].description).toContain('ignored');
    expect(doc.paths['/public/jobs'].get.responses['200'].headers['X-Ignored-Params-Did-You-Mean']).toBeDefined();
  });
});
