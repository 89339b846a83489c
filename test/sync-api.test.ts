/**
 * The sync surfaces over HTTP on the imported real corpus (spec: GET /v1/changes, GET /v1/jobs/expired,
 * GET /v1/jobs/closed, GET /v1/jobs/{id}?include_closed=true; Authentication item 7; Errors; Limits).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { allPages, bearer, createKey, TEST_DOCS_URL, useCorpusApp } from './helpers/app.ts';

type Change = { change: string; id: string; changed_at: string; job?: Job };
type Closure = { id: string; closed_at: string; closed_reason: string };
type Feed<T> = { count: number; data: T[]; next_since: string };
type Page = { data: Job[]; has_more: boolean; next_cursor: string | null };

describe('the sync surfaces', () => {
  const ctx = useCorpusApp({ key: false });
  let explore: CreatedKey;
  let growth: CreatedKey;

  beforeAll(async () => {
    explore = await createKey(ctx.t, 'explore');
    growth = await createKey(ctx.t, 'growth');
  });

  const get = (url: string, key: CreatedKey = growth) => ctx.app.inject({ method: 'GET', url, headers: bearer(key) });
  const closedServable = () => ctx.t.db.selectFrom('jobs').where('status', '=', 'closed').where('withheld_kind', 'is', null).where('poster_type', 'is', null);

  it('are in the live OpenAPI contract with their parameters and, for the feeds, the 403', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, { get: { operationId: string; parameters: Array<{ name: string }>; responses: Record<string, unknown> } }>;
    };
    const expected: Record<string, [string, string[]]> = {
      '/v1/changes': ['listChanges', ['since', 'limit']],
      '/v1/jobs/expired': ['listExpiredJobs', ['since', 'limit']],
      '/v1/jobs/closed': ['listClosedJobs', ['closed_after', 'closed_before', 'closed_reason', 'cursor', 'limit', 'country', 'provider']],
    };
    for (const [path, [operationId, params]] of Object.entries(expected)) {
      const op = doc.paths[path]!.get;
      expect(op.operationId).toBe(operationId);
      expect(op.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(params));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(path === '/v1/jobs/closed' ? ['200', '422'] : ['200', '403', '422']));
    }
  });

  describe('entitlements', () => {
    for (const url of ['/v1/changes?since=2026-01-01T00:00:00Z', '/v1/jobs/expired?since=2026-01-01T00:00:00Z']) {
      it(`refuses ${url.split('?')[0]} without delta_feed: 403 upgrade_required naming the feature`, async () => {
        const res = await get(url, explore);
        expect(res.statusCode).toBe(403);
        expect(res.headers['x-svc-required-feature']).toBe('delta_feed');
        expect(res.json()).toMatchObject({ error: 'upgrade_required', docs: `${TEST_DOCS_URL}#upgrade_required` });
        expect(res.json().message).toContain('delta_feed');
      });
    }

    it('serves /v1/jobs/closed to every key, the free plan included (the recipe for plans without delta_feed)', async () => {
      const free = await get('/v1/jobs/closed', explore);
      expect(free.statusCode).toBe(200);
      expect(free.headers['x-svc-required-feature']).toBeUndefined();
      expect((await get('/v1/jobs/closed')).statusCode).toBe(200);
    });

    it('still answers 401 before any entitlement for a missing key', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/v1/changes?since=2026-01-01T00:00:00Z' });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('GET /v1/changes', () => {
    it('needs since, and tells a bad timestamp from a bad cursor', async () => {
      const cases: Array<[string, string]> = [
        ['', 'bad_timestamp'],
        ['?since=', 'bad_timestamp'],
        ['?since=yesterday', 'bad_timestamp'],
        ['?since=2026-02-30T00:00:00Z', 'bad_timestamp'],
        ['?since=2026-11-01T25:00:00Z', 'bad_timestamp'],
        [`?since=${encodeURIComponent('2026-11-01T00:00:00Z|not-a-uuid')}`, 'bad_cursor'],
        [`?since=${encodeURIComponent('2026-11-01T00:00:00.000Z|00000000-0000-0000-0000-00000000')}`, 'bad_cursor'],
        [`?since=${encodeURIComponent('2026-13-01T00:00:00Z|00000000-0000-0000-0000-000000000000')}`, 'bad_cursor'],
        [`?since=${encodeURIComponent('2026-11-01T00:00:00Z|00000000-0000-0000-0000-000000000000|x')}`, 'bad_cursor'],
      ];
      for (const [query, code] of cases) {
        const res = await get(`/v1/changes${query}`);
        expect(res.statusCode, query).toBe(422);
        expect(res.json().error, query).toBe(code);
        expect(res.json().message).toContain('since');
      }
    });

    it('serves every created row of the corpus from time zero, with the row, in cursor order', async () => {
      const res = await get('/v1/changes?since=1970-01-01T00:00:00Z&limit=5000');
      expect(res.statusCode).toBe(200);
      const page = res.json() as Feed<Change>;
      const served = await ctx.t.db.selectFrom('jobs').select('id').where('served', '=', true).execute();
      expect(page.count).toBe(served.length);
      expect(page.data.every((c) => c.change === 'created' && c.job?.id === c.id && c.job.status === 'live')).toBe(true);
      expect(new Set(page.data.map((c) => c.id))).toEqual(new Set(served.map((r) => r.id)));
      const keys = page.data.map((c) => `${c.changed_at}|${c.id}`);
      expect([...keys].sort()).toEqual(keys);
      expect(page.next_since).toBe(keys[keys.length - 1]);
      // A description is not part of a change (as on /v1/jobs): fetch it with /v1/jobs/{id}.
      expect(page.data.some((c) => c.job!.description !== undefined)).toBe(false);
      // The page is written as UTF-8 bytes piece by piece: its length is theirs, and the corpus's
      // non-ASCII text (employers' and places' names) comes through intact.
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      expect(res.rawPayload.length).toBeGreaterThan(res.body.length);
      const titles = await ctx.t.db.selectFrom('jobs').select(['id', 'title', 'company_name']).where('served', '=', true).execute();
      const byId = new Map(page.data.map((c) => [c.id, c.job!]));
      for (const row of titles) expect([byId.get(row.id)?.title, byId.get(row.id)?.company]).toEqual([row.title, row.company_name]);
    });

    it('clamps limit to 1..5000 and falls back to 500 for a non-numeric one', async () => {
      const count = async (limit: string) => ((await get(`/v1/changes?since=1970-01-01T00:00:00Z&limit=${limit}`)).json() as Feed<Change>).count;
      expect(await count('0')).toBe(1);
      expect(await count('abc')).toBe(500);
      expect(await count('7')).toBe(7);
      expect(await count('999999')).toBe(await ctx.t.db.selectFrom('jobs').select('id').where('served', '=', true).execute().then((r) => Math.min(5000, r.length)));
    });

    it('pages by next_since without a gap or a repeat, and echoes the cursor on an empty page', async () => {
      const seen: string[] = [];
      let since = '1970-01-01T00:00:00Z';
      for (;;) {
        const page = (await get(`/v1/changes?since=${encodeURIComponent(since)}&limit=400`)).json() as Feed<Change>;
        if (page.count === 0) {
          expect(page.next_since).toBe(since);
          break;
        }
        seen.push(...page.data.map((c) => c.id));
        since = page.next_since;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe((await ctx.t.db.selectFrom('jobs').select('id').where('served', '=', true).execute()).length);
    });

    it('reads an unencoded + offset and a bare date', async () => {
      const plus = await ctx.app.inject({ method: 'GET', url: '/v1/changes?since=2100-01-01T00:00:00+02:00', headers: bearer(growth) });
      expect(plus.statusCode).toBe(200);
      expect(plus.json()).toEqual({ count: 0, data: [], next_since: '2100-01-01T00:00:00 02:00' });
      expect((await get('/v1/changes?since=1970-01-01&limit=3')).json().count).toBe(3);
    });
  });

  describe('GET /v1/jobs/expired', () => {
    it('lists every closed row once, oldest closure first, through ties on one closure instant', async () => {
      const expected = await closedServable().select(['id', 'closed_reason']).execute();
      expect(expected.length).toBeGreaterThan(1000);
      const first = (await get('/v1/jobs/expired?since=1970-01-01T00:00:00Z')).json() as Feed<Closure>;
      expect(first.count).toBe(1000);
      const all: Closure[] = [...first.data];
      let since = first.next_since;
      for (;;) {
        const page = (await get(`/v1/jobs/expired?since=${encodeURIComponent(since)}&limit=777`)).json() as Feed<Closure>;
        if (page.count === 0) {
          expect(page.next_since).toBe(since);
          break;
        }
        all.push(...page.data);
        since = page.next_since;
      }
      expect(all.map((c) => c.id).sort()).toEqual(expected.map((r) => r.id).sort());
      const keys = all.map((c) => `${c.closed_at}|${c.id}`);
      expect([...keys].sort()).toEqual(keys);
      expect(all.every((c) => c.closed_reason === 'expired_upstream' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(c.closed_at))).toBe(true);
      // Many rows closed in one transaction share one instant: the uuid part of the cursor orders them.
      expect(new Set(all.map((c) => c.closed_at)).size).toBeLessThan(all.length);
    });

    it('accepts a cursor a client built from a served closed_at and id (at-least-once, never a gap)', async () => {
      const page = (await get('/v1/jobs/closed?limit=1')).json() as Page;
      const row = page.data[0]!;
      const built = `${row.closed_at}|${row.id}`;
      const after = (await get(`/v1/jobs/expired?since=${encodeURIComponent(built)}&limit=10000`)).json() as Feed<Closure>;
      expect(after.data.map((c) => c.id)).not.toContain(row.id);
      expect(after.count).toBe(0);
    });

    it('clamps limit to 10000', async () => {
      const page = (await get('/v1/jobs/expired?since=1970-01-01T00:00:00Z&limit=20000')).json() as Feed<Closure>;
      const total = (await closedServable().select('id').execute()).length;
      expect(page.count).toBe(Math.min(10000, total));
    });
  });

  describe('GET /v1/jobs/closed', () => {
    it('pages every closed row, most recently closed first, with status closed and closure fields', async () => {
      const rows = await allPages<Job>(get, '/v1/jobs/closed?limit=200');
      expect(rows.length).toBe((await closedServable().select('id').execute()).length);
      expect(new Set(rows.map((j) => j.id)).size).toBe(rows.length);
      expect(rows.every((j) => j.status === 'closed' && j.closed_at !== null && j.closed_reason === 'expired_upstream' && j.upstream_expired_at)).toBe(true);
      const keys = rows.map((j) => `${j.closed_at}|${j.id}`);
      expect([...keys].sort().reverse()).toEqual(keys);
    });

    it('filters by closed_reason, closed_after and closed_before, and the shared filters', async () => {
      expect(((await get('/v1/jobs/closed?closed_reason=not_seen')).json() as Page).data).toEqual([]);
      expect(((await get('/v1/jobs/closed?closed_reason=EXPIRED_UPSTREAM,not_seen&limit=5')).json() as Page).data).toHaveLength(5);
      const newest = ((await get('/v1/jobs/closed?limit=1')).json() as Page).data[0]!;
      const at = newest.closed_at!;
      const inWindow = (await get(`/v1/jobs/closed?closed_after=${encodeURIComponent(at)}&closed_before=${encodeURIComponent(new Date(Date.parse(at) + 1).toISOString())}&limit=200`)).json() as Page;
      const sameInstant = await closedServable().select('id').where('closed_at', '=', new Date(at)).execute();
      expect(inWindow.data.length).toBe(Math.min(200, sameInstant.length));
      expect(inWindow.data.every((j) => j.closed_at === at)).toBe(true);
      expect(((await get(`/v1/jobs/closed?closed_before=${encodeURIComponent(at)}&closed_after=${encodeURIComponent(at)}`)).json() as Page).data).toEqual([]);
      expect(((await get('/v1/jobs/closed?closed_after=2100-01-01')).json() as Page).data).toEqual([]);
      const ashby = (await get('/v1/jobs/closed?provider=ashby')).json() as Page;
      expect(ashby.data).toEqual([]);
      const usajobs = (await get('/v1/jobs/closed?provider=usajobs&limit=3')).json() as Page;
      expect(usajobs.data.map((j) => j.source)).toEqual(['usajobs', 'usajobs', 'usajobs']);
    });

    it('refuses bad values with the spec codes', async () => {
      const cases: Array<[string, string]> = [
        ['?closed_reason=gone', 'bad_closed_reason'],
        ['?closed_after=last-week', 'bad_timestamp'],
        ['?closed_before=2026-13-01', 'bad_timestamp'],
        ['?provider=nope', 'bad_provider'],
        ['?cursor=garbage', 'bad_cursor'],
        ['?include_description=true&limit=51', 'limit_too_large'],
      ];
      for (const [query, code] of cases) {
        const res = await get(`/v1/jobs/closed${query}`);
        expect(res.statusCode, query).toBe(422);
        expect(res.json().error, query).toBe(code);
      }
      expect((await get('/v1/jobs/closed?closed_reason=gone')).json().message).toContain('"gone"');
      // A cursor of another query is refused.
      const page = (await get('/v1/jobs/closed?limit=1')).json() as Page;
      const res = await get(`/v1/jobs/closed?limit=1&closed_reason=not_seen&cursor=${encodeURIComponent(page.next_cursor!)}`);
      expect(res.json().error).toBe('bad_cursor');
    });
  });

  describe('GET /v1/jobs/{id} and closed rows', () => {
    it('answers 404 for a closed row unless include_closed=true', async () => {
      const closed = await closedServable().select(['id', 'slug']).executeTakeFirstOrThrow();
      expect((await get(`/v1/jobs/${closed.id}`)).statusCode).toBe(404);
      for (const ref of [closed.id, closed.slug]) {
        const res = await get(`/v1/jobs/${ref}?include_closed=true`);
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toMatchObject({ id: closed.id, status: 'closed', closed_reason: 'expired_upstream' });
        expect(res.json().data.closed_at).toMatch(/Z$/);
      }
    });

    it('never shows a row that was withheld when it closed, on any closure surface', async () => {
      // The ledger state of a posting withdrawn (link on a job board) and later closed.
      const row = await closedServable().select('id').executeTakeFirstOrThrow();
      await ctx.t.db.updateTable('jobs').set({ withheld_kind: 'quality_removed', quality_verdict: 'quality_removed', quality_rule_id: 'apply_url.job_board' }).where('id', '=', row.id).execute();
      expect((await get(`/v1/jobs/${row.id}?include_closed=true`)).statusCode).toBe(404);
      const feed = (await get('/v1/jobs/expired?since=1970-01-01T00:00:00Z&limit=10000')).json() as Feed<Closure>;
      expect(feed.data.map((c) => c.id)).not.toContain(row.id);
      const listed = (await get('/v1/jobs/closed?limit=200&provider=usajobs')).json() as Page;
      expect(listed.data.map((j) => j.id)).not.toContain(row.id);
    });
  });
});
