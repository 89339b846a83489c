/**
 * CPU per request of the production app in process, for before/after comparisons on a busy machine
 * (bench/README.md, "Comparing two versions"): builds the app as `bench/server.ts` does (production
 * pool, key cache, limits on with the counters of BENCH_COUNTERS, default redis), sends BENCH_N
 * sequential `app.inject` requests per path after a warm-up, and prints per path the CPU milliseconds
 * per request of this Node.js process, of the pool's PostgreSQL backends (found by
 * `application_name`) and of the Redis server (REDIS_PID), read from `/proc`. One JSON line per path.
 *
 * Environment: DATABASE_URL (a seeded bench database), BENCH_KEY (a key on a plan whose budgets the
 * run cannot reach), REDIS_URL, REDIS_PID, BENCH_N (default 400), BENCH_PATHS (comma list).
 * Run the same file against both versions in alternating rounds; compare ratios, not absolutes.
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { connectRedis, waitForRedis, type CounterStore } from '../src/access/counters.ts';
import { buildApp } from '../src/http/app.ts';
import { defaultReportSettings } from '../src/reports/snapshots.ts';
import { connect } from '../src/store/database.ts';
import { listenForKeyChanges } from '../src/store/key-changes.ts';
import { cursorSecret } from '../src/store/settings.ts';

const APPLICATION = 'jobledger-bench-ab';
const databaseUrl = process.env.DATABASE_URL!;
const key = process.env.BENCH_KEY!;
const n = Number(process.env.BENCH_N ?? 400);
const paths = (process.env.BENCH_PATHS ?? '/v1/jobs,/public/jobs?country=DE').split(',');
const log = pino({ level: 'warn' });

/** utime + stime of a process, in milliseconds (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

const { db, pool } = connect(databaseUrl, { statementTimeoutMs: 10_000, applicationName: APPLICATION });
// As `serve` (Database.genericReader), under the same application_name so its sessions' CPU is read.
const genericReader = connect(databaseUrl, { statementTimeoutMs: 10_000, applicationName: APPLICATION, planCacheMode: 'force_generic_plan' }).db;
let requestCounters: CounterStore = { kind: 'memory' };
if ((process.env.BENCH_COUNTERS ?? 'redis') === 'redis') {
  const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', log);
  if (!(await waitForRedis(redis))) throw new Error('Redis does not answer');
  requestCounters = { kind: 'redis', client: redis, keyPrefix: `jlab:${process.pid}` };
}
const keyChanges = listenForKeyChanges(databaseUrl, log);
await keyChanges.ready;
const app = await buildApp({
  keyChanges,
  db,
  genericReader,
  log,
  docsUrl: 'https://example.test/docs',
  cursorSecret: await cursorSecret(db),
  requestCounters,
  keylessBurst: 1_000_000_000,
  ...(await keylessCacheOption()),
  reports: defaultReportSettings(300),
  keyedLimits: true,
});
await app.ready();
/** `serve`'s keyless page cache, when this version has one (BENCH_KEYLESS_CACHE=off leaves it out). */
async function keylessCacheOption(): Promise<Record<string, unknown>> {
  if (process.env.BENCH_KEYLESS_CACHE === 'off') return {};
  try {
    const { KeylessPageCache } = (await import('../src/http/keyless-page-cache.ts')) as { KeylessPageCache: new () => unknown };
    return { keylessPageCache: new KeylessPageCache() };
  } catch {
    return {};
  }
}
const redisPid = Number(process.env.REDIS_PID ?? 0);
const headers = { authorization: `Bearer ${key}` };
for (const url of paths) {
  for (let i = 0; i < 50; i++) await app.inject({ url, headers });
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APPLICATION]);
  const pgBefore = rows.reduce((sum, r) => sum + cpuMs(r.pid), 0);
  const redisBefore = redisPid ? cpuMs(redisPid) : 0;
  const nodeBefore = process.cpuUsage();
  const started = performance.now();
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const res = await app.inject({ url, headers });
    if (res.statusCode !== 200) failed++;
  }
  const wall = performance.now() - started;
  const node = process.cpuUsage(nodeBefore);
  const pgAfter = rows.reduce((sum, r) => sum + cpuMs(r.pid), 0);
  const redisAfter = redisPid ? cpuMs(redisPid) : 0;
  console.log(
    JSON.stringify({
      url,
      n,
      failed,
      nodeMs: (node.user + node.system) / 1000 / n,
      pgMs: (pgAfter - pgBefore) / n,
      redisMs: (redisAfter - redisBefore) / n,
      wallMs: wall / n,
    }),
  );
}
await app.close();
await keyChanges.close();
await db.destroy();
await genericReader.destroy();
process.exit(0);
