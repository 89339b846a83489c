/**
 * The country lock on every keyed endpoint that serves job rows (spec: Authentication item 9: "A
 * country-locked key is restricted to one country code and is exempt from the record meter for job
 * rows. It reports `X-RateLimit-Records-Limit: unlimited`. A request for another country returns
 * nothing, and every response carries the header `X-SVC-Country-Lock`.").
 *
 * Hand-built rows written through the real ledger (`applyCrawl`) in three crawls, so rows move between
 * countries and close: a DE-locked key must see only DE rows, hear of a row that left DE, and never be
 * refused by the record meter, on a plan whose allowance (one record a month) refuses an unlocked key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import type { NormalizedJob } from '../src/domain/posting.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { bearer, createKey, useTestApp } from './helpers/app.ts';
import { handBuiltJob, writeHandBuiltRows } from './helpers/ledger-rows.ts';

type Change = { change: string; id: string; changed_at: string; job?: Job };
type Feed<T> = { count: number; data: T[]; next_since: string };
type Page = { data: Job[]; has_more: boolean; next_cursor: string | null };
type Company = { slug: string; name: string; open_roles: number; own_site_roles: number };
type CompanyPage = { data: Company[]; has_more: boolean; next_cursor: string | null };

/** A plan (plans are data) with every entitlement and one record a month: any metered key runs out at once. */
const TINY_PLAN = 'test-one-record';

/** The postings of one crawl: source posting id -> [country, company, title, closes upstream]. */
type Board = Record<string, [string, string, string, boolean?]>;

const FIRST: Board = {
  de1: ['DE', 'Alpha Maschinenbau', 'Schweisser'],
  de2: ['DE', 'Alpha Maschinenbau', 'Monteur'],
  de3: ['DE', 'Alpha Maschinenbau', 'Elektriker'],
  fr1: ['FR', 'Beta Logistique', 'Cariste'],
  fr2: ['FR', 'Alpha Maschinenbau', 'Technicien'],
  fr3: ['FR', 'Gamma Services', 'Comptable'],
  fr4: ['FR', 'Beta Logistique', 'Chauffeur'],
};
/** de2 moves to FR, fr3 moves to DE, fr1 is edited in FR, de3 and fr4 close upstream. */
const SECOND: Board = {
  ...FIRST,
  de2: ['FR', 'Alpha Maschinenbau', 'Monteur'],
  fr3: ['DE', 'Gamma Services', 'Comptable'],
  fr1: ['FR', 'Beta Logistique', 'Cariste (CACES)'],
  de3: ['DE', 'Alpha Maschinenbau', 'Elektriker', true],
  fr4: ['FR', 'Beta Logistique', 'Chauffeur', true],
};
/** de2 is edited again, in FR: a later event of another country that must not hide its move away from DE. */
const THIRD: Board = { ...SECOND, de2: ['FR', 'Alpha Maschinenbau', 'Monteur (m/w/d)'] };

function postings(board: Board, now: Date): Array<{ job: NormalizedJob }> {
  return Object.entries(board).map(([id, [country, companyName, title, closes]]) => ({
    job: handBuiltJob({
      sourcePostingId: id,
      title,
      companyName,
      country,
      location: country === 'DE' ? 'Deutschland' : 'France',
      fieldSources: { location: 'published' },
      ...(closes ? { upstreamClosesAt: new Date(now.getTime() - 86_400_000).toISOString() } : {}),
    }),
  }));
}

describe('a country-locked key', () => {
  const ctx = useTestApp({ key: false });
  /** DE-locked, on the one-record plan. */
  let locked: CreatedKey;
  /** Unlocked, on the one-record plan: what the meter does to a key without the lock. */
  let metered: CreatedKey;
  /** Unlocked, on scale: what the lock hides. */
  let open: CreatedKey;
  /** Position after the first crawl's events. */
  let afterFirst: string;
  /** Ledger id by source posting id. */
  const ids: Record<string, string> = {};
  const responses: Array<{ url: string; status: number; headers: Record<string, unknown> }> = [];

  const get = async (url: string, key: CreatedKey = locked) => {
    const res = await ctx.app.inject({ method: 'GET', url, headers: bearer(key) });
    if (key === locked) responses.push({ url, status: res.statusCode, headers: res.headers });
    return res;
  };
  const feed = async (path: string, since: string, key: CreatedKey = locked) => {
    const res = await get(`${path}?since=${encodeURIComponent(since)}&limit=5000`, key);
    expect(res.statusCode, path).toBe(200);
    return res.json() as Feed<Change>;
  };
  const slugOf = async (name: string) => (await ctx.t.db.selectFrom('companies').select('slug').where('name', '=', name).executeTakeFirstOrThrow()).slug;
  const countryOf = (page: { data: Job[] }) => page.data.map((j) => j.country);
  const idsOf = (items: Array<{ id: string }>) => items.map((i) => i.id).sort();
  const named = (...names: string[]) => names.map((n) => ids[n]!).sort();

  beforeAll(async () => {
    await ctx.t.db
      .insertInto('plans')
      .values({
        id: TINY_PLAN,
        label: 'One record (tests)',
        price_cents: 0,
        records_per_month: 1,
        requests_per_day: 2e9,
        requests_per_minute: 2e9,
        max_page_size: 200,
        entitlements: ['delta_feed', 'bulk_export'],
        purchasable: false,
      })
      .execute();
    locked = await createKey(ctx.t, TINY_PLAN, { countryLock: 'DE' });
    metered = await createKey(ctx.t, TINY_PLAN);
    open = await createKey(ctx.t, 'scale');

    await writeHandBuiltRows(ctx.t.db, postings(FIRST, new Date()), { board: 'country-lock' });
    for (const r of await ctx.t.db.selectFrom('jobs').select(['id', 'source_posting_id']).execute()) ids[r.source_posting_id] = r.id;
    const first = await feed('/v1/changes', '1970-01-01T00:00:00Z', open);
    afterFirst = first.next_since;
    await writeHandBuiltRows(ctx.t.db, postings(SECOND, new Date()), { board: 'country-lock' });
    await writeHandBuiltRows(ctx.t.db, postings(THIRD, new Date()), { board: 'country-lock' });
  });

  describe('GET /v1/changes', () => {
    it('serves only its country from the start: the rows in DE now, each as it is now', async () => {
      const all = await feed('/v1/changes', '1970-01-01T00:00:00Z');
      const upserts = all.data.filter((c) => c.job);
      expect(upserts.map((c) => c.job!.country)).toEqual(upserts.map(() => 'DE'));
      expect(idsOf(upserts)).toEqual(named('de1', 'fr3'));
      // A client replaying the feed holds exactly what /v1/jobs serves this key.
      const held = new Set<string>();
      for (const c of all.data) {
        if (c.job) held.add(c.id);
        else held.delete(c.id);
      }
      const jobs = (await get('/v1/jobs?limit=200')).json() as Page;
      expect([...held].sort()).toEqual(idsOf(jobs.data));
      expect(countryOf(jobs)).toEqual(jobs.data.map(() => 'DE'));
    });

    it('tells a client holding a row that left DE to drop it, without showing the row in its new country', async () => {
      const since = await feed('/v1/changes', afterFirst);
      const byId = new Map(since.data.map((c) => [c.id, c]));
      // de2 moved to FR and was edited there since: one withdrawn item, no FR row.
      expect(byId.get(ids.de2!)).toMatchObject({ change: 'withdrawn' });
      expect(byId.get(ids.de2!)!.job).toBeUndefined();
      // fr3 arrived in DE; de3 closed upstream.
      expect(byId.get(ids.fr3!)).toMatchObject({ change: 'updated', job: { id: ids.fr3, country: 'DE' } });
      expect(byId.get(ids.de3!)).toMatchObject({ change: 'delisted' });
      expect(idsOf(since.data)).toEqual(named('de2', 'de3', 'fr3'));

      // The unlocked feed serves the same moment differently: de2 as an FR row, and the FR changes.
      const unlocked = new Map((await feed('/v1/changes', afterFirst, open)).data.map((c) => [c.id, c]));
      expect(unlocked.get(ids.de2!)).toMatchObject({ change: 'updated', job: { country: 'FR' } });
      expect(unlocked.has(ids.fr1!)).toBe(true);
      expect(unlocked.has(ids.fr4!)).toBe(true);
    });

    it('pages its own feed by next_since without losing or repeating an item', async () => {
      const whole = await feed('/v1/changes', '1970-01-01T00:00:00Z');
      const paged: Change[] = [];
      let since = '1970-01-01T00:00:00Z';
      for (;;) {
        const res = await get(`/v1/changes?since=${encodeURIComponent(since)}&limit=1`);
        const page = res.json() as Feed<Change>;
        if (page.count === 0) break;
        paged.push(...page.data);
        since = page.next_since;
      }
      expect(paged).toEqual(whole.data);
    });
  });

  describe('GET /v1/jobs/expired', () => {
    it('lists only the closures of its country', async () => {
      const locks = (await get(`/v1/jobs/expired?since=1970-01-01T00:00:00Z`)).json() as Feed<{ id: string }>;
      expect(idsOf(locks.data)).toEqual(named('de3'));
      const unlocked = (await get(`/v1/jobs/expired?since=1970-01-01T00:00:00Z`, open)).json() as Feed<{ id: string }>;
      expect(idsOf(unlocked.data)).toEqual(named('de3', 'fr4'));
    });
  });

  describe('GET /v1/jobs and /v1/jobs/closed', () => {
    it('list only its country, and nothing for another country (200, empty)', async () => {
      const live = (await get('/v1/jobs?limit=200')).json() as Page;
      expect(idsOf(live.data)).toEqual(named('de1', 'fr3'));
      const closed = (await get('/v1/jobs/closed?limit=200')).json() as Page;
      expect(idsOf(closed.data)).toEqual(named('de3'));
      expect(idsOf(((await get('/v1/jobs/closed?limit=200', open)).json() as Page).data)).toEqual(named('de3', 'fr4'));

      for (const url of ['/v1/jobs?country=FR', '/v1/jobs/closed?country=FR', '/v1/jobs/closed?country=fr&closed_reason=expired_upstream']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect((res.json() as Page).data, url).toEqual([]);
      }
      expect(idsOf(((await get('/v1/jobs/closed?country=FR,DE')).json() as Page).data)).toEqual(named('de3'));
      expect((await get(`/v1/jobs/${ids.de2}`)).statusCode).toBe(404);
      expect((await get(`/v1/jobs/${ids.fr4}?include_closed=true`)).statusCode).toBe(404);
      expect((await get(`/v1/jobs/${ids.de3}?include_closed=true`)).statusCode).toBe(200);
    });
  });

  describe('GET /v1/export', () => {
    const lines = (body: string) => body.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

    it('exports only its country, and nothing for another country', async () => {
      const all = lines((await get('/v1/export?status=any')).body);
      expect(all.at(-1)).toMatchObject({ complete: true, count: 3 });
      expect(idsOf(all.slice(0, -1) as Array<{ id: string }>)).toEqual(named('de1', 'de3', 'fr3'));
      expect(all.slice(0, -1).every((l) => l.country === 'DE')).toBe(true);

      const unlocked = lines((await get('/v1/export?status=any', open)).body);
      expect(unlocked.at(-1)).toMatchObject({ complete: true, count: 7 });

      const other = await get('/v1/export?country=FR&status=any');
      expect(other.statusCode).toBe(200);
      expect(lines(other.body)).toEqual([{ complete: true, count: 0, after: null, since: expect.stringMatching(/\|ffffffff-ffff-ffff-ffff-ffffffffffff$/) }]);
    });
  });

  describe('GET /v1/companies', () => {
    it('lists the employers with rows in its country, counting those rows only', async () => {
      const page = (await get('/v1/companies?limit=200')).json() as CompanyPage;
      expect(page.data.map((c) => [c.name, c.open_roles]).sort()).toEqual([
        ['Alpha Maschinenbau', 1],
        ['Gamma Services', 1],
      ]);
      const unlocked = (await get('/v1/companies?limit=200', open)).json() as CompanyPage;
      expect(unlocked.data.map((c) => [c.name, c.open_roles]).sort()).toEqual([
        ['Alpha Maschinenbau', 3],
        ['Beta Logistique', 1],
        ['Gamma Services', 1],
      ]);
      // open_roles reconciles with what the same key pages through on /v1/jobs?company=<slug>.
      const alpha = await slugOf('Alpha Maschinenbau');
      expect(((await get(`/v1/jobs?company=${alpha}`)).json() as Page).data).toHaveLength(1);
    });

    it('returns nothing for another country, and does not find an employer with no rows in it', async () => {
      const other = await get('/v1/companies?country=FR');
      expect(other.statusCode).toBe(200);
      expect((other.json() as CompanyPage).data).toEqual([]);
      expect(((await get('/v1/companies?country=fr,de')).json() as CompanyPage).data).toHaveLength(2);

      const beta = await slugOf('Beta Logistique');
      expect((await get(`/v1/companies/${beta}`)).statusCode).toBe(404);
      expect((await get(`/v1/companies/${beta}`, open)).statusCode).toBe(200);
      const alpha = await get(`/v1/companies/${await slugOf('Alpha Maschinenbau')}`);
      expect(alpha.statusCode).toBe(200);
      expect(alpha.json()).toMatchObject({ data: { name: 'Alpha Maschinenbau', open_roles: 1 } });
    });
  });

  describe('budget headers', () => {
    it('carry X-SVC-Country-Lock on every response, errors included', async () => {
      const errors: Array<[string, number]> = [
        ['/v1/changes', 422],
        ['/v1/jobs/expired?since=yesterday', 422],
        ['/v1/jobs/closed?closed_reason=sold', 422],
        ['/v1/export?status=sometimes', 422],
        ['/v1/companies?offset=-1', 422],
        ['/v1/companies/no-such-employer', 404],
        ['/v1/jobs?remote=sometimes', 422],
      ];
      for (const [url, status] of errors) expect((await get(url)).statusCode, url).toBe(status);
      // Every response to the locked key in this file, the 200s of the tests above included.
      expect(responses.length).toBeGreaterThan(errors.length);
      for (const res of responses) {
        expect(res.headers['x-svc-country-lock'], `${res.url} ${res.status}`).toBe('DE');
        expect(res.headers['x-ratelimit-records-limit'], res.url).toBe('unlimited');
        expect(res.headers['x-ratelimit-records-remaining'], res.url).toBe('unlimited');
      }
    });

    it('never refuse it for records, on a plan whose allowance refuses an unlocked key at once', async () => {
      // The locked key has been served far more than the plan's one record this month.
      expect(responses.filter((r) => r.status === 402)).toEqual([]);
      const used = await get('/v1/me');
      expect(Number(used.headers['x-ratelimit-records-used'])).toBeGreaterThan(1);
      for (const url of ['/v1/jobs?limit=200', '/v1/jobs/closed', '/v1/export?status=any', '/v1/companies', `/v1/changes?since=1970-01-01T00:00:00Z`]) {
        expect((await get(url)).statusCode, url).toBe(200);
      }

      expect((await get('/v1/jobs?limit=1', metered)).statusCode).toBe(200);
      const refused = await get('/v1/jobs?limit=1', metered);
      expect(refused.statusCode).toBe(402);
      expect(refused.headers['x-ratelimit-records-limit']).toBe('1');
      expect(refused.headers['x-svc-country-lock']).toBeUndefined();
    });
  });
});
