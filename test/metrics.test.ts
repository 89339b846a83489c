/**
 * Observability of a running API (issue 20): `/metrics` on its own listener behind a token, the
 * traffic counted by route, status and plan, 429s counted, the ledger gauges (pool, feed lag), the
 * request id accepted and returned, and the key prefix, never the secret, in the access log.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBoss } from 'pg-boss';
import { PGBOSS_SCHEMA } from '../src/store/operations.ts';
import { observeCrawl, startMetricsServer, watchLedger, type MetricsServer } from '../src/observability/metrics.ts';
import { bearer, buildTestApp, createKey } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { connect } from '../src/store/database.ts';
import type { DB } from '../src/store/schema.ts';
import { capturingLog } from './helpers/logs.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';

const TOKEN = 'metrics-token-0123456789';

describe('metrics and request logs', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let metrics: MetricsServer;
  let key: CreatedKey;
  // A generic-plan pool as `serve` opens one (store/database.ts Database.genericReader).
  let generic: { db: Kysely<DB>; pool: pg.Pool };
  const { log, lines } = capturingLog();

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    generic = connect(t.url, { statementTimeoutMs: 0, planCacheMode: 'force_generic_plan' });
    app = await buildTestApp(t, { keylessBurst: 2, log, genericReader: generic.db });
    key = await createKey(t, 'scale');
    watchLedger(t.db, { main: t.pool, generic: generic.pool });
    metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', token: TOKEN, log: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await metrics?.close();
    await app?.close();
    await generic?.db.destroy();
    await t?.drop();
  });

  const scrape = (authorization?: string) => fetch(`http://127.0.0.1:${metrics.port}/metrics`, { headers: authorization ? { authorization } : {} });

  it('returns the request id a client sent, and makes one otherwise', async () => {
    const sent = await app.inject({ method: 'GET', url: '/public/jobs?limit=1', headers: { 'x-request-id': 'trace-abc-123' } });
    expect(sent.headers['x-request-id']).toBe('trace-abc-123');
    const made = await app.inject({ method: 'GET', url: '/v1/me', headers: bearer(key) });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await app.inject({ method: 'GET', url: '/v1/me', headers: { ...bearer(key), 'x-request-id': 'x'.repeat(300) } });
    expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs the key prefix of a keyed request, never its secret', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/me', headers: { ...bearer(key), 'x-request-id': 'keyed-log-1' } });
    expect(res.statusCode).toBe(200);
    const completed = lines.find((l) => l.reqId === 'keyed-log-1' && l.msg === 'request completed');
    expect(completed?.keyPrefix).toBe(key.keyPrefix);
    expect(JSON.stringify(lines)).not.toContain(key.secret.slice(12));
  });

  it('serves /metrics only with the token', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('Bearer wrong-token-0123456789')).status).toBe(401);
    const ok = await scrape(`Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');
    expect((await fetch(`http://127.0.0.1:${metrics.port}/other`)).status).toBe(404);
  });

  it('counts requests by route, status and plan, 429s, and reads the ledger gauges', async () => {
    for (let i = 0; i < 4; i++) await app.inject({ method: 'GET', url: '/public/companies?limit=1' });
    const page = (await app.inject({ method: 'GET', url: '/v1/jobs?limit=1', headers: bearer(key) })).json<{ data: { id: string }[] }>();
    // One job by id is read on the generic-plan pool.
    expect((await app.inject({ method: 'GET', url: `/v1/jobs/${page.data[0]!.id}`, headers: bearer(key) })).statusCode).toBe(200);
    observeCrawl('greenhouse', { outcome: 'fetched', ms: 1500, counts: { postings: 42 } });
    // Two jobs waiting in a queue nobody works.
    const boss = new PgBoss({ connectionString: t.url, schema: PGBOSS_SCHEMA, max: 1, supervise: false, schedule: false });
    await boss.start();
    await boss.createQueue('jobledger-probe');
    await boss.send('jobledger-probe', {});
    await boss.send('jobledger-probe', {});
    await boss.stop({ graceful: false, close: true });
    const body = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(body).toMatch(/jobledger_http_requests_total\{route="\/public\/companies",method="GET",status="200",plan="keyless"\} [1-9]/);
    expect(body).toMatch(/jobledger_http_requests_total\{route="\/public\/companies",method="GET",status="429",plan="keyless"\} [1-9]/);
    expect(body).toMatch(/jobledger_http_requests_total\{route="\/v1\/jobs",method="GET",status="200",plan="scale"\} 1/);
    expect(body).toMatch(/jobledger_limit_refusals_total\{status="429",plan="keyless"\} [1-9]/);
    expect(body).toMatch(/jobledger_http_request_duration_seconds_bucket\{le="[^"]+",route="\/v1\/jobs",method="GET",plan="scale"\} 1/);
    expect(body).toMatch(/jobledger_db_pool_connections\{pool="main",state="total"\} [1-9]/);
    expect(body).toMatch(/jobledger_db_pool_connections\{pool="main",state="waiting"\} 0/);
    expect(body).toMatch(/jobledger_db_pool_connections\{pool="generic",state="total"\} [1-9]/);
    expect(body).not.toContain('pool="replica"');
    expect(body).toMatch(/jobledger_feed_lag_seconds \d/);
    expect(body).toMatch(/jobledger_crawl_duration_seconds_count\{provider="greenhouse",outcome="fetched"\} 1/);
    expect(body).toMatch(/jobledger_crawl_postings_sum\{provider="greenhouse"\} 42/);
    expect(body).toContain('# TYPE jobledger_report_snapshot_age_seconds gauge');
    expect(body).toMatch(/jobledger_queue_depth\{queue="jobledger-probe"\} 2/);
  });
});
