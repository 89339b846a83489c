/**
 * The process's Prometheus metrics (prom-client) and the listener that serves them
 * (`JOBLEDGER_METRICS_PORT`, optionally behind `JOBLEDGER_METRICS_TOKEN`; docs/deploy.md).
 *
 * Two kinds: counters and histograms this process observes (HTTP requests, crawls it ran), which
 * Prometheus sums across processes; and gauges read from the ledger at scrape time (pool, feed lag,
 * report snapshot age), which describe the whole cluster and read the same from every process.
 * The metrics live in one process-wide registry: a process serves one app, and tests that build
 * several apps in one process share the counters (they compare before and after).
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import http from 'node:http';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from 'pino';
import { feedLagSeconds, PGBOSS_SCHEMA, queueDepths, reportSnapshotAges } from '../store/operations.ts';
import type { DB } from '../store/schema.ts';

/** The registry every jobledger metric is registered on. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'jobledger_' });

/** Requests answered, by route pattern (not the raw path: bounded labels), method, status and plan. */
export const httpRequests = new Counter({
  name: 'jobledger_http_requests_total',
  help: 'HTTP requests answered, by route pattern, method, status code and plan (keyless: "keyless").',
  labelNames: ['route', 'method', 'status', 'plan'] as const,
  registers: [registry],
});

/** Seconds from the request's arrival to the last byte handed to the socket. */
export const httpDuration = new Histogram({
  name: 'jobledger_http_request_duration_seconds',
  help: 'HTTP request latency in seconds, by route pattern, method and plan.',
  labelNames: ['route', 'method', 'plan'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

/**
 * `/public/jobs` requests answered from a stored response ahead of the router
 * (http/keyless-front-cache.ts); also counted in {@link httpRequests}.
 */
export const keylessFrontCacheHits = new Counter({
  name: 'jobledger_keyless_front_cache_hits_total',
  help: 'Keyless /public/jobs requests answered from a stored response ahead of the router (also counted in jobledger_http_requests_total).',
  registers: [registry],
});

/** 429 (request limits) and 402 (record budget) answers, by error code: the limits a customer hit. */
export const limitRefusals = new Counter({
  name: 'jobledger_limit_refusals_total',
  help: 'Requests refused by a limit: status 429 (rate limits) or 402 (record budget), by plan.',
  labelNames: ['status', 'plan'] as const,
  registers: [registry],
});

/** Crawls this process ran, by provider and outcome (fetched, not_modified, failed, busy). */
export const crawlDuration = new Histogram({
  name: 'jobledger_crawl_duration_seconds',
  help: 'Crawls run by this process, in seconds, by provider and outcome (its _count is the number of crawls).',
  labelNames: ['provider', 'outcome'] as const,
  buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
  registers: [registry],
});

/** Postings a fetched board listed, by provider. */
export const crawlPostings = new Histogram({
  name: 'jobledger_crawl_postings',
  help: 'Postings listed by each fetched board, by provider.',
  labelNames: ['provider'] as const,
  buckets: [0, 1, 10, 50, 100, 500, 1000, 5000, 20000],
  registers: [registry],
});

/**
 * Jobs of the cluster's scheduled chores this process took (src/chores/chores.ts), by chore and
 * outcome: `done`, `failed`, or `skipped` (another process ran it within half its interval). Summed
 * over every process, `done` counts each chore once per interval.
 */
export const choreRuns = new Counter({
  name: 'jobledger_chore_runs_total',
  help: 'Scheduled chore jobs this process took, by chore and outcome (done, failed, skipped: run elsewhere within half its interval).',
  labelNames: ['chore', 'outcome'] as const,
  registers: [registry],
});

/** API queries PostgreSQL cancelled at `JOBLEDGER_STATEMENT_TIMEOUT_MS` (answered 503 `timeout`). */
export const statementTimeouts = new Counter({
  name: 'jobledger_statement_timeouts_total',
  help: 'API statements cancelled by statement_timeout (each answered 503 timeout).',
  registers: [registry],
});

/** Record one crawl's report (crawl-worker.ts). */
export function observeCrawl(provider: string, report: { outcome: string; ms: number; counts?: { postings?: number } }): void {
  crawlDuration.observe({ provider, outcome: report.outcome }, report.ms / 1000);
  if (report.outcome === 'fetched' && report.counts?.postings !== undefined) crawlPostings.observe({ provider }, report.counts.postings);
}

let ledgerGauges: { db: Kysely<DB>; pools: Readonly<Record<string, pg.Pool | undefined>> } | undefined;

/**
 * Gauges read at scrape time from `pools` (this process's PostgreSQL pools by role: store/database.ts
 * `Database.pools`) and from the ledger through `db`: feed lag (age of the newest published change
 * event), report snapshot age, queued crawls. The last call wins (one ledger per process). A query
 * that fails leaves the gauge unset for that scrape.
 */
export function watchLedger(db: Kysely<DB>, pools: Readonly<Record<string, pg.Pool | undefined>>): void {
  ledgerGauges = { db, pools };
}

new Gauge({
  name: 'jobledger_db_pool_connections',
  help: "This process's PostgreSQL pools, by pool (main; generic: generic-plan reads; replica) and state (total, idle, waiting = requests queued for a connection).",
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    if (!ledgerGauges) return;
    for (const [name, pool] of Object.entries(ledgerGauges.pools)) {
      if (!pool) continue;
      this.set({ pool: name, state: 'total' }, pool.totalCount);
      this.set({ pool: name, state: 'idle' }, pool.idleCount);
      this.set({ pool: name, state: 'waiting' }, pool.waitingCount);
    }
  },
});

/**
 * A gauge read from the ledger at scrape time: `read` returns its samples (label values and value).
 * While no ledger is watched, or when the query fails, the scrape has no sample of it.
 */
function ledgerGauge<L extends string>(name: string, help: string, labelNames: readonly L[], read: (db: Kysely<DB>) => Promise<Array<{ labels: Partial<Record<L, string>>; value: number }>>): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      if (!ledgerGauges) return;
      this.reset();
      try {
        for (const sample of await read(ledgerGauges.db)) this.set(sample.labels, sample.value);
      } catch {
        // the ledger did not answer: no sample this scrape
      }
    },
  });
}

ledgerGauge('jobledger_feed_lag_seconds', 'Age of the newest published change event, in seconds (how far the change feed is behind now).', [], async (db) => {
  const age = await feedLagSeconds(db);
  return age === null ? [] : [{ labels: {}, value: age }];
});

ledgerGauge('jobledger_report_snapshot_age_seconds', 'Age of each report snapshot (freshness, coverage, stats...), in seconds.', ['report'], async (db) =>
  (await reportSnapshotAges(db)).map((r) => ({ labels: { report: r.name }, value: r.age })),
);

ledgerGauge('jobledger_queue_depth', 'Jobs waiting to be taken in each pg-boss queue (crawls: jobledger-crawl; chores: jobledger-chore-*).', ['queue'], async (db) =>
  (await queueDepths(db, PGBOSS_SCHEMA)).map((q) => ({ labels: { queue: q.queue }, value: q.waiting })),
);

/** Constant-time comparison of two tokens (hashed first so lengths never leak). */
function sameToken(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A running metrics listener. */
export interface MetricsServer {
  /** The bound port (useful when 0 was not asked for, e.g. tests that pick a free one). */
  port: number;
  close(): Promise<void>;
}

/**
 * Serve `GET /metrics` (Prometheus text format) on its own port, apart from the API, so it can stay
 * on a private network. With `token`, a request must carry `Authorization: Bearer <token>` (401
 * otherwise). Any other path answers 404.
 */
export async function startMetricsServer(options: { port: number; host: string; token?: string; log: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (options.token !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (!match || !sameToken(match[1]!, options.token)) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
        return;
      }
    }
    registry
      .metrics()
      .then((body) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : body))
      .catch((error: unknown) => {
        options.log.warn({ err: error }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  options.log.info({ port, token: options.token !== undefined }, 'metrics served at /metrics');
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
