/**
 * The naive peer (issue 22): the listing handler as most teams write it, for "service / peer". A
 * Fastify server with one `pg` pool (10 connections, as the service's) whose every GET runs the
 * statements the service sent for one request of a shape (captured by bench/server.ts: authentication
 * when it was sent, the record meter, the data), in order, with the captured values, as node-postgres
 * sends them by default (unnamed statements: parsed and planned per request), and answers
 * `{"data": <rows of the statement that returned the most rows>}` serialized by Fastify's default
 * `JSON.stringify` (no response schema, pg's default type parsers: dates become ISO strings, numerics
 * strings). It does no Redis round trip, no validation, no headers beyond Fastify's: a floor of what
 * the service's own work adds, not a second implementation.
 *
 * Environment: PORT; DATABASE_URL; BENCH_STATEMENTS_FILE (JSON: `[{text, values}]`). The pool's
 * sessions are named `jobledger-bench-peer` (the harness reads their CPU). Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pg from 'pg';

interface Statement {
  text: string;
  values: unknown[];
}

const statements = JSON.parse(readFileSync(process.env.BENCH_STATEMENTS_FILE ?? '', 'utf8')) as Statement[];
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, application_name: 'jobledger-bench-peer' });
const app = Fastify({ logger: false });

app.get('/*', async () => {
  let data: unknown[] = [];
  for (const statement of statements) {
    const result = await pool.query(statement.text, statement.values);
    if (result.rows.length >= data.length) data = result.rows;
  }
  return { data };
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write(`listening ${process.env.PORT}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}
