/**
 * Scheduled chores, once per cluster (issue 20): periodic tasks that every `serve` and `worker` process
 * used to run on its own timer (so twenty API processes computed the same report twenty times) are
 * pg-boss schedules instead. Each chore is one pg-boss queue with the `singleton` policy (at most one
 * job of it active in the whole cluster) and one schedule (`boss.schedule`: the cron pass is claimed by
 * one instance at a time, so each occurrence is sent once however many processes run). Every process
 * that starts the chores also works their queues; pg-boss hands each job to exactly one of them, and the
 * results are shared rows (report snapshots, deleted history), which every process serves.
 *
 * On start each process also sends one job per chore, throttled by pg-boss to one per chore and
 * interval (`singletonKey` + `singletonSeconds`), so a fresh cluster has its snapshots at once instead
 * of after the first cron occurrence, and a rolling restart does not recompute them.
 *
 * pg-boss's guarantees stop at its jobs: the start-up jobs and the cron job are separate jobs, and two
 * start-up sends can straddle a throttle slot, so two jobs of one chore may run minutes apart. Before
 * running, each job therefore claims the chore in `chore_runs` ({@link claimChoreRun}); a job that
 * arrives within half the chore's interval of the last claimed start does nothing.
 */
import type { Kysely } from 'kysely';
import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Fetcher } from '../ingest/fetcher.ts';
import { refreshFxRates } from '../ingest/fx-refresh.ts';
import { choreRuns } from '../observability/metrics.ts';
import { claimChoreRun } from '../store/chore-runs.ts';
import { verifyWebsites } from '../ingest/website-verifier.ts';
import { FACETS_MAX_AGE_SECONDS, refreshFacetSnapshot } from '../reports/facets.ts';
import { refreshReports, type ReportSettings } from '../reports/snapshots.ts';
import { applyRetention } from '../store/retention.ts';
import type { DB } from '../store/schema.ts';
import { PGBOSS_SCHEMA } from '../store/operations.ts';

/** One periodic task. */
export interface Chore {
  /** Stable name; the queue is `jobledger-chore-<name>`. */
  name: string;
  /** Seconds between runs; rounded to a cron expression by {@link cronEvery}. */
  everySeconds: number;
  /** Longest a run may take before pg-boss expires it, seconds. */
  expireSeconds?: number;
  /** Do the work once; what it returns is logged at debug level. */
  run(now: Date): Promise<unknown>;
}

export interface RunningChores {
  /** Stop working the queues (a running chore finishes first). */
  stop(): Promise<void>;
}

/** The pg-boss queue of a chore. */
export function choreQueue(name: string): string {
  return `jobledger-chore-${name}`;
}

/**
 * A cron expression that fires about every `seconds` (cron's unit is the minute): every m minutes
 * below an hour, every h hours below a day, else daily at midnight UTC.
 */
export function cronEvery(seconds: number): string {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return `*/${minutes} * * * *`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `0 */${hours} * * *`;
  return '0 0 * * *';
}

/**
 * Schedule `chores` in the cluster and work them in this process.
 * @throws when pg-boss cannot start (database unreachable).
 */
export async function startChores(options: { connectionString: string; db: Kysely<DB>; log: Logger; chores: Chore[]; applicationName: string }): Promise<RunningChores> {
  const log = options.log.child({ component: 'chores' });
  const boss = new PgBoss({ connectionString: options.connectionString, schema: PGBOSS_SCHEMA, application_name: options.applicationName, max: 2, schedule: true });
  boss.on('error', (error: unknown) => log.error({ err: error }, 'chore queue error'));
  await boss.start();
  try {
    for (const chore of options.chores) {
      const queue = choreQueue(chore.name);
      await boss.createQueue(queue, { policy: 'singleton', retryLimit: 0, expireInSeconds: chore.expireSeconds ?? 3600 });
      await boss.schedule(queue, cronEvery(chore.everySeconds), {}, { tz: 'UTC' });
      // Sent before this process works the queue, so its first fetch takes it without waiting a poll.
      await boss.send(queue, {}, { singletonKey: chore.name, singletonSeconds: Math.max(60, Math.round(chore.everySeconds)) });
      await boss.work(queue, { pollingIntervalSeconds: 5 }, async () => {
        const started = performance.now();
        try {
          const now = new Date();
          if (!(await claimChoreRun(options.db, chore.name, now, chore.everySeconds / 2))) {
            log.debug({ chore: chore.name }, 'chore skipped: it started elsewhere within half its interval');
            choreRuns.inc({ chore: chore.name, outcome: 'skipped' });
            return;
          }
          const result = await chore.run(now);
          log.debug({ chore: chore.name, ms: Math.round(performance.now() - started), result }, 'chore done');
          choreRuns.inc({ chore: chore.name, outcome: 'done' });
        } catch (error) {
          // Logged, not retried: the next occurrence runs it again.
          log.warn({ err: error, chore: chore.name }, 'chore failed; it runs again at its next occurrence');
          choreRuns.inc({ chore: chore.name, outcome: 'failed' });
        }
      });
    }
  } catch (error) {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    throw error;
  }
  log.info({ chores: options.chores.map((c) => c.name) }, 'scheduled chores');
  return {
    async stop() {
      await boss.stop({ graceful: true, timeout: 30_000, close: true });
    },
  };
}

/** Seconds between retention passes: hourly keeps each pass's batches few. */
export const RETENTION_EVERY_SECONDS = 3600;
/** Seconds between website-verification passes (each checks at most 100 companies due for it). */
export const WEBSITES_EVERY_SECONDS = 86_400;
/** Seconds between submission sweeps: hourly, as reminders and lapses are due by the day (docs/submissions.md). */
export const SUBMISSIONS_EVERY_SECONDS = 3600;

/**
 * The cluster's chores over `db`: the report snapshots (every `reports.refreshSeconds`), the facet
 * snapshot (every {@link FACETS_MAX_AGE_SECONDS}), retention
 * (hourly) and, when their parts are given: website verification (daily; a fetcher for real sources,
 * never the demo's), the ECB rate fetch (every `fx.everySeconds`; `JOBLEDGER_FX_FETCH` on) and the
 * direct submissions' reminders and lapses (hourly; processes that have the mailer, i.e. `serve`).
 */
export function clusterChores(o: {
  db: Kysely<DB>;
  reports: ReportSettings;
  retention: { changeEventDays: number; crawlRunDays: number };
  websites?: { fetcher: Fetcher; log: Logger };
  fx?: { fetcher: Fetcher; url: string; everySeconds: number; log: Logger };
  submissions?: { sweep(now: Date): Promise<unknown> };
}): Chore[] {
  const chores: Chore[] = [
    { name: 'report-snapshots', everySeconds: o.reports.refreshSeconds, run: (now) => refreshReports(o.db, now, o.reports) },
    { name: 'facet-snapshot', everySeconds: FACETS_MAX_AGE_SECONDS, run: async (now) => (await refreshFacetSnapshot(o.db, now)).value.liveListings },
    { name: 'retention', everySeconds: RETENTION_EVERY_SECONDS, run: (now) => applyRetention(o.db, now, o.retention) },
  ];
  const { websites, fx, submissions } = o;
  if (websites) {
    chores.push({
      name: 'website-verification',
      everySeconds: WEBSITES_EVERY_SECONDS,
      run: async (now) => (await verifyWebsites(o.db, websites.fetcher, { now, log: websites.log })).length,
    });
  }
  if (fx) {
    chores.push({
      name: 'fx-refresh',
      everySeconds: fx.everySeconds,
      run: async (now) => {
        const outcome = await refreshFxRates(o.db, fx.fetcher, fx.url, fx.log, now);
        return outcome.ok ? { days: outcome.days, inserted: outcome.inserted, rates_as_of: outcome.rates.asOf } : outcome;
      },
    });
  }
  if (submissions) chores.push({ name: 'submission-reminders', everySeconds: SUBMISSIONS_EVERY_SECONDS, run: (now) => submissions.sweep(now) });
  return chores;
}
