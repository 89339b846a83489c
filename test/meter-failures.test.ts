/**
 * What the budgets do when their stores fail (docs/metering.md): request counters fail open — an
 * unreachable or stuck Redis hands counting to the process, which keeps serving and keeps limiting
 * on its own — while the record meter never does: if PostgreSQL cannot record a reservation, the
 * request fails and serves nothing.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, REDIS_COMMAND_TIMEOUT_MS } from '../src/access/counters.ts';
import { createApiKey } from '../src/access/api-keys.ts';
import { bearer, buildTestApp, uniqueRedisPrefix } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

/** A loopback TCP server that accepts connections and never answers: a stuck Redis. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('budgets when their stores fail', () => {
  let t: TestDatabase;
  const silence = pino({ level: 'silent' });

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true, statementTimeoutMs: 1000 });
    await t.db
      .insertInto('plans')
      .values({ id: 'three', label: 'Three', price_cents: 100, records_per_month: 20, requests_per_day: 1000, requests_per_minute: 3, max_page_size: 200, purchasable: false })
      .execute();
  });
  afterAll(async () => {
    await t.drop();
  });

  async function appWithRedis(url: string): Promise<{ app: FastifyInstance; redis: Redis }> {
    const redis = connectRedis(url, silence);
    const app = await buildTestApp(t, { requestCounters: { kind: 'redis', client: redis, keyPrefix: uniqueRedisPrefix() } });
    return { app, redis };
  }

  for (const [outage, server] of [
    ['unreachable (nothing listens)', async () => ({ port: await freePort(), close: async () => undefined })],
    ['stuck (accepts, never answers)', silentServer],
  ] as const) {
    it(`keeps serving and limiting per process when Redis is ${outage}, and still refuses spent records`, async () => {
      const stand = await server();
      const { app, redis } = await appWithRedis(`redis://127.0.0.1:${stand.port}`);
      try {
        const key = await createApiKey(t.db, { planId: 'three' });
        const started = Date.now();
        const first = await app.inject({ method: 'GET', url: '/v1/jobs?limit=15', headers: bearer(key) });
        // Answered, not hung on Redis: the wait is bounded by the command timeout (1 s). The bound here
        // is loose on purpose (a loaded machine adds seconds), yet far below a hang until the test's limit.
        expect(Date.now() - started).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS * 15);
        expect(first.statusCode).toBe(200);
        expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2', 'x-ratelimit-records-used': '15' });
        // The record allowance is still enforced: 5 left, so the page is cut, then 402.
        const cut = await app.inject({ method: 'GET', url: '/v1/jobs?limit=15', headers: bearer(key) });
        expect(cut.json().data).toHaveLength(5);
        expect((await app.inject({ method: 'GET', url: '/v1/jobs?limit=15', headers: bearer(key) })).statusCode).toBe(402);
        // The 402 charged no request; the per-minute limit holds in this process.
        expect((await app.inject({ method: 'GET', url: '/v1/me', headers: bearer(key) })).statusCode).toBe(200);
        const limited = await app.inject({ method: 'GET', url: '/v1/me', headers: bearer(key) });
        expect(limited.statusCode).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        // The keyless surface keeps answering too.
        expect((await app.inject({ method: 'GET', url: '/public/plans' })).statusCode).toBe(200);
      } finally {
        await app.close();
        redis.disconnect();
        await stand.close();
      }
    }, 300_000);
  }

  it('never fails open for records: a reservation PostgreSQL cannot make fails the request, serving nothing', async () => {
    const app = await buildTestApp(t, { requestCounters: { kind: 'memory' } });
    const key = await createApiKey(t.db, { planId: 'scale' });
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    await t.db.insertInto('record_usage').values({ api_key_id: key.id, period_start: month, used: 0 }).execute();
    // Another session holds the meter row, so the reservation cannot be recorded within the
    // statement timeout.
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT used FROM record_usage WHERE api_key_id = $1 FOR UPDATE', [key.id]);
      const res = await app.inject({ method: 'GET', url: '/v1/jobs?limit=10', headers: bearer(key) });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('timeout');
      expect(res.json().data).toBeUndefined();
      expect(res.headers['retry-after']).toBe('5');
      await holder.query('ROLLBACK');
      const used = await t.db.selectFrom('record_usage').select('used').where('api_key_id', '=', key.id).executeTakeFirstOrThrow();
      expect(used.used).toBe(0);
    } finally {
      await holder.end();
      await app.close();
    }
  }, 300_000);
});
