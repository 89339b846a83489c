/**
 * The service under benchmark, as its own process (so its RSS can be sampled): the production app
 * (`buildApp`) over the production pool settings (`loadConfig`: 10 connections, the API statement
 * timeout), listening on loopback, without the crawl worker or the report refresher.
 *
 * Environment: DATABASE_URL (the bench database), PORT; BENCH_COUNTERS = memory | redis | postgres
 * (where request counters live; redis needs REDIS_URL); BENCH_LIMITS = on | off (request limits and
 * record meter on /v1, see AppOptions.keyedLimits); BENCH_CAPTURE = 1 records every SQL statement the
 * pool sends, served by GET /__bench/capture (and reset by DELETE), so the harness can replay exactly
 * what one request sent through pgbench. GET /__bench/stats (always) answers `{redisCommands}`: the
 * commands the request counters sent to Redis so far (each one round trip unless pipelined), so the
 * harness can count round trips per request. Prints `listening <port>` once ready.
 */
import pg from 'pg';
import pino from 'pino';
import { connectRedis, waitForRedis, type CounterStore } from '../src/access/counters.ts';
import { loadConfig } from '../src/config/config.ts';
import { buildApp } from '../src/http/app.ts';
import { KeylessPageCache } from '../src/http/keyless-page-cache.ts';
import { defaultReportSettings } from '../src/reports/snapshots.ts';
import { connect } from '../src/store/database.ts';
import { listenForKeyChanges } from '../src/store/key-changes.ts';
import { cursorSecret } from '../src/store/settings.ts';

/** One statement as the pool sent it. */
export interface CapturedStatement {
  text: string;
  values: unknown[];
}

const captured: CapturedStatement[] = [];
if (process.env.BENCH_CAPTURE === '1') {
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] };
    if (typeof first === 'string') captured.push({ text: first, values: Array.isArray(args[1]) ? (args[1] as unknown[]) : [] });
    else if (first && typeof first.text === 'string') captured.push({ text: first.text, values: first.values ?? (Array.isArray(args[1]) ? (args[1] as unknown[]) : []) });
    return original.apply(this, args);
  };
}

const config = loadConfig();
if (!config.databaseUrl) throw new Error('bench/server.ts needs DATABASE_URL');
const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });
const { db, pool } = connect(config.databaseUrl, { statementTimeoutMs: config.statementTimeoutMs, applicationName: 'jobledger-bench-api' });
// As `serve` (Database.genericReader); the same application_name, so the harness reads its sessions' CPU too.
const genericReader = connect(config.databaseUrl, { statementTimeoutMs: config.statementTimeoutMs, applicationName: 'jobledger-bench-api', planCacheMode: 'force_generic_plan' }).db;

const kind = process.env.BENCH_COUNTERS ?? 'memory';
let requestCounters: CounterStore;
let redisCommands = 0;
if (kind === 'redis') {
  if (!config.redisUrl) throw new Error('BENCH_COUNTERS=redis needs REDIS_URL');
  const redis = connectRedis(config.redisUrl, log);
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((...args: Parameters<typeof send>) => {
    redisCommands++;
    return send(...args);
  }) as typeof redis.sendCommand;
  if (!(await waitForRedis(redis))) throw new Error(`Redis at ${config.redisUrl} does not answer`);
  requestCounters = { kind: 'redis', client: redis, keyPrefix: `jlbench:${process.pid}` };
} else if (kind === 'postgres') {
  requestCounters = { kind: 'postgres', pool };
} else {
  requestCounters = { kind: 'memory' };
}

// As `serve`: keys read through the per-process cache, invalidated by the key-change session.
const keyChanges = listenForKeyChanges(config.databaseUrl, log);
await keyChanges.ready;
const app = await buildApp({
  keyChanges,
  db,
  genericReader,
  log,
  docsUrl: config.docsUrl,
  cursorSecret: await cursorSecret(db),
  requestCounters,
  // The keyless limiter runs (so its cost is measured) but never refuses the benchmark's one address.
  keylessBurst: 1_000_000_000,
  // As `serve`: keyless listing answers kept as bytes (issue 22).
  keylessPageCache: new KeylessPageCache(),
  // As `serve` (without tracing): repeated /public/jobs requests answered ahead of the router.
  keylessFrontCache: process.env.BENCH_FRONT_CACHE !== '0',
  reports: defaultReportSettings(config.reportRefreshSeconds),
  keyedLimits: process.env.BENCH_LIMITS !== 'off',
  // As `serve`: the record meter serves from blocks of records (issue 22).
  recordBlocks: config.recordBlocks,
});
app.get('/__bench/stats', async () => ({ redisCommands }));
if (process.env.BENCH_CAPTURE === '1') {
  app.get('/__bench/capture', async () => captured);
  app.delete('/__bench/capture', async () => {
    captured.length = 0;
    return { ok: true };
  });
}
await app.listen({ port: config.port, host: '127.0.0.1' });
process.stdout.write(`listening ${config.port}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    app
      .close()
      .then(() => keyChanges.close())
      .then(() => db.destroy())
      .then(() => genericReader.destroy())
      .finally(() => process.exit(0));
  });
}
