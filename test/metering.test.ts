/**
 * Plans, request limits, the record allowance, their headers and the country lock, through the real
 * app on the imported real corpus (spec: Authentication items 7 to 10; Limits › Plan matrix and
 * Metering rules; GET /v1/me; GET /public/plans). The meters' clock is a hand clock, so day and month
 * edges are crossed by moving it, not by waiting.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { createApiKey, type CreatedKey } from '../src/access/api-keys.ts';
import { bearer, buildTestApp, TEST_DOCS_URL } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

type Page = { data: Job[]; has_more: boolean; next_cursor: string | null };

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const RECORD_HEADERS = ['x-ratelimit-records-limit', 'x-ratelimit-records-used', 'x-ratelimit-records-remaining'];

describe('plans, limits and the record allowance', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let now = new Date('2026-03-15T12:00:00Z');

  /** Test plans: not purchasable, so /public/plans never lists them. */
  async function addPlan(id: string, limits: { records: number; perDay: number; perMinute: number }) {
    await t.db
      .insertInto('plans')
      .values({
        id,
        label: id,
        price_cents: 100,
        records_per_month: limits.records,
        requests_per_day: limits.perDay,
        requests_per_minute: limits.perMinute,
        max_page_size: 200,
        purchasable: false,
      })
      .execute();
  }
  async function setUsed(key: CreatedKey, period: string, used: number) {
    await t.db
      .insertInto('record_usage')
      .values({ api_key_id: key.id, period_start: period, used })
      .onConflict((oc) => oc.columns(['api_key_id', 'period_start']).doUpdateSet({ used }))
      .execute();
  }
  const get = (key: CreatedKey | undefined, url: string) => app.inject({ method: 'GET', url, headers: key ? bearer(key) : {} });

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    app = await buildTestApp(t, { clock: () => now });
    await addPlan('tiny', { records: 100, perDay: 1000, perMinute: 5 });
    await addPlan('daily', { records: 100, perDay: 3, perMinute: 100 });
    await addPlan('meter', { records: 1000, perDay: 1000, perMinute: 100 });
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  describe('GET /public/plans', () => {
    it('lists the active purchasable plans with the spec prices, allowances and entitlements', async () => {
      const res = await get(undefined, '/public/plans');
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.json().data).toEqual([
        { plan: 'explore', label: 'Explore', price_cents: 0, currency: 'EUR', records_per_month: 1000, requests_per_day: 5000, requests_per_minute: 30, max_page_size: 200, entitlements: [] },
        { plan: 'growth', label: 'Growth', price_cents: 8000, currency: 'EUR', records_per_month: 60000, requests_per_day: 100000, requests_per_minute: 120, max_page_size: 200, entitlements: ['delta_feed'] },
        { plan: 'signal', label: 'Signal', price_cents: 29900, currency: 'EUR', records_per_month: 400000, requests_per_day: 400000, requests_per_minute: 300, max_page_size: 200, entitlements: ['delta_feed', 'bulk_export'] },
        { plan: 'scale', label: 'Scale', price_cents: 89900, currency: 'EUR', records_per_month: 2000000, requests_per_day: 1000000, requests_per_minute: 600, max_page_size: 200, entitlements: ['delta_feed', 'bulk_export'] },
      ]);
    });

    it('drops a plan the operator retires', async () => {
      await t.db.updateTable('plans').set({ active: false }).where('id', '=', 'growth').execute();
      try {
        const plans = (await get(undefined, '/public/plans')).json().data as Array<{ plan: string }>;
        expect(plans.map((p) => p.plan)).toEqual(['explore', 'signal', 'scale']);
      } finally {
        await t.db.updateTable('plans').set({ active: true }).where('id', '=', 'growth').execute();
      }
    });
  });

  describe('GET /v1/me', () => {
    it('describes the key, its limits and its requests today, and costs no records', async () => {
      now = new Date('2026-03-15T12:00:00Z');
      const key = await createApiKey(t.db, { planId: 'growth', name: 'dashboard' });
      expect((await get(key, '/v1/jobs?limit=3')).statusCode).toBe(200);
      const res = await get(key, '/v1/me');
      expect(res.statusCode).toBe(200);
      const created = (await t.db.selectFrom('api_keys').select('created_at').where('id', '=', key.id).executeTakeFirstOrThrow()).created_at;
      expect(res.json()).toEqual({
        created: created.toISOString().slice(0, 10),
        key_prefix: key.keyPrefix,
        name: 'dashboard',
        plan: 'growth',
        status: 'active',
        limits: { per_day: 100000, per_minute: 120, max_page_size: 200, records_per_month: 60000 },
        entitlements: ['delta_feed'],
        renews_or_expires: '2026-04-01T00:00:00.000Z',
        usage_today: 2,
      });
      expect(res.headers['x-ratelimit-records-used']).toBe('3');
      const again = await get(key, '/v1/me');
      expect(again.json().usage_today).toBe(3);
      expect(again.headers['x-ratelimit-records-used']).toBe('3');
      expect(JSON.stringify(res.json())).not.toContain(key.secret.slice(12));
    });

    it('reports an expiring key by its expiry, and a free key without one as null', async () => {
      const expiring = await createApiKey(t.db, { planId: 'explore', expiresAt: new Date('2099-06-30T00:00:00Z') });
      expect((await get(expiring, '/v1/me')).json().renews_or_expires).toBe('2099-06-30T00:00:00.000Z');
      const free = await createApiKey(t.db, { planId: 'explore' });
      expect((await get(free, '/v1/me')).json()).toMatchObject({ plan: 'explore', renews_or_expires: null, entitlements: [] });
    });
  });

  describe('budget headers', () => {
    it('are on every keyed response, errors included, and on no 401', async () => {
      const key = await createApiKey(t.db, { planId: 'signal' });
      const responses = {
        ok: await get(key, '/v1/jobs?limit=2'),
        notFound: await get(key, '/v1/jobs/00000000-0000-4000-8000-000000000000'),
        unprocessable: await get(key, '/v1/jobs?remote=sometimes'),
        badCursor: await get(key, '/v1/jobs?cursor=garbage'),
        me: await get(key, '/v1/me'),
      };
      expect(Object.values(responses).map((r) => r.statusCode)).toEqual([200, 404, 422, 422, 200]);
      for (const [name, res] of Object.entries(responses)) {
        for (const header of [...RATE_HEADERS, ...RECORD_HEADERS]) expect(res.headers[header], `${name} ${header}`).toMatch(/^\d+$/);
        expect(res.headers['x-ratelimit-limit'], name).toBe('300');
        expect(res.headers['x-ratelimit-records-limit'], name).toBe('400000');
        expect(res.headers['x-svc-country-lock'], name).toBeUndefined();
      }
      expect(responses.ok.headers['x-ratelimit-remaining']).toBe('299');
      expect(responses.me.headers['x-ratelimit-remaining']).toBe('295');
      // Two rows served; the 404 and the 422s cost no records.
      expect(responses.me.headers['x-ratelimit-records-used']).toBe('2');
      expect(responses.me.headers['x-ratelimit-records-remaining']).toBe('399998');
      const unauthorized = await app.inject({ method: 'GET', url: '/v1/jobs', headers: { authorization: 'Bearer nope' } });
      expect(unauthorized.statusCode).toBe(401);
      for (const header of [...RATE_HEADERS, ...RECORD_HEADERS]) expect(unauthorized.headers[header]).toBeUndefined();
    });
  });

  describe('requests per minute and per day', () => {
    it('answer 429 rate_limited with Retry-After past the per-minute limit', async () => {
      const key = await createApiKey(t.db, { planId: 'tiny' });
      const results = await Promise.all(Array.from({ length: 8 }, () => get(key, '/v1/me')));
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(5);
      const limited = results.filter((r) => r.statusCode === 429);
      expect(limited).toHaveLength(3);
      for (const res of limited) {
        expect(res.json()).toEqual({ error: 'rate_limited', message: expect.stringContaining('5 requests for this minute'), docs: `${TEST_DOCS_URL}#rate_limited`, type: `${TEST_DOCS_URL}#rate_limited`, title: 'Too Many Requests', status: 429 });
        const retry = Number(res.headers['retry-after']);
        expect(retry).toBeGreaterThanOrEqual(1);
        expect(retry).toBeLessThanOrEqual(60);
        expect(res.headers['x-ratelimit-limit']).toBe('5');
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
        expect(res.headers['x-ratelimit-reset']).toBe(res.headers['retry-after']);
        expect(res.headers['x-ratelimit-records-remaining']).toBe('100');
      }
    });

    it('reset at UTC midnight, with Retry-After counting the seconds to it', async () => {
      now = new Date('2026-03-15T23:59:30Z');
      const key = await createApiKey(t.db, { planId: 'daily' });
      for (let i = 0; i < 3; i++) expect((await get(key, '/v1/me')).statusCode).toBe(200);
      const over = await get(key, '/v1/me');
      expect(over.statusCode).toBe(429);
      expect(over.headers['retry-after']).toBe('30');
      expect(over.json().message).toContain('3 requests for today');
      // The day is the binding window now: the generic headers describe it.
      expect(over.headers).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
      now = new Date('2026-03-15T23:59:59.200Z');
      expect((await get(key, '/v1/me')).headers['retry-after']).toBe('1');
      now = new Date('2026-03-16T00:00:00.000Z');
      const nextDay = await get(key, '/v1/me');
      expect(nextDay.statusCode).toBe(200);
      expect(nextDay.json().usage_today).toBe(1);
    });
  });

  describe('the record allowance', () => {
    it('cuts the last page to what remains, says so, then answers 402 without charging the request', async () => {
      now = new Date('2026-03-20T10:00:00Z');
      const key = await createApiKey(t.db, { planId: 'meter' });
      await setUsed(key, '2026-03-01', 990);
      const cut = await get(key, '/v1/jobs?limit=25');
      expect(cut.statusCode).toBe(200);
      const page = cut.json() as Page;
      expect(page.data).toHaveLength(10);
      expect(page.has_more).toBe(true);
      expect(cut.headers).toMatchObject({ 'x-ratelimit-records-limit': '1000', 'x-ratelimit-records-used': '1000', 'x-ratelimit-records-remaining': '0' });

      const refused = await get(key, `/v1/jobs?limit=25&cursor=${encodeURIComponent(page.next_cursor!)}`);
      expect(refused.statusCode).toBe(402);
      expect(refused.json()).toEqual({ error: 'record_quota_exhausted', message: expect.stringContaining('resets on 2026-04-01'), docs: `${TEST_DOCS_URL}#record_quota_exhausted`, type: `${TEST_DOCS_URL}#record_quota_exhausted`, title: 'Payment Required', status: 402 });
      expect(refused.headers['x-ratelimit-records-remaining']).toBe('0');
      expect(refused.headers['retry-after']).toBeUndefined();
      const single = await get(key, `/v1/jobs/${page.data[0]!.id}`);
      expect(single.statusCode).toBe(402);

      // /v1/me costs no records and still answers; the two refused requests were not counted.
      const me = await get(key, '/v1/me');
      expect(me.statusCode).toBe(200);
      expect(me.json().usage_today).toBe(2);
      expect(me.headers['x-ratelimit-records-used']).toBe('1000');
    });

    it('charges nothing for a row that is not there, nor for a HEAD request', async () => {
      const key = await createApiKey(t.db, { planId: 'meter' });
      const missing = await get(key, '/v1/jobs/00000000-0000-4000-8000-000000000000');
      expect(missing.statusCode).toBe(404);
      expect(missing.headers['x-ratelimit-records-used']).toBe('0');
      const head = await app.inject({ method: 'HEAD', url: '/v1/jobs?limit=5', headers: bearer(key) });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['x-ratelimit-records-used']).toBe('0');
      const one = (await get(key, '/v1/jobs?limit=1')).json() as Page;
      const found = await get(key, `/v1/jobs/${one.data[0]!.slug}`);
      expect(found.statusCode).toBe(200);
      expect(found.headers['x-ratelimit-records-used']).toBe('2');
    });

    it('resets on the 1st of the month (UTC) and keeps the past month as history', async () => {
      now = new Date('2026-03-31T23:59:58Z');
      const key = await createApiKey(t.db, { planId: 'meter' });
      await setUsed(key, '2026-03-01', 1000);
      expect((await get(key, '/v1/jobs?limit=5')).statusCode).toBe(402);
      now = new Date('2026-04-01T00:00:00Z');
      const fresh = await get(key, '/v1/jobs?limit=5');
      expect(fresh.statusCode).toBe(200);
      expect((fresh.json() as Page).data).toHaveLength(5);
      expect(fresh.headers).toMatchObject({ 'x-ratelimit-records-used': '5', 'x-ratelimit-records-remaining': '995' });
      const history = await t.db.selectFrom('record_usage').select(['used']).select((eb) => eb.cast<string>('period_start', 'text').as('period')).where('api_key_id', '=', key.id).orderBy('period_start').execute();
      expect(history).toEqual([
        { period: '2026-03-01', used: 1000 },
        { period: '2026-04-01', used: 5 },
      ]);
    });

    it('grants concurrent pages no more than what remains, in total', async () => {
      now = new Date('2026-03-20T10:00:00Z');
      const key = await createApiKey(t.db, { planId: 'meter' });
      await setUsed(key, '2026-03-01', 950);
      const results = await Promise.all(Array.from({ length: 9 }, () => get(key, '/v1/jobs?limit=10')));
      const served = results.filter((r) => r.statusCode === 200).reduce((sum, r) => sum + (r.json() as Page).data.length, 0);
      expect(served).toBe(50);
      expect(results.filter((r) => r.statusCode === 402)).toHaveLength(4);
      const row = await t.db.selectFrom('record_usage').select('used').where('api_key_id', '=', key.id).where('period_start', '=', '2026-03-01').executeTakeFirstOrThrow();
      expect(row.used).toBe(1000);
    });
  });

  describe('a country-locked key', () => {
    let locked: CreatedKey;
    beforeAll(async () => {
      now = new Date('2026-03-20T10:00:00Z');
      locked = await createApiKey(t.db, { planId: 'explore', countryLock: 'DE' });
      // Far past the explore plan's 1,000 records a month.
      await setUsed(locked, '2026-03-01', 5000);
    });

    it('sees only its country, whatever it asks for', async () => {
      const served = await t.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('served', '=', true).where('country', '=', 'DE').executeTakeFirstOrThrow();
      expect(served.n).toBeGreaterThan(0);
      let rows: Job[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(locked, `/v1/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.statusCode).toBe(200);
        const page = res.json() as Page;
        rows = rows.concat(page.data);
        cursor = page.next_cursor;
      } while (cursor);
      expect(rows.length).toBe(served.n);
      expect(rows.every((j) => j.country === 'DE')).toBe(true);

      expect(((await get(locked, '/v1/jobs?country=US')).json() as Page).data).toEqual([]);
      const both = (await get(locked, '/v1/jobs?country=US,DE&limit=50')).json() as Page;
      expect(both.data.length).toBeGreaterThan(0);
      expect(both.data.every((j) => j.country === 'DE')).toBe(true);

      const us = await t.db.selectFrom('jobs').select('id').where('served', '=', true).where('country', '=', 'US').executeTakeFirstOrThrow();
      expect((await get(locked, `/v1/jobs/${us.id}`)).statusCode).toBe(404);
      expect((await get(locked, `/v1/jobs/${rows[0]!.id}`)).statusCode).toBe(200);
    });

    it('is exempt from the record allowance and says so, with X-SVC-Country-Lock on every response', async () => {
      const responses = [await get(locked, '/v1/jobs?limit=200'), await get(locked, '/v1/jobs?remote=sometimes'), await get(locked, '/v1/me')];
      expect(responses.map((r) => r.statusCode)).toEqual([200, 422, 200]);
      for (const res of responses) {
        expect(res.headers['x-svc-country-lock']).toBe('DE');
        expect(res.headers['x-ratelimit-records-limit']).toBe('unlimited');
        expect(res.headers['x-ratelimit-records-remaining']).toBe('unlimited');
        expect(res.headers['x-ratelimit-records-used']).toMatch(/^\d+$/);
      }
      // Counted (the operator sees the usage), never refused.
      expect(Number(responses[2]!.headers['x-ratelimit-records-used'])).toBeGreaterThan(5000);
      expect(responses[2]!.json()).toMatchObject({ country_lock: 'DE', entitlements: ['single_country'], limits: { records_per_month: null } });
    });
  });
});
