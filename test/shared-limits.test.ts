/**
 * Accuracy under concurrency across processes (issue 5 acceptance; issue 20's scale-out test): two
 * real API processes (`jobledger serve`) on one database and one Redis. 400 concurrent requests
 * against a key allowed 100 per minute: exactly 100 succeed, the rest are 429 with Retry-After, and
 * each process's `/metrics` counts exactly the answers it gave. With 50 records left, concurrent
 * `limit=10` pages serve exactly 50 records in total, then 402. Both processes schedule the
 * cluster's chores; the reports are computed once between them. (Two crawl workers never crawling a
 * target twice: test/worker.test.ts.)
 *
 * Needs Redis: REDIS_URL (CI sets it), else the machine's Redis at 127.0.0.1:6379 when it answers;
 * otherwise the test is skipped, saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type CreatedKey } from '../src/access/api-keys.ts';
import { bearer, buildTestApp, uniqueRedisPrefix } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

const CLI = path.resolve(import.meta.dirname, '../src/main/cli.ts');
const MACHINE_REDIS = 'redis://127.0.0.1:6379';

/** The Redis to use, or undefined when none answers. */
async function reachableRedis(): Promise<string | undefined> {
  const url = process.env.REDIS_URL ?? MACHINE_REDIS;
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return url;
  } catch {
    if (process.env.REDIS_URL) throw new Error(`REDIS_URL=${process.env.REDIS_URL} does not answer`);
    return undefined;
  } finally {
    client.disconnect();
  }
}

const METRICS_TOKEN = 'scale-out-metrics-token-0123456789';

interface ApiProcess {
  base: string;
  /** This process's Prometheus text, from its metrics listener. */
  metrics: () => Promise<string>;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

async function startApi(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, CI: 'true', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), JOBLEDGER_METRICS_PORT: String(metricsPort), JOBLEDGER_METRICS_TOKEN: METRICS_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`serve did not come up:\n${output}`);
    const up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const redisUrl = await reachableRedis();
if (!redisUrl) console.warn(`shared-limits: skipped, no Redis answers at ${MACHINE_REDIS} and REDIS_URL is not set`);

describe.skipIf(!redisUrl)('two API processes sharing Redis', () => {
  let t: TestDatabase;
  let apis: ApiProcess[] = [];
  const prefix = uniqueRedisPrefix();

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    await t.db
      .insertInto('plans')
      .values({ id: 'hundred', label: 'Hundred', price_cents: 100, records_per_month: 10_000, requests_per_day: 100_000, requests_per_minute: 100, max_page_size: 200, purchasable: false })
      .execute();
    const env = { DATABASE_URL: t.url, REDIS_URL: redisUrl!, JOBLEDGER_REDIS_KEY_PREFIX: prefix };
    apis = await Promise.all([startApi(env), startApi(env)]);
  }, 600_000);
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.stop()));
    const redis = new Redis(redisUrl!);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await t?.drop();
  });

  const call = (i: number, key: CreatedKey, url: string) => fetch(`${apis[i % 2]!.base}${url}`, { headers: { authorization: `Bearer ${key.secret}` } });

  it('lets exactly the per-minute limit through 400 concurrent requests, the rest 429 with Retry-After', async () => {
    const key = await createApiKey(t.db, { planId: 'hundred' });
    const responses = await Promise.all(Array.from({ length: 400 }, (_, i) => call(i, key, '/v1/me')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(300);
    // Both processes served some of the 100: the count is shared, not per process.
    const okBy = [0, 1].map((p) => responses.filter((r, i) => i % 2 === p && r.status === 200).length);
    expect(okBy[0]! + okBy[1]!).toBe(100);
    for (const res of responses.filter((r) => r.status === 429)) {
      const retry = Number(res.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(((await res.json()) as { error: string }).error).toBe('rate_limited');
    }
    await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.body?.cancel()));
    // Each process's /metrics shows the traffic it took, and only that.
    for (const p of [0, 1]) {
      const text = await apis[p]!.metrics();
      expect(counterValue(text, 'jobledger_http_requests_total', { route: '/v1/me', status: '200' }), `process ${p} 200s`).toBe(okBy[p]);
      expect(counterValue(text, 'jobledger_http_requests_total', { route: '/v1/me', status: '429' }), `process ${p} 429s`).toBe(200 - okBy[p]!);
    }
    const redis = new Redis(redisUrl!);
    try {
      expect(Number(await redis.get(`${prefix}:req-min:${key.id}`))).toBe(100);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it('serves exactly the 50 records left to concurrent limit=10 pages, then 402', async () => {
    const key = await createApiKey(t.db, { planId: 'hundred' });
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    await t.db.insertInto('record_usage').values({ api_key_id: key.id, period_start: month, used: 9_950 }).execute();
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => call(i, key, '/v1/jobs?limit=10')));
    let served = 0;
    for (const res of responses) {
      if (res.status === 200) served += ((await res.json()) as { data: unknown[] }).data.length;
      else {
        expect(res.status).toBe(402);
        expect(((await res.json()) as { error: string }).error).toBe('record_quota_exhausted');
      }
    }
    expect(served).toBe(50);
    const after = await call(0, key, '/v1/jobs?limit=10');
    expect(after.status).toBe(402);
    expect(after.headers.get('x-ratelimit-records-remaining')).toBe('0');
    await after.body?.cancel();
    const row = await t.db.selectFrom('record_usage').select('used').where('api_key_id', '=', key.id).where('period_start', '=', month).executeTakeFirstOrThrow();
    expect(row.used).toBe(10_000);
  }, 60_000);

  it('computes the reports once between both processes, and both serve the snapshot', async () => {
    const ran = async () => {
      const texts = await Promise.all(apis.map((a) => a.metrics()));
      return texts.map((x) => counterValue(x, 'jobledger_chore_runs_total', { chore: 'report-snapshots', outcome: 'done' }));
    };
    for (let i = 0; (await ran()).reduce((a, b) => a + b, 0) === 0; i++) {
      expect(i, 'the report chore never ran').toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Both start-up jobs and any cron occurrence have been taken when none is left waiting.
    for (let i = 0; ; i++) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'jobledger-chore-report-snapshots' AND state IN ('created', 'retry', 'active')`.execute(t.db);
      if (rows[0]!.n === 0) break;
      expect(i, 'a report job stayed queued').toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await ran()).reduce((a, b) => a + b, 0)).toBe(1);
    // Both serve the one stored snapshot: the same measurement instant and figures.
    const [a, b] = await Promise.all(
      apis.map(async (api) => {
        const { data } = (await (await fetch(`${api.base}/public/stats`)).json()) as { data: { measured_at: string; age_seconds?: number } };
        delete data.age_seconds;
        return data;
      }),
    );
    expect(a!.measured_at).toMatch(/^\d{4}-/);
    expect(a).toEqual(b);
  }, 60_000);
});

/** The sum of `metric`'s samples whose labels include `labels` in a Prometheus text exposition. */
function counterValue(text: string, metric: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('two apps sharing request counters in PostgreSQL (no Redis)', () => {
  it('let exactly the per-minute limit through, whichever app answers', async () => {
    const t = await createTestDatabase();
    // Two apps with their own limiter objects: only the database can make them agree.
    const apps = await Promise.all([0, 1].map(() => buildTestApp(t, { requestCounters: { kind: 'postgres', pool: t.pool } })));
    try {
      await t.db
        .insertInto('plans')
        .values({ id: 'twenty', label: 'Twenty', price_cents: 100, records_per_month: 100, requests_per_day: 1000, requests_per_minute: 20, max_page_size: 200, purchasable: false })
        .execute();
      const key = await createApiKey(t.db, { planId: 'twenty' });
      const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => apps[i % 2]!.inject({ method: 'GET', url: '/v1/me', headers: bearer(key) })));
      expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(20);
      expect(responses.filter((r) => r.statusCode === 429)).toHaveLength(40);
      const stored = await t.db.selectFrom('request_counters').select('points').where('key', '=', `req-min:${key.id}`).executeTakeFirstOrThrow();
      expect(stored.points).toBe(20);
    } finally {
      await Promise.all(apps.map((a) => a.close()));
      await t.drop();
    }
  });
});
