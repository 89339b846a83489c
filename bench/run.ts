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
 * bench/results/<YYYY-MM-DD>.json (bench/results/quick-<date>.json for --quick).
 *
 * Settings (environment): BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/jobledger_bench,
 * jobledger_bench_quick with --quick), BENCH_ROWS (1,000,000; 5,000 with --quick), BENCH_DURATION
 * seconds per measurement (8; 2 with --quick), REDIS_URL (default redis://127.0.0.1:6379; the Redis
 * variant is skipped when it does not answer), BENCH_SHAPES (comma list of shape ids to run).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { keyedJobsQuery } from '../src/http/schemas/jobs.ts';
import { keysetCursor } from '../src/http/paging.ts';
import { BENCH_POSTING_PREFIX } from '../src/bench/seed.ts';
import { inlineParameters } from './sql-replay.ts';
import type { CapturedStatement } from './server.ts';
import { freePort } from '../test/helpers/ports.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE = process.execPath;
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
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU ms per request of the service's Node.js process, its PostgreSQL backends and Redis. */
  cpu?: { nodeMs: number | null; pgMs: number | null; redisMs: number | null };
}

interface DbFloor {
  tps: number;
  latencyMs: number;
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
async function startChild(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number; url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(NODE, [path.join(ROOT, script)], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
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
  });
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
 * Whose CPU a measurement reads: the service's Node.js process, the PostgreSQL backends of its pool
 * (found by application_name), and the Redis server. CPU time, unlike throughput, barely moves when
 * other work shares the cores, so the per-request figures compare across runs on a busy machine.
 */
interface CpuProbe {
  nodePid?: number;
  client: pg.Client;
  redisPid?: number;
}

async function backendPids(client: pg.Client): Promise<number[]> {
  const rows = (await client.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'jobledger-bench-api'`)).rows as Array<{ pid: number }>;
  return rows.map((r) => r.pid);
}

async function cpuSnapshot(probe: CpuProbe) {
  const pids = await backendPids(probe.client);
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
  return { nodeMs: per(after.node - before.node), pgMs: per(pgMs), redisMs: per(after.redis - before.redis) };
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

async function ensureSeeded(): Promise<{ seedSeconds: number | null }> {
  const name = new URL(DATABASE_URL).pathname.slice(1);
  const admin = new pg.Client({ connectionString: withDatabase(DATABASE_URL, 'postgres') });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  if (!exists) {
    log(`creating database ${name}`);
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  }
  await admin.end();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  let count: number;
  try {
    count = Number((await client.query(`SELECT count(*) AS n FROM jobs WHERE source_posting_id LIKE '${BENCH_POSTING_PREFIX}%'`)).rows[0].n);
  } catch {
    count = 0; // not migrated yet: bench-seed migrates
  } finally {
    await client.end();
  }
  if (count === ROWS) {
    log(`reusing ${name}: ${count} generated rows`);
    return { seedSeconds: null };
  }
  if (count !== 0) throw new Error(`${name} holds ${count} generated rows, not ${ROWS}: drop it (DROP DATABASE ${name}) or set BENCH_ROWS=${count}`);
  log(`seeding ${ROWS} rows into ${name} (jobledger bench-seed)`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(NODE, [path.join(ROOT, 'src/main/cli.ts'), 'bench-seed', '--rows', String(ROWS)], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL, LOG_LEVEL: 'warn' },
      stdio: 'inherit',
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bench-seed exited with ${code}`))));
  });
  return { seedSeconds: (Date.now() - started) / 1000 };
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

async function pgbench(statements: string[], clients: number, duration = DURATION): Promise<DbFloor> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jlbench-'));
  const script = path.join(dir, 'shape.sql');
  writeFileSync(script, statements.map((s) => `${pgbenchSafe(s.replace(/\s+/g, ' '))};`).join('\n') + '\n');
  try {
    const { stdout } = await run('pgbench', ['-n', '-M', 'prepared', '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(duration), '-f', script, DATABASE_URL], {
      maxBuffer: 16 * 1024 * 1024,
    });
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1] ?? NaN);
    return { tps: Math.round(tps * 10) / 10, latencyMs };
  } catch (error) {
    return { tps: NaN, latencyMs: NaN, error: ((error as { stderr?: string }).stderr ?? (error as Error).message).slice(0, 500) };
  }
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
    const started = performance.now();
    const response = await fetch(`${service.url}/v1/export`, { headers: { authorization: `Bearer ${secret}` } });
    let rows = 0;
    let bytes = 0;
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) rows++;
    }
    const seconds = (performance.now() - started) / 1000;
    rows = Math.max(0, rows - 1); // the final control line is no record
    return { status: response.status, rows, bytes, seconds: Math.round(seconds * 100) / 100, rowsPerSecond: Math.round(rows / seconds), rssBeforeMb: Math.round(rssBefore), peakRssMb: Math.round(vmStatus(pid, 'VmHWM')) };
  } finally {
    await service.stop();
  }
}

async function exportFloor(captureUrl: string, secret: string, client: pg.Client) {
  // The export's first batch statement, with its LIMIT lifted: the same rows, columns and order.
  await fetch(`${captureUrl}/__bench/capture`, { method: 'DELETE' });
  const controller = new AbortController();
  const response = await fetch(`${captureUrl}/v1/export`, { headers: { authorization: `Bearer ${secret}` }, signal: controller.signal });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  await new Promise((r) => setTimeout(r, 500));
  const captured = (await (await fetch(`${captureUrl}/__bench/capture`)).json()) as CapturedStatement[];
  const batch = captured.find((c) => /from "jobs" as "j"/i.test(c.text) && /order by "j"\."id"/i.test(c.text));
  if (!batch) return { error: 'export statement not captured' };
  const limit = /limit \$(\d+)/i.exec(batch.text);
  const values = [...batch.values];
  if (limit) values[Number(limit[1]) - 1] = null;
  const statement = inlineParameters(batch.text, values);
  const count = Number((await client.query(`SELECT count(*) AS n FROM (${statement}) s`)).rows[0].n);
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('psql', ['-X', '-q', '-c', `COPY (${statement}) TO STDOUT`, DATABASE_URL], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql COPY exited with ${code}`))));
  });
  const seconds = (performance.now() - started) / 1000;
  return { rows: count, seconds: Math.round(seconds * 100) / 100, rowsPerSecond: Math.round(count / seconds), statement };
}

// ---------------------------------------------------------------------------------------------------

async function machine(client: pg.Client) {
  const cpus = os.cpus();
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
    postgres: (await client.query('SHOW server_version')).rows[0].server_version as string,
    sharedBuffers: (await client.query('SHOW shared_buffers')).rows[0].shared_buffers as string,
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

const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) && Number.isFinite(b) ? Math.round((a / b) * 1000) / 1000 : null);

async function main(): Promise<void> {
  const startedAt = new Date();
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

  // 1. What each shape sends and answers.
  const captured: Record<string, Awaited<ReturnType<typeof captureShape>>> = {};
  for (const shape of shapes) {
    captured[shape.id] = await captureShape(capture.url, shape, shape.keyless ? {} : auth);
    log(`shape ${shape.id}: ${captured[shape.id]!.status}, ${captured[shape.id]!.body.length} bytes, ${captured[shape.id]!.statements.length} statements`);
  }
  const exportCopy = shapes.length === 10 || ONLY?.includes('10') ? await exportFloor(capture.url, secret, client) : null;
  await capture.stop();
  // The same with metering on (memory counters): what a keyed request sends with its record meter,
  // for the floor "with metering". The second request of each shape, so one-time work is left out.
  const meteredCapture = await startService({ counters: 'memory', limits: true, capture: true });
  const metered: Record<string, string[]> = {};
  for (const shape of shapes) {
    if (shape.keyless) continue;
    await captureShape(meteredCapture.url, shape, auth);
    metered[shape.id] = (await captureShape(meteredCapture.url, shape, auth)).statements;
  }
  await meteredCapture.stop();

  // 2. The service (production metering: limits on, request counters in Redis when it answers).
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
    for (const c of CONCURRENCY) {
      svc[c] = await load(`${service.url}${shape.path}`, c, headers, duration, { nodePid: service.child.pid, client, redisPid });
      await settle(service.url);
    }
    const bodyFile = path.join(scratch, `shape-${shape.id}.body`);
    writeFileSync(bodyFile, cap.body);
    const floor = await startChild('bench/http-floor.ts', { BENCH_BODY_FILE: bodyFile, BENCH_CONTENT_TYPE: cap.contentType });
    const http: Record<number, LoadFigures> = {};
    for (const c of CONCURRENCY) http[c] = await load(floor.url, c, {}, duration);
    await floor.stop();
    const db: Record<number, DbFloor> = {};
    if (cap.statements.length > 0 && shape.dbFloor !== false) for (const c of CONCURRENCY) db[c] = await pgbench(cap.statements, c, duration);
    const dbMetered: Record<number, DbFloor> = {};
    const meteredStatements = metered[shape.id];
    if (meteredStatements && meteredStatements.length > 0 && shape.dbFloor !== false) dbMetered[16] = await pgbench(meteredStatements, 16, duration);
    const plans: string[] = [];
    for (const statement of cap.statements) plans.push(`${statement}\n${await explain(client, statement)}`);
    results.push({
      id: shape.id,
      title: shape.title,
      path: shape.path.length > 300 ? `${shape.path.slice(0, 300)}…` : shape.path,
      target: shape.target,
      status: cap.status,
      responseBytes: cap.body.length,
      statements: cap.statements.length,
      service: svc,
      httpFloor: http,
      dbFloor: db,
      dbFloorWithMetering: dbMetered,
      meteredStatements: meteredStatements?.length ?? null,
      ratios: {
        dbMeteredFloorC16: ratio(svc[16]!.rps, dbMetered[16]?.tps ?? NaN),
        dbFloorC1: ratio(svc[1]!.rps, db[1]?.tps ?? NaN),
        dbFloorC16: ratio(svc[16]!.rps, db[16]?.tps ?? NaN),
        httpFloorC1: ratio(svc[1]!.rps, http[1]!.rps),
        httpFloorC16: ratio(svc[16]!.rps, http[16]!.rps),
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
    exportResult = { service: measured, copyFloor: { ...exportCopy, statement: undefined }, ratio: ratio(measured.rowsPerSecond, 'rowsPerSecond' in exportCopy ? (exportCopy.rowsPerSecond ?? NaN) : NaN), explain: 'statement' in exportCopy ? await explain(client, exportCopy.statement!) : null };
  }

  // 4. Metering cost: shape 1 with limits off, and on with memory and Redis counters.
  log('metering cost (shape 1)');
  const meteringShape = shapes.find((s) => s.id === '1') ?? shapes[0]!;
  const metering: Record<string, Record<number, LoadFigures>> = {};
  for (const variant of [
    { name: 'off', counters: 'memory' as const, limits: false },
    { name: 'memory', counters: 'memory' as const, limits: true },
    ...(redis ? [{ name: 'redis', counters: 'redis' as const, limits: true }] : []),
  ]) {
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

  // 5. Targets.
  const targets: Array<{ target: string; met: boolean | null; detail: string }> = [];
  for (const r of results) {
    const ratios = r.ratios as { dbFloorC16: number | null; httpFloorC16: number | null };
    if (r.target === 'db') targets.push({ target: `shape ${r.id} c16 ≥ 60% of database floor`, met: ratios.dbFloorC16 === null ? null : ratios.dbFloorC16 >= 0.6, detail: `${ratios.dbFloorC16}` });
    if (r.target === 'http') targets.push({ target: `shape ${r.id} c16 ≥ 70% of HTTP floor`, met: ratios.httpFloorC16 === null ? null : ratios.httpFloorC16 >= 0.7, detail: `${ratios.httpFloorC16}` });
    const shape = shapes.find((s) => s.id === r.id)!;
    const svc = r.service as Record<number, LoadFigures>;
    if (shape.p99Target) targets.push({ target: `shape ${r.id} p99 at c1 < 50 ms`, met: svc[1]!.p99 < 50, detail: `${svc[1]!.p99} ms` });
  }
  const failures = results.reduce((n, r) => n + Object.values(r.service as Record<number, LoadFigures>).reduce((m, f) => m + f.non2xx + f.errors + f.timeouts, 0), 0);
  targets.push({ target: 'no request fails or hits the statement timeout', met: failures === 0, detail: `${failures} non-2xx/errors/timeouts` });
  if (exportResult) {
    const svc = exportResult.service as { rowsPerSecond: number; peakRssMb: number };
    targets.push({ target: 'export ≥ 50,000 rows/s', met: svc.rowsPerSecond >= 50_000, detail: `${svc.rowsPerSecond} rows/s` });
    targets.push({ target: 'export ≥ 50% of COPY floor', met: exportResult.ratio === null ? null : (exportResult.ratio as number) >= 0.5, detail: `${exportResult.ratio}` });
    targets.push({ target: 'export peak RSS < 300 MB', met: svc.peakRssMb < 300, detail: `${svc.peakRssMb} MB` });
  }
  if (redis) targets.push({ target: 'metering with Redis < 0.5 ms per request', met: (perRequestMs('redis') ?? Infinity) < 0.5, detail: `${perRequestMs('redis')} ms (c1 mean latency, on − off)` });

  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    quick,
    machine: await machine(client),
    ledger: { rows, servedRows, generatedRows: ROWS, changeEvents: events, seedSeconds, databaseBytes: Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n) },
    settings: { durationSeconds: DURATION, concurrency: CONCURRENCY, serviceCounters: counters, pgbench: '-M prepared, values inlined', autocannon: 'pipelining 1' },
    shapes: results,
    export: exportResult,
    metering: { shape: meteringShape.id, variants: metering, perRequestMs: { memory: perRequestMs('memory'), redis: perRequestMs('redis') } },
    targets,
  };
  await client.end();
  const day = startedAt.toISOString().slice(0, 10);
  const file = path.join(resultsDir, `${quick ? 'quick-' : ''}${day}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  printTable(report);
  process.stdout.write(`\nwritten ${path.relative(ROOT, file)}\n`);
}

function printTable(report: { shapes: Array<Record<string, unknown>>; export: Record<string, unknown> | null; metering: { perRequestMs: Record<string, number | null>; variants: Record<string, Record<number, LoadFigures>> }; targets: Array<{ target: string; met: boolean | null; detail: string }> }): void {
  const pad = (s: string | number | null | undefined, n: number) => String(s ?? '–').padStart(n);
  const out: string[] = [];
  out.push('');
  out.push(`${'shape'.padEnd(44)} ${pad('c1 req/s', 9)} ${pad('p50', 5)} ${pad('p99', 5)} ${pad('c16 req/s', 10)} ${pad('p50', 5)} ${pad('p99', 5)} ${pad('db c16', 8)} ${pad('svc/db', 7)} ${pad('http c16', 9)} ${pad('svc/http', 8)} ${pad('db+m c16', 9)} ${pad('svc/db+m', 8)} ${pad('cpu node/pg/redis ms c16', 25)}`);
  for (const r of report.shapes) {
    const svc = r.service as Record<number, LoadFigures>;
    const db = r.dbFloor as Record<number, DbFloor>;
    const http = r.httpFloor as Record<number, LoadFigures>;
    const ratios = r.ratios as Record<string, number | null>;
    out.push(
      `${`${r.id}. ${r.title}`.slice(0, 44).padEnd(44)} ${pad(svc[1]!.rps, 9)} ${pad(svc[1]!.p50, 5)} ${pad(svc[1]!.p99, 5)} ${pad(svc[16]!.rps, 10)} ${pad(svc[16]!.p50, 5)} ${pad(svc[16]!.p99, 5)} ${pad(db[16]?.tps, 8)} ${pad(ratios.dbFloorC16, 7)} ${pad(http[16]!.rps, 9)} ${pad(ratios.httpFloorC16, 8)} ${pad((r.dbFloorWithMetering as Record<number, DbFloor>)[16]?.tps, 9)} ${pad(ratios.dbMeteredFloorC16, 8)} ${pad(svc[16]!.cpu ? `${svc[16]!.cpu.nodeMs}/${svc[16]!.cpu.pgMs}/${svc[16]!.cpu.redisMs}` : null, 25)}`,
    );
  }
  if (report.export) {
    const svc = report.export.service as { rowsPerSecond: number; peakRssMb: number; rows: number };
    const copy = report.export.copyFloor as { rowsPerSecond?: number };
    out.push(`10. /v1/export: ${svc.rows} rows at ${svc.rowsPerSecond} rows/s, peak RSS ${svc.peakRssMb} MB; COPY ${copy.rowsPerSecond} rows/s; ratio ${report.export.ratio}`);
  }
  const m = report.metering;
  out.push(`metering (shape 1, c1 mean latency over limits off): memory ${m.perRequestMs.memory} ms, redis ${m.perRequestMs.redis} ms; c16 req/s ${Object.entries(m.variants).map(([k, v]) => `${k} ${v[16]?.rps}`).join(', ')}`);
  out.push(`metering CPU ms per request at c1, node/pg/redis: ${Object.entries(m.variants).map(([k, v]) => `${k} ${v[1]?.cpu ? `${v[1].cpu.nodeMs}/${v[1].cpu.pgMs}/${v[1].cpu.redisMs}` : '–'}`).join(', ')}`);
  out.push('');
  for (const t of report.targets) out.push(`${t.met === null ? '  ?' : t.met ? ' ok' : 'MISS'}  ${t.target}: ${t.detail}`);
  process.stdout.write(out.join('\n') + '\n');
}

await main();
