/**
 * The ingest benchmark (issue 22): crawl N boards built from the recorded real Ashby payloads
 * (bench/ingest-sources.ts, a loopback server in its own process on Ashby's API path) through the
 * production pipeline: the guarded fetcher, the Ashby connector, enrichment, the quality gate and the
 * ledger, each board under its crawl lease, its fetch in one of the worker's per-host slots
 * (`withHostSlot`, JOBLEDGER_WORKER_PER_HOST, default 2: every board is on the one Ashby host, as
 * upstream), with the worker's concurrency (JOBLEDGER_WORKER_CONCURRENCY, default 4). Into a fresh database migrated to the
 * current schema, dropped afterwards.
 *
 * Measures, in order:
 * 1. fetch + parse of the first crawl alone (every connector call, nothing written): its floor's
 *    companion, for reading where the time goes;
 * 2. the first crawl (every posting new), postings/s;
 * 3. the server switches to generation 1: `BENCH_INGEST_CHANGE_SHARE` (2 %) of the postings changed at
 *    serve time (see ingest-sources.ts);
 * 4. fetch + parse of the re-crawl alone (the same conditional requests: an unchanged board is a 304);
 * 5. the re-crawl through the pipeline.
 * Rates are postings on the boards crawled per second of wall time; each pipeline crawl also reports
 * CPU ms per posting of this process (fetcher, connector, enrichment, gate, the ledger's client side),
 * of its PostgreSQL backends and of the sources server, read from /proc.
 *
 * Environment: BENCH_INGEST_DATABASE_URL (the database to create; default
 * postgres://postgres@127.0.0.1:5432/jobledger_bench_ingest), BENCH_INGEST_POSTINGS (300000),
 * BENCH_INGEST_CHANGE_SHARE (0.02), BENCH_INGEST_ARCHIVE (the Ashby boards archive), BENCH_INGEST_KEEP=1
 * keeps the database, BENCH_INGEST_PROFILE=<dir> writes a V8 CPU profile of this process for each
 * pipeline crawl (`first-crawl.cpuprofile`, `recrawl.cpuprofile`; open in Chrome DevTools), so the
 * re-crawl's own profile is not drowned in the first crawl's. Prints progress on stderr and one line `result <json>` on stdout.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { createConnectors } from '../src/ingest/connectors/registry.ts';
import { crawlHost } from '../src/ingest/crawl-worker.ts';
import { createFetcher } from '../src/ingest/fetcher.ts';
import { currentFxRates } from '../src/ingest/fx-refresh.ts';
import { crawlTarget, loadProviders, type CrawlReport, type PipelineDeps } from '../src/ingest/pipeline.ts';
import { listTargets, toCrawlTarget, upsertTarget, withHostSlot } from '../src/store/crawl-targets.ts';
import { connect } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { freePort } from '../test/helpers/ports.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const DATABASE_URL = process.env.BENCH_INGEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/jobledger_bench_ingest';
const POSTINGS = Number(process.env.BENCH_INGEST_POSTINGS ?? 300_000);
const CHANGE_SHARE = Number(process.env.BENCH_INGEST_CHANGE_SHARE ?? 0.02);
const ARCHIVE = process.env.BENCH_INGEST_ARCHIVE ?? '/work/shared/data/ashby/boards.tar.gz';
const APPLICATION = 'jobledger-bench-ingest';
const PROFILE_DIR = process.env.BENCH_INGEST_PROFILE;
const config = loadConfig();
const CONCURRENCY = config.worker.concurrency;
const PER_HOST = config.worker.perHost;

function log(message: string): void {
  process.stderr.write(`[ingest ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** utime + stime of a process, ms (clock ticks of 10 ms); 0 when it is gone. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

async function backendCpu(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APPLICATION]);
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

// ---------------------------------------------------------------------------------------------------
// Sources, database, targets

const boardsDir = process.env.BENCH_INGEST_BOARDS_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'jlbench-ashby-'));
if (!process.env.BENCH_INGEST_BOARDS_DIR) await run('tar', ['-xzf', ARCHIVE, '-C', boardsDir]);
const port = await freePort();
const sources = spawn(process.execPath, [path.join(ROOT, 'bench/ingest-sources.ts')], {
  cwd: ROOT,
  env: { ...process.env, PORT: String(port), BENCH_INGEST_BOARDS_DIR: boardsDir },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise<void>((resolve, reject) => {
  let out = '';
  sources.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('listening')) resolve();
  });
  sources.once('exit', (code) => reject(new Error(`ingest-sources exited with ${code}`)));
});
const sourcesUrl = `http://127.0.0.1:${port}`;
const recordings = (await (await fetch(`${sourcesUrl}/__bench/boards`)).json()) as Array<{ board: string; postings: number }>;
const recordedPostings = recordings.reduce((n, r) => n + r.postings, 0);
log(`${recordings.length} recorded boards, ${recordedPostings} listed postings; building boards for ${POSTINGS} postings`);

const dbName = new URL(DATABASE_URL).pathname.slice(1);
const adminUrl = new URL(DATABASE_URL);
adminUrl.pathname = '/postgres';
const admin = new pg.Client({ connectionString: adminUrl.toString() });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(dbName)} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(dbName)}`);
await migrate(DATABASE_URL);

const { db } = connect(DATABASE_URL, { statementTimeoutMs: 0, maxConnections: 2 * CONCURRENCY + 2, applicationName: APPLICATION });
const probe = new pg.Client({ connectionString: DATABASE_URL });
await probe.connect();

// Copies of the recorded boards, in order, until the postings asked for are reached.
let planned = 0;
const boards: Array<{ board: string; company: string; postings: number }> = [];
for (let copy = 0; planned < POSTINGS; copy++) {
  for (const r of recordings) {
    if (planned >= POSTINGS) break;
    boards.push({ board: `${r.board}~${copy}`, company: copy === 0 ? r.board : `${r.board} ${copy}`, postings: r.postings });
    planned += r.postings;
  }
}
for (const b of boards) await upsertTarget(db, { providerId: 'ashby', board: b.board, companyName: b.company });
const postingsByTarget = new Map<string, number>();
let targets = await listTargets(db);
const postingsByBoard = new Map(boards.map((b) => [b.board, b.postings]));
for (const t of targets) postingsByTarget.set(t.id, postingsByBoard.get(t.board) ?? 0);
log(`${targets.length} boards, ${planned} postings, concurrency ${CONCURRENCY}, ${PER_HOST} per host`);

const fetcher = createFetcher({ ...config.fetch, allow: [`127.0.0.1:${port}`] }, pino({ level: 'error' }));
const quiet = pino({ level: 'error' });
const deps: PipelineDeps = {
  db,
  connectors: createConnectors({ ...config.sources, ashby: sourcesUrl }),
  fetcher,
  fx: await currentFxRates(db),
  log: quiet,
  absence: config.absence,
};
const providers = await loadProviders(db);
// The worker's per-host bound (crawl-worker.ts): each crawl's fetch holds one of the host's slots.
const slotted: PipelineDeps = { ...deps, upstreamSlot: (row, work) => withHostSlot(db, crawlHost(deps, row), PER_HOST, work) };

/** Run `work` over `rows` with the worker's concurrency. */
async function eachTarget(rows: CrawlTargetRow[], work: (row: CrawlTargetRow) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, rows.length) }, async () => {
      while (next < rows.length) await work(rows[next++]!);
    }),
  );
}

/** An in-process per-host bound for the fetch + parse floor (no database: the same bound, not its cost). */
function hostSlots(slots: number) {
  const active = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();
  return async <T>(host: string, fn: () => Promise<T>): Promise<T> => {
    while ((active.get(host) ?? 0) >= slots) await new Promise<void>((resolve) => waiting.set(host, [...(waiting.get(host) ?? []), resolve]));
    active.set(host, (active.get(host) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      active.set(host, active.get(host)! - 1);
      waiting.get(host)?.shift()?.();
    }
  };
}

interface Phase {
  seconds: number;
  postings: number;
  postingsPerSecond: number;
  boards: number;
  failed: number;
  cpuMsPerPosting?: { node: number; pg: number; sources: number };
  counts?: { created: number; updated: number; unchanged: number; closed: number; notModifiedBoards: number };
}

/** Fetch and parse every board through the connector, nothing else (the re-crawl's floor). */
async function fetchAndParse(rows: CrawlTargetRow[]): Promise<Phase> {
  const slot = hostSlots(PER_HOST);
  let failed = 0;
  const started = performance.now();
  await eachTarget(rows, async (row) => {
    const connector = deps.connectors.ashby;
    try {
      await slot(crawlHost(deps, row), () => connector.crawl(toCrawlTarget(row), fetcher));
    } catch {
      failed++;
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const postings = rows.reduce((n, r) => n + (postingsByTarget.get(r.id) ?? 0), 0);
  return { seconds: round(seconds), postings, postingsPerSecond: Math.round(postings / seconds), boards: rows.length, failed };
}

/**
 * Run `work` under the V8 CPU profiler when BENCH_INGEST_PROFILE is set, writing `<dir>/<name>.cpuprofile`.
 * The profiler's own overhead lands in the phase's figures, so a profiled run is for reading, not for the record.
 */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(path.join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
    log(`wrote ${path.join(PROFILE_DIR, `${name}.cpuprofile`)}`);
  }
}

/** Crawl every board through the pipeline, as the worker does (crawl lease, its fetch in a per-host slot). */
async function crawl(rows: CrawlTargetRow[]): Promise<Phase> {
  const before = { node: process.cpuUsage(), pg: await backendCpu(probe), sources: cpuMs(sources.pid!) };
  const reports: CrawlReport[] = [];
  const started = performance.now();
  await eachTarget(rows, async (row) => {
    reports.push(await crawlTarget(slotted, providers, row));
    if (reports.length % 2000 === 0) log(`${reports.length}/${rows.length} boards`);
  });
  const seconds = (performance.now() - started) / 1000;
  const pgAfter = await backendCpu(probe);
  let pgMs = 0;
  for (const [pid, ms] of pgAfter) pgMs += ms - (before.pg.get(pid) ?? 0);
  const nodeUsage = process.cpuUsage(before.node);
  const counts = { created: 0, updated: 0, unchanged: 0, closed: 0, notModifiedBoards: 0 };
  let failed = 0;
  for (const r of reports) {
    if (r.outcome === 'fetched') {
      counts.created += r.counts.created;
      counts.updated += r.counts.updated;
      counts.unchanged += r.counts.unchanged;
      counts.closed += r.counts.closed;
    } else if (r.outcome === 'not_modified') counts.notModifiedBoards++;
    else failed++;
  }
  const failures = reports.filter((r) => r.outcome === 'failed').slice(0, 3);
  if (failures.length > 0) log(`failed boards, e.g. ${JSON.stringify(failures)}`);
  const postings = rows.reduce((n, r) => n + (postingsByTarget.get(r.id) ?? 0), 0);
  const per = (ms: number) => Math.round((ms / postings) * 1000) / 1000;
  return {
    seconds: round(seconds),
    postings,
    postingsPerSecond: Math.round(postings / seconds),
    boards: rows.length,
    failed,
    cpuMsPerPosting: { node: per((nodeUsage.user + nodeUsage.system) / 1000), pg: per(pgMs), sources: per(cpuMs(sources.pid!) - before.sources) },
    counts,
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

try {
  log('first crawl: fetch + parse alone');
  const firstFetchParse = await fetchAndParse(targets);
  log(`first crawl: fetch + parse ${firstFetchParse.postingsPerSecond} postings/s; now through the pipeline`);
  const firstCrawl = await profiled('first-crawl', () => crawl(targets));
  log(`first crawl: ${firstCrawl.postingsPerSecond} postings/s`);
  // In service a re-crawl comes hours after the crawl before it, when autovacuum has long analyzed
  // what that crawl wrote; here it comes at once, on statistics of the empty tables, whose plans read
  // every row of the provider to find one board's (13 ms a board instead of 1).
  await probe.query('ANALYZE');
  await fetch(`${sourcesUrl}/__bench/generation?n=1&share=${CHANGE_SHARE}`, { method: 'POST' });
  targets = await listTargets(db);
  log('re-crawl: fetch + parse alone');
  const recrawlFetchParse = await fetchAndParse(targets);
  log(`re-crawl: fetch + parse ${recrawlFetchParse.postingsPerSecond} postings/s; now through the pipeline`);
  const recrawl = await profiled('recrawl', () => crawl(targets));
  log(`re-crawl: ${recrawl.postingsPerSecond} postings/s`);
  const stats = (await (await fetch(`${sourcesUrl}/__bench/stats`)).json()) as Record<string, unknown>;
  const ledger = (await probe.query<{ rows: string; served: string; bytes: string }>('SELECT count(*) AS rows, count(*) FILTER (WHERE served) AS served, pg_database_size(current_database()) AS bytes FROM jobs')).rows[0]!;
  const result = {
    recordedBoards: recordings.length,
    recordedPostings,
    boards: targets.length,
    postings: planned,
    changeShare: CHANGE_SHARE,
    concurrency: CONCURRENCY,
    perHost: PER_HOST,
    firstFetchParse,
    firstCrawl,
    recrawlFetchParse,
    recrawl,
    ratios: { recrawlOverFetchParse: Math.round((recrawl.postingsPerSecond / recrawlFetchParse.postingsPerSecond) * 1000) / 1000 },
    sources: stats,
    ledger: { rows: Number(ledger.rows), served: Number(ledger.served), databaseBytes: Number(ledger.bytes) },
  };
  process.stdout.write(`result ${JSON.stringify(result)}\n`);
} finally {
  await fetcher.close();
  await probe.end();
  await db.destroy();
  sources.kill('SIGTERM');
  if (process.env.BENCH_INGEST_KEEP !== '1') await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(dbName)} WITH (FORCE)`);
  await admin.end();
  if (!process.env.BENCH_INGEST_BOARDS_DIR) rmSync(boardsDir, { recursive: true, force: true });
}
