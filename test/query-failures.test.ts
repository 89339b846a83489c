/**
 * What a client sees when the database fails (spec: Errors, "The database's own error string is never
 * published"; 503 timeout with Retry-After: 5 and retry_after; 500 query_failed, no Retry-After).
 * Real failures of a real PostgreSQL: a statement that outlives statement_timeout because another
 * session holds a lock, and a statement that fails because the schema under it changed.
 */
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXED_MESSAGES } from '../src/domain/errors.ts';
import { loadConfig } from '../src/config/config.ts';
import { statementTimeouts } from '../src/observability/metrics.ts';
import { bearer, TEST_DOCS_URL, useTestApp } from './helpers/app.ts';

/** Text PostgreSQL puts in these errors; none of it may reach a client. */
const DATABASE_WORDS = /statement timeout|canceling|cancelling|does not exist|column|relation|syntax|postgres|SQLSTATE|57014|42703/i;

function expectNothingLeaked(res: LightMyRequestResponse): void {
  expect(res.body).not.toMatch(DATABASE_WORDS);
  for (const [name, value] of Object.entries(res.headers)) expect(`${name}: ${String(value)}`).not.toMatch(DATABASE_WORDS);
}

describe('database failures', () => {
  const ctx = useTestApp({ database: { statementTimeoutMs: 400 } });

  beforeAll(async () => {
    // A short statement_timeout stands in for the production 10 s, so a blocked statement hits it fast.
  });

  it('runs API queries under the spec\'s 10-second statement timeout by default', () => {
    expect(loadConfig({}).statementTimeoutMs).toBe(10_000);
  });

  it('answers a statement timeout with 503 timeout, Retry-After: 5 and retry_after, on every listing surface', async () => {
    const timeoutsBefore = (await statementTimeouts.get()).values[0]?.value ?? 0;
    const holder = new pg.Client({ connectionString: ctx.t.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE');
      for (const [url, headers] of [
        ['/v1/jobs?country=US', bearer(ctx.key)],
        ['/v1/jobs?q=engineer&status=any', bearer(ctx.key)],
        ['/public/jobs', {}],
        ['/v1/meta/facets', bearer(ctx.key)],
        ['/public/providers', {}],
      ] as const) {
        const started = Date.now();
        const res = await ctx.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, url).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.json()).toEqual({ error: 'timeout', message: FIXED_MESSAGES.timeout, docs: `${TEST_DOCS_URL}#timeout`, type: `${TEST_DOCS_URL}#timeout`, title: 'Service Unavailable', status: 503, retry_after: 5 });
        expectNothingLeaked(res);
        expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      }
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // Operators see them on /metrics (jobledger_statement_timeouts_total): at least one per answer.
    expect(((await statementTimeouts.get()).values[0]?.value ?? 0) - timeoutsBefore).toBeGreaterThanOrEqual(5);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/jobs', headers: bearer(ctx.key) })).statusCode).toBe(200);
  });

  it('answers any other database failure with 500 query_failed, a fixed message and no Retry-After', async () => {
    // The schema changes under the running service: every listing query now names a missing column
    // (the listing order's; pages read from stored lines name no `title`).
    await ctx.t.db.schema.alterTable('jobs').renameColumn('sort_key', 'sort_key_renamed_by_test').execute();
    try {
      for (const [url, headers] of [
        ['/v1/jobs', bearer(ctx.key)],
        ['/v1/jobs?title=engineer', bearer(ctx.key)],
        ['/public/jobs?country=US', {}],
      ] as const) {
        const res = await ctx.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, url).toBe(500);
        expect(res.json()).toEqual({ error: 'query_failed', message: FIXED_MESSAGES.query_failed, docs: `${TEST_DOCS_URL}#query_failed`, type: `${TEST_DOCS_URL}#query_failed`, title: 'Internal Server Error', status: 500 });
        expect(res.headers['retry-after']).toBeUndefined();
        expectNothingLeaked(res);
      }
    } finally {
      await ctx.t.db.schema.alterTable('jobs').renameColumn('sort_key_renamed_by_test', 'sort_key').execute();
    }
  });
});
