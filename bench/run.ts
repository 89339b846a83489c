/**
 * `npm run bench` (issue 8): how fast the service is against the limits of its own machine, on a
 * seeded ledger. See bench/README.md for how to run it and how to read the table.
 *
 * One run: make sure the bench database holds the seeded ledger (seeding it when empty), start the
 * service (bench/server.ts) as a child process on loopback, and for each query shape measure over
 * HTTP with autocannon at concurrency 1 and 16, next to its limits measured in the same run on the
 * same data: the database floor (the statements the service sent for that request, replayed through
 * `pgbench -M prepared`), the HTTP floor (a bare node:http server answering the same bytes,
 * bench/http-floor.ts), the export floor (`COPY (SELECT ...) TO STDOUT` of the export's own query)
 * and the metering cost (limits off, memory counters, Redis counters). EXPLAIN (ANALYZE, BUFFERS) of
 * every statement goes into the results; the table goes to stdout and the figures to
 * bench/results/<YYYY-MM-DD>.json (bench/results/quick-<date>.json for --quick; a later run of the same
 * day writes <YYYY-MM-DD>-<HHMMSS>.json, UTC start time, and never overwrites).
 *
 * Settings (environment): BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/jobledger_bench,
 * jobledger_bench_quick with --quick), BENCH_ROWS (1,000,000; 5,000 with --quick), BENCH_DURATION
 * seconds per measurement (8; 2 with --quick), REDIS_URL (default redis://127.0.0.1:6379; the Redis
 * variant is skipped when it does not answer), BENCH_SHAPES (comma list of shape ids to run),
 * BENCH_SERVICE_NODE_FLAGS (the service's Node.js flags; default those of `npm start`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pipeline } from 'node:stream/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { keyedJobsQuery } from '../src/http/schemas/jobs.ts';
import { keysetCursor } from '../src/http/paging.ts';
import { BENCH_POSTING_PREFIX, SEED_EVENT_COLUMNS, SEED_JOB_COLUMNS, seedBenchLedger } from '../src/bench/seed.ts';
import { connect } from '../src/store/database.ts';
import { exportRowsQuery } from '../src/store/export-queries.ts';
import { inlineParameters } from './sql-replay.ts';
import type { CapturedStatement } from './server.ts';
import { freePort } from '../test/helpers/ports.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE = process.execPath;
/**
 * Node.js flags of the service under test: those `npm start` and the Docker image run it with (V8's
 * young generation capped, README "In production"), so its CPU and RSS are production's.
 * BENCH_SERVICE_NODE_FLAGS overrides them (space-separated; empty: Node.js's defaults).
 */
const SERVICE_NODE_FLAGS = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '--max-semi-space-size=16').split(' ').filter(Boolean);
const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${quick ? 'jobledger_bench_quick' : 'jobledger_bench'}`;
const ROWS = Number(process.env.BENCH_ROWS ?? (quick ? 5_000 : 1_000_000));
const DURATION = Number(process.env.BENCH_DURATION ?? (quick ? 2 : 8));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONCURRENCY = [1, 16] as const;
const ONLY = process.env.BENCH_SHAPES?.split(',').map((s) => s.trim());
const BENCH_PLAN = 'bench-unlimited';

/** One measured query shape (issue 8's numbered list). */
interface Shape {
  id: string;
  title: string;
  path: string;
  keyless?: boolean;
  /** Which floor the throughput target compares with. */
  target: 'db' | 'http' | 'none';
  /** Counted in "p99 below 50 ms at concurrency 1". */
  p99Target: boolean;
  /** Replay its statements through pgbench (not for a shape served from an in-process snapshot). */
  dbFloor?: boolean;
  /** Measurement length multiplier: heavy responses need longer runs to complete enough requests. */
  durationFactor?: number;
}

interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  /** Responses completed within the measurement. */
  requests: number;
  /** Requests sent (some may have been answered after the measurement ended). */
  sent: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU ms per request of the service's Node.js process, its PostgreSQL backends and Redis. */
  cpu?: { nodeMs: number | null; pgMs: number | null; redisMs: number | null };
}

interface DbFloor {
  tps: number;
  latencyMs: number;
  /** PostgreSQL CPU ms per transaction (null when not read). */
  pgMs?: number | null;
  error?: string;
}

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Start a child that prints `listening <port>` when ready. */
async function startChild(script: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<{ child: ChildProcess; port: number; url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(NODE, [...nodeFlags, path.join(ROOT, script)], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function startService(variant: { counters: 'memory' | 'redis' | 'postgres'; limits: boolean; capture?: boolean }) {
  return startChild('bench/server.ts', {
    DATABASE_URL,
    REDIS_URL,
    BENCH_COUNTERS: variant.counters,
    BENCH_LIMITS: variant.limits ? 'on' : 'off',
    BENCH_CAPTURE: variant.capture ? '1' : '0',
    LOG_LEVEL: 'warn',
  }, SERVICE_NODE_FLAGS);
}

/** CPU time (user + system) a process has used, ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0; // gone
  }
}

/**
 * Whose CPU a measurement reads: a Node.js process (the service, the naive peer or the HTTP floor),
 * the PostgreSQL backends of its pool (found by `application_name`), and the Redis server. CPU time,
 * unlike throughput, barely moves when other work shares the cores, so the per-request figures
 * compare across runs on a busy machine.
 */
interface CpuProbe {
  nodePid?: number;
  client: pg.Client;
  /** The pool's application_name (default the service's, `jobledger-bench-api`). */
  application?: string;
  redisPid?: number;
}

async function backendPids(client: pg.Client, application = 'jobledger-bench-api'): Promise<number[]> {
  const rows = (await client.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [application])).rows as Array<{ pid: number }>;
  return rows.map((r) => r.pid);
}

async function cpuSnapshot(probe: CpuProbe) {
  const pids = await backendPids(probe.client, probe.application);
  return {
    node: probe.nodePid ? processCpuMs(probe.nodePid) : 0,
    pg: new Map(pids.map((pid) => [pid, processCpuMs(pid)])),
    redis: probe.redisPid ? processCpuMs(probe.redisPid) : 0,
  };
}

/** CPU ms per request between two snapshots; a backend that appeared in between counts in full. */
async function cpuPerRequest(probe: CpuProbe, before: Awaited<ReturnType<typeof cpuSnapshot>>, requests: number) {
  const after = await cpuSnapshot(probe);
  let pgMs = 0;
  for (const [pid, ms] of after.pg) pgMs += ms - (before.pg.get(pid) ?? 0);
  const per = (ms: number) => (requests > 0 ? Math.round((ms / requests) * 1000) / 1000 : null);
  return { nodeMs: probe.nodePid ? per(after.node - before.node) : null, pgMs: per(pgMs), redisMs: probe.redisPid ? per(after.redis - before.redis) : null };
}

async function load(url: string, connections: number, headers: Record<string, string>, duration = DURATION, probe?: CpuProbe): Promise<LoadFigures> {
  const before = probe ? await cpuSnapshot(probe) : undefined;
  const result = await autocannon({ url, connections, pipelining: 1, duration, headers, timeout: 30 });
  const cpu = probe && before ? await cpuPerRequest(probe, before, result.requests.total) : undefined;
  return {
    ...(cpu ? { cpu } : {}),
    rps: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: Math.round(result.latency.mean * 100) / 100,
    requests: result.requests.total,
    sent: (result.requests as { sent?: number }).sent ?? result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * autocannon stops counting at the end of its duration, but requests it sent are still being served:
 * wait until the service answers a trivial request promptly, so the next measurement starts on an
 * idle service.
 */
async function settle(url: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const started = performance.now();
    await fetch(`${url}/health`).then((r) => r.arrayBuffer());
    if (performance.now() - started < 20) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---------------------------------------------------------------------------------------------------
// The bench database

const ADMIN_URL = withDatabase(DATABASE_URL, 'postgres');
/** The corpus alone (migrated, bundled feeds imported): the template every bench database starts from. */
const CORPUS_DATABASE = process.env.BENCH_CORPUS_DATABASE ?? 'jobledger_bench_corpus';

async function withAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

async function databaseExists(admin: pg.Client, name: string): Promise<boolean> {
  return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
}

/** Run the CLI with DATABASE_URL set. */
async function cli(databaseUrl: string, args: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(NODE, [path.join(ROOT, 'src/main/cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`jobledger ${args[0]} exited with ${code}`))));
  });
}

/**
 * The corpus template: created once (`jobledger ingest --demo` into a fresh database) and reused, so
 * every bench database, and each scratch database of the seeding measurement, starts from the same
 * ledger without importing again.
 */
async function ensureCorpus(): Promise<void> {
  const url = withDatabase(DATABASE_URL, CORPUS_DATABASE);
  await withAdmin(async (admin) => {
    if (await databaseExists(admin, CORPUS_DATABASE)) {
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      const rows = await probe.query('SELECT count(*) AS n FROM jobs').then((r) => Number(r.rows[0].n), () => 0);
      await probe.end();
      if (rows > 0) return;
      await admin.query(`DROP DATABASE ${admin.escapeIdentifier(CORPUS_DATABASE)} WITH (FORCE)`);
    }
    log(`creating ${CORPUS_DATABASE}: the bundled real feeds (jobledger ingest --demo)`);
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(CORPUS_DATABASE)}`);
  });
  try {
    await cli(url, ['ingest', '--demo']);
  } catch (error) {
    await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(CORPUS_DATABASE)} WITH (FORCE)`));
    throw error;
  }
}

/** A fresh database copied from the corpus template; dropped first when it exists. */
async function databaseFromCorpus(name: string): Promise<string> {
  await withAdmin(async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)} TEMPLATE ${admin.escapeIdentifier(CORPUS_DATABASE)}`);
  });
  return withDatabase(DATABASE_URL, name);
}

async function dropDatabase(name: string): Promise<void> {
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`));
}

async function ensureSeeded(): Promise<{ seedSeconds: number | null }> {
  const name = new URL(DATABASE_URL).pathname.slice(1);
  await ensureCorpus();
  const exists = await withAdmin((admin) => databaseExists(admin, name));
  let count = 0;
  if (exists) {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      count = Number((await client.query(`SELECT count(*) AS n FROM jobs WHERE source_posting_id LIKE '${BENCH_POSTING_PREFIX}%'`)).rows[0].n);
    } catch {
      count = 0; // not migrated yet
    } finally {
      await client.end();
    }
  }
  if (count === ROWS) {
    log(`reusing ${name}: ${count} generated rows`);
    return { seedSeconds: null };
  }
  if (count !== 0) throw new Error(`${name} holds ${count} generated rows, not ${ROWS}: drop it (DROP DATABASE ${name}) or set BENCH_ROWS=${count}`);
  await databaseFromCorpus(name);
  log(`seeding ${ROWS} rows into ${name} (jobledger bench-seed)`);
  const started = Date.now();
  await cli(DATABASE_URL, ['bench-seed', '--rows', String(ROWS)]);
  return { seedSeconds: (Date.now() - started) / 1000 };
}

/**
 * Seeding against its floor (issue 22: "seeding ≥ 0.8 of a bare COPY of the same rows into the same
 * schema"). Two scratch databases copied from the corpus template (so the same schema and the same
 * starting ledger): in the first, `seedBenchLedger` writes `rows` rows (timed: templates, load and
 * index builds; its final VACUUM ANALYZE is reported apart); its generated jobs and change events are
 * then dumped with `COPY ... TO` files; in the second, those files are loaded with a bare `COPY ...
 * FROM STDIN` into the tables as the migrations leave them (every index in place), in one transaction
 * with `session_replication_role = replica` as the seeder runs (no triggers, no row-by-row foreign
 * key checks). Both databases and the files are removed afterwards.
 */
async function measureSeeding(rows: number) {
  const base = new URL(DATABASE_URL).pathname.slice(1);
  const seededName = `${base}_seedcheck_a`;
  const bareName = `${base}_seedcheck_b`;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'jlbench-seed-'));
  try {
    const seededUrl = await databaseFromCorpus(seededName);
    const target = connect(seededUrl, { statementTimeoutMs: 0, applicationName: 'jobledger-bench-seedcheck' });
    let result;
    try {
      result = await seedBenchLedger(target, { rows, seed: 1 });
    } finally {
      await target.db.destroy();
    }
    const seederSeconds = result.phases.templates + result.phases.load + result.phases.indexes;
    const jobsFile = path.join(scratch, 'jobs.copy');
    const eventsFile = path.join(scratch, 'events.copy');
    const dump = new pg.Client({ connectionString: seededUrl });
    await dump.connect();
    try {
      await pipeline(dump.query(copyTo(`COPY (SELECT ${SEED_JOB_COLUMNS.join(', ')} FROM jobs WHERE source_posting_id LIKE '${BENCH_POSTING_PREFIX}%' ORDER BY id) TO STDOUT`)), createWriteStream(jobsFile));
      await pipeline(
        dump.query(copyTo(`COPY (SELECT ${SEED_EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')} FROM change_events e JOIN jobs j ON j.id = e.job_id WHERE j.source_posting_id LIKE '${BENCH_POSTING_PREFIX}%' ORDER BY e.job_id, e.published_at) TO STDOUT`)),
        createWriteStream(eventsFile),
      );
    } finally {
      await dump.end();
    }
    await dropDatabase(seededName);
    const bareUrl = await databaseFromCorpus(bareName);
    const bare = new pg.Client({ connectionString: bareUrl, application_name: 'jobledger-bench-seedcheck' });
    await bare.connect();
    const started = performance.now();
    try {
      await bare.query('BEGIN');
      await bare.query('SET LOCAL session_replication_role = replica');
      await pipeline(createReadStream(jobsFile), bare.query(copyFrom(`COPY jobs (${SEED_JOB_COLUMNS.join(', ')}) FROM STDIN`)));
      await pipeline(createReadStream(eventsFile), bare.query(copyFrom(`COPY change_events (${SEED_EVENT_COLUMNS.join(', ')}) FROM STDIN`)));
      await bare.query('COMMIT');
    } finally {
      await bare.end();
    }
    const bareSeconds = (performance.now() - started) / 1000;
    const r2 = (n: number) => Math.round(n * 100) / 100;
    return {
      rows,
      seeder: { seconds: r2(seederSeconds), rowsPerSecond: Math.round(rows / seederSeconds), phases: result.phases, totalSeconds: result.seconds },
      bareCopy: { seconds: r2(bareSeconds), rowsPerSecond: Math.round(rows / bareSeconds), jobsFileBytes: statSync(jobsFile).size, eventsFileBytes: statSync(eventsFile).size },
      ratio: ratio(rows / seederSeconds, rows / bareSeconds),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await dropDatabase(seededName);
    await dropDatabase(bareName);
  }
}

async function createBenchKey(client: pg.Client): Promise<string> {
  // A plan whose budgets the benchmark cannot reach: metering runs in full, never refuses.
  await client.query(
    `INSERT INTO plans (id, label, price_cents, records_per_month, requests_per_day, requests_per_minute, max_page_size, entitlements, purchasable)
     VALUES ($1, 'Benchmark (unreachable budgets)', 0, 1e15, 2e9, 2e9, 200, ARRAY['delta_feed', 'bulk_export'], false)
     ON CONFLICT (id) DO NOTHING`,
    [BENCH_PLAN],
  );
  const { stdout } = await run(NODE, [path.join(ROOT, 'src/main/cli.ts'), 'keys', 'create', '--plan', BENCH_PLAN, '--name', 'benchmark'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL, LOG_LEVEL: 'warn' },
  });
  const secret = /secret \(shown once\): (\S+)/.exec(stdout)?.[1];
  if (!secret) throw new Error(`could not create a bench key: ${stdout}`);
  return secret;
}

/** Query parameters drawn from the seeded data, so every shape asks something the ledger holds. */
async function chooseShapes(client: pg.Client): Promise<Shape[]> {
  const one = async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows[0] as Record<string, unknown>;
  const served = Number((await one('SELECT count(*) AS n FROM jobs WHERE served')).n);
  const countries = (await client.query(`SELECT country FROM jobs WHERE served AND country IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 2`)).rows.map((r) => r.country as string);
  const category = (await one(`SELECT category FROM jobs WHERE served AND category IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`)).category as string;
  // Title terms from the title lexemes of a sample of served rows (ts_stat over all of them is slow):
  // generated ids start with the row number in hex, so this is the first 50,000 generated rows.
  const sampleFilter = `served AND id < '0000c350-0000-0000-0000-000000000000'`;
  const sampled = Number((await one(`SELECT count(*) AS n FROM jobs WHERE ${sampleFilter}`)).n);
  const terms = (
    await client.query(`SELECT word, ndoc FROM ts_stat('SELECT title_tsv FROM jobs WHERE ${sampleFilter.replace(/'/g, "''")}') WHERE word ~ '^[a-z]{4,}$' ORDER BY ndoc DESC, word`)
  ).rows as Array<{ word: string; ndoc: number }>;
  const frequent = terms[0]?.word ?? 'engineer';
  // A rare word: in at most 1 row in 2,000 of the sample (a few hundred of a million rows), the most
  // frequent such word, so it still has rows to find.
  const rareBelow = Math.max(2, Math.floor(sampled / 2000));
  const rare = terms.find((t) => t.ndoc <= rareBelow && t.ndoc >= 2)?.word ?? 'zeitgeist';
  const postedAfter = (await one(`SELECT (max(posted_at) - interval '90 days')::date::text AS d FROM jobs WHERE served`)).d as string;
  const since = (await one(`SELECT to_char((max(published_at) - interval '180 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS s FROM change_events`)).s as string;
  // 500,000 rows deep as issue 8 asks; half the served rows on a ledger too small for that (--quick).
  const depth = served > 500_000 + 200 ? 500_000 : Math.floor(served / 2);
  const deep = await one(`SELECT sort_key::text AS key, id::text AS id FROM jobs WHERE served ORDER BY sort_key DESC, id DESC OFFSET $1 LIMIT 1`, [depth - 1]);
  const secret = (await one(`SELECT value FROM service_settings WHERE key = 'cursor_secret'`)).value as string;
  const providers = (await client.query(`SELECT id FROM providers WHERE redistributable ORDER BY id`)).rows.map((r) => r.id as string);
  const listing = keyedJobsQuery.parse({}, { surface: 'keyed', providers, maxLimit: 200 });
  const cursor = keysetCursor(secret, '/v1/jobs', { filter: listing.filter, scope: listing.scope }).encode({ key: deep.key as string, id: deep.id as string });
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  return [
    { id: '1', title: '/v1/jobs, no filter', path: '/v1/jobs', target: 'db', p99Target: true },
    { id: '2', title: 'country + category + remote', path: `/v1/jobs?${q({ country: countries.join(','), category, remote: 'remote,hybrid' })}`, target: 'db', p99Target: true },
    { id: '3', title: 'salary range + posted_after', path: `/v1/jobs?${q({ min_salary: '50000', max_salary: '150000', posted_after: postedAfter })}`, target: 'db', p99Target: true },
    { id: '4', title: `title, frequent term (${frequent})`, path: `/v1/jobs?${q({ title: frequent })}`, target: 'db', p99Target: true },
    { id: '5', title: `title, rare term (${rare})`, path: `/v1/jobs?${q({ title: rare })}`, target: 'db', p99Target: true },
    { id: '6', title: `description_contains + country, limit 25`, path: `/v1/jobs?${q({ description_contains: 'python', country: countries[0] ?? 'US', limit: '25' })}`, target: 'db', p99Target: true },
    { id: '7', title: `keyset page after ${depth.toLocaleString('en')} rows`, path: `/v1/jobs?${q({ cursor })}`, target: 'db', p99Target: true },
    { id: '8', title: '/v1/meta/facets (snapshot)', path: '/v1/meta/facets', target: 'none', p99Target: true, dbFloor: false },
    { id: '9', title: '/v1/changes, page of 5,000', path: `/v1/changes?${q({ since, limit: '5000' })}`, target: 'db', p99Target: false, durationFactor: 3 },
    { id: '11', title: '/public/jobs?country=DE (keyless)', path: '/public/jobs?country=DE', keyless: true, target: 'http', p99Target: false },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Floors

/**
 * pgbench reads `:name` as a variable even inside a string literal (`'HH24:MI:SS'`); such a colon
 * becomes `' || chr(58) || '`, which the planner folds back into the same constant.
 */
function pgbenchSafe(statement: string): string {
  return statement.replace(/'(?:[^']|'')*'/g, (literal) => (/:[A-Za-z_]/.test(literal) ? literal.replace(/:(?=[A-Za-z_])/g, "' || chr(58) || '") : literal));
}

/**
 * `pgbench -M prepared` of `statements` as one transaction, at `clients` concurrency, for `duration`
 * seconds. PostgreSQL CPU ms per transaction is read from /proc for its sessions (application_name
 * `jobledger-bench-pgbench`) from the moment all its sessions are connected (at least 1 s after the
 * start) to 0.5 s before the end (the sessions are gone once pgbench exits), divided by the
 * transactions of that window at the run's mean rate.
 */
async function pgbench(statements: string[], clients: number, duration = DURATION, client?: pg.Client): Promise<DbFloor> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jlbench-'));
  const script = path.join(dir, 'shape.sql');
  writeFileSync(script, statements.map((s) => `${pgbenchSafe(s.replace(/\s+/g, ' '))};`).join('\n') + '\n');
  const application = 'jobledger-bench-pgbench';
  const spawned = performance.now();
  const child = spawn('pgbench', ['-n', '-M', 'prepared', '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(duration), '-f', script, DATABASE_URL], {
    env: { ...process.env, PGAPPNAME: application },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let window: { ms: number; cpuMs: number } | undefined;
  if (client && duration >= 3) {
    // Wait (up to a third of the run) until every client's session is there: connecting 16 sessions
    // on a loaded machine can take longer than a second.
    let pids: number[] = [];
    for (let waited = 0; waited < (duration * 1000) / 3; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      pids = await backendPids(client, application);
      if (pids.length >= clients && waited >= 750) break;
    }
    const start = new Map(pids.map((pid) => [pid, processCpuMs(pid)]));
    const started = performance.now();
    await new Promise((r) => setTimeout(r, Math.max(0, duration * 1000 - 500 - (performance.now() - spawned))));
    let cpuMs = 0;
    for (const [pid, ms] of start) cpuMs += processCpuMs(pid) - ms;
    window = { ms: performance.now() - started, cpuMs };
  }
  const code = await exited;
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) return { tps: NaN, latencyMs: NaN, error: stderr.slice(0, 500) };
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? NaN);
  const pgMs = window && tps > 0 ? Math.round((window.cpuMs / ((tps * window.ms) / 1000)) * 1000) / 1000 : null;
  return { tps: Math.round(tps * 10) / 10, latencyMs, pgMs };
}

async function explain(client: pg.Client, statement: string): Promise<string> {
  try {
    const result = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement}`);
    return result.rows.map((r) => r['QUERY PLAN'] as string).join('\n');
  } catch (error) {
    return `EXPLAIN failed: ${(error as Error).message}`;
  }
}

/** Capture what one request sends: its statements (inlined) and its response bytes. */
async function captureShape(captureUrl: string, shape: Shape, headers: Record<string, string>) {
  await fetch(`${captureUrl}/__bench/capture`, { method: 'DELETE' });
  const response = await fetch(`${captureUrl}${shape.path}`, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  const captured = (await (await fetch(`${captureUrl}/__bench/capture`)).json()) as CapturedStatement[];
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? 'application/json; charset=utf-8',
    body,
    statements: captured.map((c) => inlineParameters(c.text, c.values)),
    raw: captured,
  };
}

function vmStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

async function measureExport(secret: string, counters: 'memory' | 'redis') {
  // A fresh service process, so its peak RSS is the export's.
  const service = await startService({ counters, limits: true });
  try {
    const pid = service.child.pid!;
    const rssBefore = vmStatus(pid, 'VmRSS');
    // Read by curl, as the COPY floors are read by psql into /dev/null: a client in C on
    // the same two cores. Until 2026-11-29 (fifth session) the harness read the body itself with
    // fetch and counted its lines, which took CPU from the service it measured (27,100 rows/s
    // where curl read 32,000-44,000). Uncompressed, like the floors (curl asks for no coding). The
    // rows are the final control line's count; bytes as curl received them.
    const started = performance.now();
    const { status, bytes, tail } = await new Promise<{ status: number; bytes: number; tail: string }>((resolve, reject) => {
      // The body goes through `tail`, so only its last 4 KiB reach this process.
      const child = spawn('bash', ['-c', 'set -o pipefail; curl -sS -H "$BENCH_AUTH" -w "\\n%{http_code} %{size_download}\\n" "$BENCH_URL" | tail -c 4096'], {
        env: { ...process.env, BENCH_AUTH: `authorization: Bearer ${secret}`, BENCH_URL: `${service.url}/v1/export` },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let last = '';
      child.stdout.on('data', (chunk: Buffer) => {
        last += chunk.toString('utf8');
      });
      child.once('error', reject);
      // 'close': the exit and the end of its output, whichever comes last.
      child.once('close', (code) => {
        const lines = last.split('\n').filter((l) => l.trim() !== '');
        const [http, size] = (lines.pop() ?? '').split(' ').map(Number);
        if (code !== 0 || !http) reject(new Error(`curl exited with ${code}`));
        else resolve({ status: http, bytes: size ?? 0, tail: lines.pop() ?? '' });
      });
    });
    const seconds = (performance.now() - started) / 1000;
    let rows = 0;
    try {
      rows = Number((JSON.parse(tail) as { count?: number }).count ?? 0);
    } catch {
      rows = 0;
    }
    return { status, rows, bytes, seconds: Math.round(seconds * 100) / 100, rowsPerSecond: Math.round(rows / seconds), rssBeforeMb: Math.round(rssBefore), peakRssMb: Math.round(vmStatus(pid, 'VmHWM')) };
  } finally {
    await service.stop();
  }
}

async function exportFloor(client: pg.Client) {
  // The export's rows, columns and order as a row-by-row serializer reads them (`exportRowsQuery`,
  // what the export itself read before its lines were built in SQL), without a LIMIT: the floor is
  // PostgreSQL serializing those columns generically, not the service's own line expression.
  const { db } = connect(DATABASE_URL, { statementTimeoutMs: 0, applicationName: 'jobledger-bench-floor' });
  let compiled;
  try {
    compiled = exportRowsQuery(db, {}, 'live', { limit: 1, includeDescription: false }).compile();
  } finally {
    await db.destroy();
  }
  const limit = /limit \$(\d+)/i.exec(compiled.sql);
  const values = [...compiled.parameters];
  if (limit) values[Number(limit[1]) - 1] = null;
  const statement = inlineParameters(compiled.sql, values);
  const count = Number((await client.query(`SELECT count(*) AS n FROM (${statement}) s`)).rows[0].n);
  const text = await copyOut(`COPY (${statement}) TO STDOUT`, count);
  const json = await copyOut(`COPY (SELECT row_to_json(s) FROM (${statement}) s) TO STDOUT`, count);
  return { rows: count, text, json, statement };
}

/** Time `COPY ... TO STDOUT` through psql (output discarded): rows/s. */
async function copyOut(copy: string, rows: number): Promise<{ seconds: number; rowsPerSecond: number }> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('psql', ['-X', '-q', '-c', copy, DATABASE_URL], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql COPY exited with ${code}`))));
  });
  const seconds = (performance.now() - started) / 1000;
  return { seconds: Math.round(seconds * 100) / 100, rowsPerSecond: Math.round(rows / seconds) };
}

// ---------------------------------------------------------------------------------------------------

async function machineInfo() {
  const cpus = os.cpus();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const postgres = (await client.query('SHOW server_version')).rows[0].server_version as string;
  const sharedBuffers = (await client.query('SHOW shared_buffers')).rows[0].shared_buffers as string;
  await client.end();
  let redisVersion: string | null;
  try {
    const { stdout } = await run('redis-cli', ['-u', REDIS_URL, 'INFO', 'server']);
    redisVersion = /redis_version:(\S+)/.exec(stdout)?.[1] ?? null;
  } catch {
    redisVersion = null;
  }
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    postgres,
    sharedBuffers,
    redis: redisVersion,
    os: `${os.type()} ${os.release()}`,
  };
}

async function redisProcessId(): Promise<number | undefined> {
  try {
    const { stdout } = await run('redis-cli', ['-u', REDIS_URL, 'INFO', 'server']);
    const pid = Number(/process_id:(\d+)/.exec(stdout)?.[1]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function redisAnswers(): Promise<boolean> {
  try {
    const { stdout } = await run('redis-cli', ['-u', REDIS_URL, 'PING']);
    return stdout.trim() === 'PONG';
  } catch {
    return false;
  }
}

/** Requests/s of a measurement, NaN when it completed no request (not measured, rather than 0). */
const rpsOf = (f?: LoadFigures) => (f && f.requests > 0 ? f.rps : NaN);
const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) && Number.isFinite(b) ? Math.round((a / b) * 1000) / 1000 : null);

/** What the machine was doing: load averages and `uptime`'s line. */
async function machineLoad() {
  const uptime = await run('uptime').then(
    (r) => r.stdout.trim(),
    () => '',
  );
  return { at: new Date().toISOString(), loadavg: os.loadavg().map((n) => Math.round(n * 100) / 100), uptime };
}

async function redisCommands(url: string): Promise<number> {
  return ((await (await fetch(`${url}/__bench/stats`)).json()) as { redisCommands: number }).redisCommands;
}

/** A statement that writes (the record meter's reservation, say), anywhere in its text. */
function isWrite(statement: string): boolean {
  return /\b(insert\s+into|update\s+"?\w+"?\s+(as\s+\w+\s+)?set|delete\s+from)\b/i.test(statement);
}

/** The ingest benchmark (bench/ingest.ts) as a child process: its `result` line. */
async function measureIngest(postings: number): Promise<Record<string, unknown>> {
  const base = new URL(DATABASE_URL).pathname.slice(1);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const child = spawn(NODE, [path.join(ROOT, 'bench/ingest.ts')], {
      cwd: ROOT,
      env: { ...process.env, BENCH_INGEST_DATABASE_URL: withDatabase(DATABASE_URL, `${base}_ingest`), BENCH_INGEST_POSTINGS: String(postings), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench/ingest.ts exited with ${code}`))));
  });
  const line = out.split('\n').find((l) => l.startsWith('result '));
  if (!line) throw new Error('bench/ingest.ts printed no result');
  return JSON.parse(line.slice('result '.length)) as Record<string, unknown>;
}

const SEED_CHECK_ROWS = Number(process.env.BENCH_SEED_ROWS ?? (quick ? 5_000 : 100_000));
const INGEST_POSTINGS = Number(process.env.BENCH_INGEST_POSTINGS ?? (quick ? 2_000 : 300_000));

interface Target {
  target: string;
  met: boolean | null;
  detail: string;
}

function atLeast(target: string, value: number | null | undefined, bound: number, detail = ''): Target {
  const known = value !== null && value !== undefined && Number.isFinite(value);
  return { target, met: known ? value >= bound : null, detail: `${known ? value : '–'}${detail ? ` (${detail})` : ''}` };
}

function below(target: string, value: number | null | undefined, bound: number, unit: string, strict = true): Target {
  const known = value !== null && value !== undefined && Number.isFinite(value);
  return { target, met: known ? (strict ? value < bound : value <= bound) : null, detail: `${known ? value : '–'} ${unit}` };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = await machineLoad();
  log(`machine: ${loadBefore.uptime}`);
  const { seedSeconds } = await ensureSeeded();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const rows = Number((await client.query('SELECT count(*) AS n FROM jobs')).rows[0].n);
  const servedRows = Number((await client.query('SELECT count(*) AS n FROM jobs WHERE served')).rows[0].n);
  const events = Number((await client.query('SELECT count(*) AS n FROM change_events')).rows[0].n);
  const secret = await createBenchKey(client);
  const auth = { authorization: `Bearer ${secret}` };
  // The capturing service (limits off: the statements it records are the request's data statements);
  // starting it also creates the cursor secret on a fresh ledger.
  const capture = await startService({ counters: 'memory', limits: false, capture: true });
  let shapes = await chooseShapes(client);
  if (ONLY) shapes = shapes.filter((s) => ONLY.includes(s.id));
  const redis = await redisAnswers();
  const redisPid = redis ? await redisProcessId() : undefined;
  const counters = redis ? 'redis' : 'memory';
  log(`${rows} rows (${servedRows} served), ${events} change events; service counters: ${counters}; ${DURATION}s per measurement`);

  const resultsDir = path.join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'jlbench-'));

  // 1. What each shape sends and answers, without and with metering.
  const captured: Record<string, Awaited<ReturnType<typeof captureShape>>> = {};
  for (const shape of shapes) {
    captured[shape.id] = await captureShape(capture.url, shape, shape.keyless ? {} : auth);
    log(`shape ${shape.id}: ${captured[shape.id]!.status}, ${captured[shape.id]!.body.length} bytes, ${captured[shape.id]!.statements.length} statements`);
  }
  const exportCopy = shapes.length === 10 || ONLY?.includes('10') ? await exportFloor(client) : null;
  await capture.stop();
  // The same with metering on (memory counters): what a keyed request sends with its record meter,
  // for the floor "with metering" and the naive peer. The second request of each shape, so one-time
  // work (the key cache's first read, naming statements) is left out.
  const meteredCapture = await startService({ counters: 'memory', limits: true, capture: true });
  const metered: Record<string, Awaited<ReturnType<typeof captureShape>>> = {};
  for (const shape of shapes) {
    if (shape.keyless) continue;
    await captureShape(meteredCapture.url, shape, auth);
    metered[shape.id] = await captureShape(meteredCapture.url, shape, auth);
  }
  await meteredCapture.stop();

  // 2. The service (production metering: limits on, request counters in Redis when it answers), and
  // per shape its floors.
  const service = await startService({ counters, limits: true });
  const results: Array<Record<string, unknown>> = [];
  for (const shape of shapes) {
    const cap = captured[shape.id]!;
    const headers = shape.keyless ? {} : auth;
    log(`shape ${shape.id} ${shape.title}`);
    const duration = DURATION * (shape.durationFactor ?? 1);
    await load(`${service.url}${shape.path}`, 16, headers, Math.min(2, DURATION)); // warm caches and snapshots
    await settle(service.url);
    const svc: Record<number, LoadFigures> = {};
    let redisPerRequest: number | null = null;
    for (const c of CONCURRENCY) {
      const commandsBefore = redis ? await redisCommands(service.url) : 0;
      svc[c] = await load(`${service.url}${shape.path}`, c, headers, duration, { nodePid: service.child.pid, client, redisPid });
      await settle(service.url);
      // Every request sent has been answered now (settle), so commands / requests sent is exact.
      if (redis && c === 1 && svc[c]!.sent > 0) redisPerRequest = Math.round((((await redisCommands(service.url)) - commandsBefore) / svc[c]!.sent) * 100) / 100;
    }
    const bodyFile = path.join(scratch, `shape-${shape.id}.body`);
    writeFileSync(bodyFile, cap.body);
    const floor = await startChild('bench/http-floor.ts', { BENCH_BODY_FILE: bodyFile, BENCH_CONTENT_TYPE: cap.contentType });
    const http: Record<number, LoadFigures> = {};
    for (const c of CONCURRENCY) http[c] = await load(floor.url, c, {}, duration, { nodePid: floor.child.pid, client, application: 'none' });
    await floor.stop();
    const meteredCap = metered[shape.id];
    const peerStatements = shape.dbFloor === false ? [] : (meteredCap ?? cap).raw;
    const peer: Record<number, LoadFigures> = {};
    let peerBytes: number | null = null;
    if (peerStatements.length > 0) {
      const statementsFile = path.join(scratch, `shape-${shape.id}.statements.json`);
      writeFileSync(statementsFile, JSON.stringify(peerStatements));
      const naive = await startChild('bench/naive-peer.ts', { BENCH_STATEMENTS_FILE: statementsFile, DATABASE_URL });
      const sample = await fetch(`${naive.url}${shape.path}`);
      peerBytes = (await sample.arrayBuffer()).byteLength;
      await load(`${naive.url}${shape.path}`, 16, {}, Math.min(2, DURATION));
      for (const c of CONCURRENCY) peer[c] = await load(`${naive.url}${shape.path}`, c, {}, duration, { nodePid: naive.child.pid, client, application: 'jobledger-bench-peer' });
      await naive.stop();
    }
    const db: Record<number, DbFloor> = {};
    if (cap.statements.length > 0 && shape.dbFloor !== false) db[16] = await pgbench(cap.statements, 16, duration, client);
    const dbMetered: Record<number, DbFloor> = {};
    const meteredStatements = meteredCap?.statements ?? (shape.keyless ? cap.statements : undefined);
    if (meteredStatements && meteredStatements.length > 0 && shape.dbFloor !== false) for (const c of CONCURRENCY) dbMetered[c] = await pgbench(meteredStatements, c, duration, client);
    const plans: string[] = [];
    for (const statement of cap.statements) plans.push(`${statement}\n${await explain(client, statement)}`);
    const cpu16 = svc[16]!.cpu;
    results.push({
      id: shape.id,
      title: shape.title,
      path: shape.path.length > 300 ? `${shape.path.slice(0, 300)}…` : shape.path,
      target: shape.target,
      status: cap.status,
      responseBytes: cap.body.length,
      statements: cap.statements.length,
      meteredStatements: meteredStatements?.length ?? null,
      syncWritesPerRequest: meteredCap ? meteredCap.statements.filter(isWrite).length : null,
      redisCommandsPerRequestC1: redisPerRequest,
      service: svc,
      totalCpuMsC16: cpu16 ? Math.round(((cpu16.nodeMs ?? 0) + (cpu16.pgMs ?? 0) + (cpu16.redisMs ?? 0)) * 1000) / 1000 : null,
      naivePeer: { ...peer, responseBytes: peerBytes },
      httpFloor: http,
      dbFloor: db,
      dbFloorWithMetering: dbMetered,
      ratios: {
        peerC1: ratio(rpsOf(svc[1]), rpsOf(peer[1])),
        peerC16: ratio(rpsOf(svc[16]), rpsOf(peer[16])),
        dbMeteredFloorC1: ratio(rpsOf(svc[1]), dbMetered[1]?.tps ?? NaN),
        dbMeteredFloorC16: ratio(rpsOf(svc[16]), dbMetered[16]?.tps ?? NaN),
        dbFloorC16: ratio(rpsOf(svc[16]), db[16]?.tps ?? NaN),
        httpFloorC1: ratio(rpsOf(svc[1]), rpsOf(http[1])),
        httpFloorC16: ratio(rpsOf(svc[16]), rpsOf(http[16])),
      },
      explain: plans,
    });
  }
  await service.stop();

  // 3. Export: rows/s and peak RSS of a fresh service process, against COPY of the same rows.
  let exportResult: Record<string, unknown> | null = null;
  if (exportCopy) {
    log('shape 10 /v1/export of the whole ledger');
    const measured = await measureExport(secret, counters);
    const floors = 'text' in exportCopy && exportCopy.text && exportCopy.json && exportCopy.statement ? { ...exportCopy, text: exportCopy.text, json: exportCopy.json, statement: exportCopy.statement } : null;
    exportResult = {
      service: measured,
      copyText: floors?.text ?? null,
      copyRowToJson: floors?.json ?? null,
      floorRows: floors?.rows ?? null,
      error: 'error' in exportCopy ? exportCopy.error : undefined,
      ratioText: ratio(measured.rowsPerSecond, floors?.text.rowsPerSecond ?? NaN),
      ratioRowToJson: ratio(measured.rowsPerSecond, floors?.json.rowsPerSecond ?? NaN),
      explain: floors ? await explain(client, floors.statement) : null,
    };
  }

  // 4. Metering cost: shape 1 with limits off, and on with memory and Redis counters. Measured only
  // when shape 1 is in the run: on another shape the figures would not be the ones the targets name.
  const meteringShape = shapes.find((s) => s.id === '1');
  if (meteringShape) log('metering cost (shape 1)');
  const metering: Record<string, Record<number, LoadFigures>> = {};
  for (const variant of [
    { name: 'off', counters: 'memory' as const, limits: false },
    { name: 'memory', counters: 'memory' as const, limits: true },
    ...(redis ? [{ name: 'redis', counters: 'redis' as const, limits: true }] : []),
  ]) {
    if (!meteringShape) break;
    const s = await startService(variant);
    await load(`${s.url}${meteringShape.path}`, 16, auth, Math.min(2, DURATION));
    metering[variant.name] = {};
    for (const c of CONCURRENCY) {
      metering[variant.name]![c] = await load(`${s.url}${meteringShape.path}`, c, auth, DURATION, { nodePid: s.child.pid, client, redisPid });
      await settle(s.url);
    }
    await s.stop();
  }
  const perRequestMs = (name: string) => (metering[name] && metering.off ? Math.round((metering[name]![1]!.mean - metering.off[1]!.mean) * 100) / 100 : null);
  // The same cost as CPU (Node.js + PostgreSQL + Redis per request at c1, on − off): latency
  // differences drown in noise on a shared machine, CPU time much less.
  const cpuSum = (f?: LoadFigures) => (f?.cpu ? (f.cpu.nodeMs ?? 0) + (f.cpu.pgMs ?? 0) + (f.cpu.redisMs ?? 0) : NaN);
  const perRequestCpuMs = (name: string) => {
    const d = cpuSum(metering[name]?.[1]) - cpuSum(metering.off?.[1]);
    return Number.isFinite(d) ? Math.round(d * 1000) / 1000 : null;
  };
  const ledger = { rows, servedRows, generatedRows: ROWS, changeEvents: events, seedSeconds, seedRowsPerSecond: seedSeconds ? Math.round(ROWS / seedSeconds) : null, databaseBytes: Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n) };
  await client.end();

  // 5. Seeding against a bare COPY of the same rows.
  let seeding: Awaited<ReturnType<typeof measureSeeding>> | null = null;
  if (SEED_CHECK_ROWS > 0) {
    log(`seeding ${SEED_CHECK_ROWS} rows against a bare COPY of the same rows`);
    seeding = await measureSeeding(SEED_CHECK_ROWS);
    log(`seeder ${seeding.seeder.rowsPerSecond} rows/s, bare COPY ${seeding.bareCopy.rowsPerSecond} rows/s`);
  }

  // 6. Ingest.
  let ingest: Record<string, unknown> | null = null;
  if (INGEST_POSTINGS > 0) {
    log(`ingest: ${INGEST_POSTINGS} postings`);
    ingest = await measureIngest(INGEST_POSTINGS);
  }

  // 7. Targets (issue 22).
  const targets: Target[] = [];
  const byId = (id: string) => results.find((r) => r.id === id);
  for (const r of results) {
    const ratios = r.ratios as Record<string, number | null>;
    const svc = r.service as Record<number, LoadFigures>;
    if (r.target === 'db') {
      targets.push(atLeast(`shape ${r.id} c16 ≥ 1.0 of the naive peer`, ratios.peerC16, 1.0));
      targets.push(atLeast(`shape ${r.id} c16 ≥ 0.5 of the prepared floor with metering`, ratios.dbMeteredFloorC16, r.id === '9' ? 0.5 : 0.5));
    }
    targets.push(below(`shape ${r.id} p99 at c1 < 50 ms`, svc[1]!.p99, 50, 'ms'));
  }
  const one = byId('1');
  if (one) {
    targets.push(below('total CPU per /v1/jobs request (node + pg + redis, c16) ≤ 0.8 ms', one.totalCpuMsC16 as number | null, 0.8, 'ms', false));
    targets.push(below('metering: synchronous database writes per keyed request = 0', one.syncWritesPerRequest as number | null, 1, 'writes'));
    if (redis) targets.push(below('metering: Redis round trips per keyed request ≤ 1 (commands sent, c1)', one.redisCommandsPerRequestC1 as number | null, 1, 'commands', false));
  }
  const eleven = byId('11');
  if (eleven) targets.push(atLeast('keyless /public/jobs?country=DE c16 ≥ 0.5 of raw node:http', (eleven.ratios as Record<string, number | null>).httpFloorC16, 0.5));
  if (redis && meteringShape) targets.push(below('metering with Redis adds < 0.3 ms at c1 (mean latency, on − off)', perRequestMs('redis'), 0.3, 'ms'));
  if (redis && meteringShape) targets.push(below('metering with Redis adds < 0.3 ms at c1 (CPU node + pg + redis, on − off)', perRequestCpuMs('redis'), 0.3, 'ms'));
  const failures = results.reduce((n, r) => n + Object.values(r.service as Record<number, LoadFigures>).reduce((m, f) => m + f.non2xx + f.errors + f.timeouts, 0), 0);
  targets.push({ target: 'no request fails or hits the statement timeout', met: failures === 0, detail: `${failures} non-2xx/errors/timeouts` });
  if (exportResult) {
    const svc = exportResult.service as { rowsPerSecond: number; peakRssMb: number };
    targets.push(atLeast('export ≥ 1.0 of COPY row_to_json', exportResult.ratioRowToJson as number | null, 1.0, `${svc.rowsPerSecond} rows/s`));
    targets.push(below('export peak RSS < 200 MB', svc.peakRssMb, 200, 'MB'));
  }
  if (seeding) targets.push(atLeast('seeding ≥ 0.8 of a bare COPY of the same rows', seeding.ratio, 0.8, `${seeding.seeder.rowsPerSecond} vs ${seeding.bareCopy.rowsPerSecond} rows/s at ${seeding.rows} rows`));
  if (ingest) {
    const first = ingest.firstCrawl as { postingsPerSecond: number };
    const re = ingest.recrawl as { postingsPerSecond: number };
    const floorRe = ingest.recrawlFetchParse as { postingsPerSecond: number };
    if (seeding) targets.push(atLeast('ingest first crawl ≥ 0.5 of the bare COPY rate', ratio(first.postingsPerSecond, seeding.bareCopy.rowsPerSecond), 0.5, `${first.postingsPerSecond} postings/s vs ${seeding.bareCopy.rowsPerSecond} rows/s`));
    targets.push(atLeast('ingest re-crawl ≥ 0.5 of fetch + parse alone', ratio(re.postingsPerSecond, floorRe.postingsPerSecond), 0.5, `${re.postingsPerSecond} vs ${floorRe.postingsPerSecond} postings/s`));
  }

  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    quick,
    machine: { ...(await machineInfo()), loadBefore, loadAfter: await machineLoad() },
    ledger,
    settings: { durationSeconds: DURATION, concurrency: CONCURRENCY, serviceCounters: counters, pgbench: '-M prepared, values inlined', autocannon: 'pipelining 1', seedCheckRows: SEED_CHECK_ROWS, ingestPostings: INGEST_POSTINGS },
    shapes: results,
    export: exportResult,
    metering: { shape: meteringShape?.id ?? null, variants: metering, perRequestMs: { memory: perRequestMs('memory'), redis: perRequestMs('redis') }, perRequestCpuMs: { memory: perRequestCpuMs('memory'), redis: perRequestCpuMs('redis') } },
    seeding,
    ingest,
    targets,
  };
  const day = startedAt.toISOString().slice(0, 10);
  // A second run on the same day gets its start time in the name: results already kept (and cited by
  // bench/README.md) are never overwritten.
  const stem = path.join(resultsDir, `${quick ? 'quick-' : ''}${day}`);
  const file = existsSync(`${stem}.json`) ? `${stem}-${startedAt.toISOString().slice(11, 19).replaceAll(':', '')}.json` : `${stem}.json`;
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  rmSync(scratch, { recursive: true, force: true });
  printTable(report);
  process.stdout.write(`\nwritten ${path.relative(ROOT, file)}\n`);
}

function printTable(report: {
  shapes: Array<Record<string, unknown>>;
  export: Record<string, unknown> | null;
  metering: { perRequestMs: Record<string, number | null>; perRequestCpuMs: Record<string, number | null>; variants: Record<string, Record<number, LoadFigures>> };
  seeding: Record<string, unknown> | null;
  ingest: Record<string, unknown> | null;
  targets: Target[];
  machine: { loadBefore: { uptime: string }; loadAfter: { uptime: string } };
}): void {
  const pad = (s: string | number | null | undefined, n: number) => String(s ?? '–').padStart(n);
  const cpu = (f?: LoadFigures) => (f?.cpu ? `${f.cpu.nodeMs ?? '–'}/${f.cpu.pgMs ?? '–'}/${f.cpu.redisMs ?? '–'}` : null);
  const out: string[] = [];
  out.push('');
  out.push(
    `${'shape'.padEnd(40)} ${pad('c1 req/s', 9)} ${pad('p50', 4)} ${pad('p99', 4)} ${pad('c16 req/s', 9)} ${pad('p50', 4)} ${pad('p99', 5)} ${pad('peer c16', 8)} ${pad('svc/peer', 8)} ${pad('db+m c16', 8)} ${pad('svc/db+m', 8)} ${pad('db c16', 8)} ${pad('svc/db', 6)} ${pad('http c16', 8)} ${pad('svc/http', 8)} ${pad('cpu ms node/pg/redis c16', 24)} ${pad('peer node/pg', 13)} ${pad('db+m pg', 7)} ${pad('http node', 9)}`,
  );
  for (const r of report.shapes) {
    const svc = r.service as Record<number, LoadFigures>;
    const db = r.dbFloor as Record<number, DbFloor>;
    const dbm = r.dbFloorWithMetering as Record<number, DbFloor>;
    const http = r.httpFloor as Record<number, LoadFigures>;
    const peer = r.naivePeer as Record<number, LoadFigures | undefined>;
    const ratios = r.ratios as Record<string, number | null>;
    out.push(
      `${`${r.id}. ${r.title}`.slice(0, 40).padEnd(40)} ${pad(svc[1]!.rps, 9)} ${pad(svc[1]!.p50, 4)} ${pad(svc[1]!.p99, 4)} ${pad(svc[16]!.rps, 9)} ${pad(svc[16]!.p50, 4)} ${pad(svc[16]!.p99, 5)} ${pad(peer[16]?.rps, 8)} ${pad(ratios.peerC16, 8)} ${pad(dbm[16]?.tps, 8)} ${pad(ratios.dbMeteredFloorC16, 8)} ${pad(db[16]?.tps, 8)} ${pad(ratios.dbFloorC16, 6)} ${pad(http[16]!.rps, 8)} ${pad(ratios.httpFloorC16, 8)} ${pad(cpu(svc[16]), 24)} ${pad(peer[16]?.cpu ? `${peer[16].cpu.nodeMs}/${peer[16].cpu.pgMs}` : null, 13)} ${pad(dbm[16]?.pgMs, 7)} ${pad(http[16]?.cpu?.nodeMs, 9)}`,
    );
  }
  if (report.export) {
    const svc = report.export.service as { rowsPerSecond: number; peakRssMb: number; rows: number };
    const text = report.export.copyText as { rowsPerSecond?: number } | null;
    const json = report.export.copyRowToJson as { rowsPerSecond?: number } | null;
    out.push(`10. /v1/export: ${svc.rows} rows at ${svc.rowsPerSecond} rows/s, peak RSS ${svc.peakRssMb} MB; COPY text ${text?.rowsPerSecond} rows/s (ratio ${report.export.ratioText}); COPY row_to_json ${json?.rowsPerSecond} rows/s (ratio ${report.export.ratioRowToJson})`);
  }
  const m = report.metering;
  if (Object.keys(m.variants).length > 0) {
    out.push(`metering (shape 1, c1 mean latency over limits off): memory ${m.perRequestMs.memory} ms, redis ${m.perRequestMs.redis} ms; c16 req/s ${Object.entries(m.variants).map(([k, v]) => `${k} ${v[16]?.rps}`).join(', ')}`);
    out.push(`metering CPU ms per request at c1, node/pg/redis: ${Object.entries(m.variants).map(([k, v]) => `${k} ${cpu(v[1]) ?? '–'}`).join(', ')}; added CPU over limits off: memory ${m.perRequestCpuMs.memory} ms, redis ${m.perRequestCpuMs.redis} ms`);
  }
  if (report.seeding) {
    const sd = report.seeding as { rows: number; seeder: { rowsPerSecond: number; seconds: number }; bareCopy: { rowsPerSecond: number; seconds: number }; ratio: number | null };
    out.push(`seeding ${sd.rows} rows: seeder ${sd.seeder.rowsPerSecond} rows/s (${sd.seeder.seconds} s), bare COPY ${sd.bareCopy.rowsPerSecond} rows/s (${sd.bareCopy.seconds} s), ratio ${sd.ratio}`);
  }
  if (report.ingest) {
    const ig = report.ingest as Record<string, { postingsPerSecond: number; seconds: number; cpuMsPerPosting?: { node: number; pg: number; sources: number }; counts?: Record<string, number> }> & { boards: number; postings: number };
    const phase = (name: string) => {
      const p = ig[name]!;
      return `${p.postingsPerSecond} postings/s (${p.seconds} s${p.cpuMsPerPosting ? `, cpu ms/posting node ${p.cpuMsPerPosting.node} pg ${p.cpuMsPerPosting.pg} sources ${p.cpuMsPerPosting.sources}` : ''}${p.counts ? `, ${JSON.stringify(p.counts)}` : ''})`;
    };
    out.push(`ingest ${ig.postings} postings on ${ig.boards} boards: first crawl ${phase('firstCrawl')}; its fetch + parse ${phase('firstFetchParse')}`);
    out.push(`  re-crawl ${phase('recrawl')}; its fetch + parse ${phase('recrawlFetchParse')}`);
  }
  out.push(`machine before: ${report.machine.loadBefore.uptime}`);
  out.push(`machine after:  ${report.machine.loadAfter.uptime}`);
  out.push('');
  for (const t of report.targets) out.push(`${t.met === null ? '   ?' : t.met ? '  ok' : 'MISS'}  ${t.target}: ${t.detail}`);
  process.stdout.write(out.join('\n') + '\n');
}

await main();
