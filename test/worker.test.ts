/**
 * The crawl worker (issue: "Each crawl target is a job in pg-boss with its own interval; ... bounded
 * concurrency per host, and several workers never crawl the same target at once"): two real workers
 * (pg-boss on the test database) against the loopback replay server, first in this process, then as
 * two `jobledger worker` processes (issue 20's scale-out test), each counting its crawls on /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawlWorker, type CrawlWorker } from '../src/ingest/crawl-worker.ts';
import { crawlTarget, loadProviders, type CrawlReport } from '../src/ingest/pipeline.ts';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { outcomes, replayPipeline, type ReplayPipeline } from './helpers/corpus.ts';
import { startCli, type CliProcess } from './helpers/cli-process.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

const BOARDS = ['cursor', 'n8n', 'supabase', 'zapier', 'padlet', 'voize'];
const PER_HOST = 2;
const SLOW_MS = 400;

describe('the crawl worker', () => {
  let t: TestDatabase;
  let pipeline: ReplayPipeline;
  let targets: CrawlTargetRow[];
  const workers: CrawlWorker[] = [];

  beforeAll(async () => {
    t = await createTestDatabase({ maxConnections: 16 });
    pipeline = await replayPipeline(t.db, { retries: 0 });
    targets = pipeline.targets.filter((x) => x.provider_id === 'ashby' && BOARDS.includes(x.board));
    expect(targets).toHaveLength(BOARDS.length);
    // Only these targets are enabled; every board answers slowly so crawls overlap in time.
    await t.db.updateTable('crawl_targets').set({ enabled: false }).where('id', 'not in', targets.map((x) => x.id)).execute();
    for (const board of BOARDS) {
      pipeline.replay.override(`/posting-api/job-board/${board}`, { status: 200, body: JSON.stringify({ jobs: [], apiVersion: '1' }), delayMs: SLOW_MS });
    }
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await pipeline.close();
    await t.drop();
  });

  it('lets only one process hold a target: a second crawl of the same target at the same time does nothing', async () => {
    const providers = await loadProviders(t.db);
    const target = targets[0]!;
    const [a, b] = await Promise.all([
      crawlTarget({ ...pipeline.deps, leaseOwner: 'process-a' }, providers, target),
      crawlTarget({ ...pipeline.deps, leaseOwner: 'process-b' }, providers, target),
    ]);
    expect([a!.outcome, b!.outcome].sort()).toEqual(['busy', 'fetched']);
    const lease = await t.db.selectFrom('crawl_targets').select(['lease_owner', 'lease_expires_at']).where('id', '=', target.id).executeTakeFirstOrThrow();
    expect(lease).toEqual({ lease_owner: null, lease_expires_at: null });
    // Make it due again for the workers.
    await t.db.updateTable('crawl_targets').set({ last_attempt_at: null }).execute();
    await t.db.deleteFrom('crawl_runs').execute();
  });

  it('two workers crawl every due target exactly once, at most two at a time per host', async () => {
    const reports: Array<CrawlReport & { worker: string }> = [];
    for (const name of ['worker-1', 'worker-2']) {
      workers.push(
        await startCrawlWorker({
          connectionString: t.url,
          deps: { ...pipeline.deps, leaseOwner: name },
          concurrency: 3,
          perHost: PER_HOST,
          tickSeconds: 0,
          pollingSeconds: 0.5,
          onReport: (r) => reports.push({ ...r, worker: name }),
        }),
      );
    }
    pipeline.replay.requests.length = 0;
    pipeline.replay.resetPeakInFlight();
    // Both workers run their scheduling passes at once, twice: each target is queued once.
    const first = await Promise.all([workers[0]!.tick(), workers[1]!.tick()]);
    const second = await Promise.all([workers[0]!.tick(), workers[1]!.tick()]);
    expect([...first, ...second].reduce((n, x) => n + x.queued, 0)).toBe(BOARDS.length);

    for (let i = 0; reports.length < BOARDS.length; i++) {
      expect(i, `only ${reports.length} crawls finished`).toBeLessThan(300);
      // Passes while crawls run queue nothing new: running targets are leased, finished ones not due.
      const again = await Promise.all([workers[0]!.tick(), workers[1]!.tick()]);
      expect(again.reduce((n, x) => n + x.queued, 0)).toBe(0);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(outcomes(reports)).toEqual(BOARDS.map(() => 'fetched'));
    expect(new Set(reports.map((r) => r.targetId))).toEqual(new Set(targets.map((x) => x.id)));

    // Exactly one request per board reached the source, and one crawl run per target was recorded.
    const boardRequests = pipeline.replay.requests.filter((r) => r.path.startsWith('/posting-api/job-board/'));
    expect(boardRequests.map((r) => r.path.split('?')[0]).sort()).toEqual(BOARDS.map((b) => `/posting-api/job-board/${b}`).sort());
    const runs = await t.db.selectFrom('crawl_runs').select(['target_id', 'started_at', 'finished_at']).execute();
    expect(runs.map((r) => r.target_id).sort()).toEqual(targets.map((x) => x.id).sort());

    // All boards live on one host (the replay server): it never had more than PER_HOST of the workers'
    // requests in flight at once (each answered after SLOW_MS), though both workers crawled at once.
    expect(pipeline.replay.peakInFlight).toBeLessThanOrEqual(PER_HOST);
    expect(pipeline.replay.peakInFlight).toBeGreaterThanOrEqual(1);
    expect(new Set(reports.map((r) => r.worker)).size).toBe(2);
    // Targets just crawled are not due again before their interval.
    const after = await Promise.all(workers.map((w) => w.tick()));
    expect(after.map((x) => x.due)).toEqual([0, 0]);
  });

  it('two worker processes crawl every due target exactly once, and each /metrics counts the crawls it ran', async () => {
    for (const w of workers.splice(0)) await w.stop();
    await t.db.updateTable('crawl_targets').set({ last_attempt_at: null }).execute();
    await t.db.deleteFrom('crawl_runs').execute();
    pipeline.replay.requests.length = 0;
    pipeline.replay.resetPeakInFlight();
    const token = 'worker-metrics-token-0123456789';
    const ports = [await freePort(), await freePort()];
    const processes: CliProcess[] = ports.map((port) =>
      startCli(['worker'], {
        DATABASE_URL: t.url,
        LOG_LEVEL: 'warn',
        JOBLEDGER_ASHBY_BASE_URL: pipeline.replay.baseUrls.ashby,
        JOBLEDGER_FETCH_ALLOW: '127.0.0.1/32',
        JOBLEDGER_FETCH_RETRIES: '0',
        JOBLEDGER_WORKER_TICK_SECONDS: '1',
        JOBLEDGER_WORKER_PER_HOST: String(PER_HOST),
        JOBLEDGER_METRICS_PORT: String(port),
        JOBLEDGER_METRICS_TOKEN: token,
        HOST: '127.0.0.1',
      }),
    );
    const crawlsBy = async (port: number): Promise<number> => {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text(), () => '');
      return text
        .split('\n')
        .filter((l) => l.startsWith('jobledger_crawl_duration_seconds_count{'))
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    };
    try {
      for (let i = 0; ; i++) {
        const { n } = await t.db.selectFrom('crawl_runs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        if (Number(n) >= BOARDS.length) break;
        const ended = processes.find((p) => p.child.exitCode !== null);
        if (ended) throw new Error(`a worker exited:\n${ended.output()}`);
        expect(i, `only ${n} crawls ran:\n${processes.map((p) => p.output()).join('\n')}`).toBeLessThan(600);
        await new Promise((r) => setTimeout(r, 100));
      }
      // A few more scheduling passes of both: nothing is crawled twice.
      await new Promise((r) => setTimeout(r, 2500));
      const runs = await t.db.selectFrom('crawl_runs').select('target_id').execute();
      expect(runs.map((r) => r.target_id).sort()).toEqual(targets.map((x) => x.id).sort());
      const boardRequests = pipeline.replay.requests.filter((r) => r.path.startsWith('/posting-api/job-board/'));
      expect(boardRequests.map((r) => r.path.split('?')[0]).sort()).toEqual(BOARDS.map((b) => `/posting-api/job-board/${b}`).sort());
      // The per-host bound holds across the two processes (their slots are PostgreSQL advisory locks).
      expect(pipeline.replay.peakInFlight).toBeLessThanOrEqual(PER_HOST);
      // Each process's /metrics counts the crawls it ran; together, every crawl once.
      const counted = await Promise.all(ports.map(crawlsBy));
      expect(counted[0]! + counted[1]!).toBe(BOARDS.length);
    } finally {
      for (const p of processes) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.exited));
    }
  }, 120_000);
});
