/**
 * The periodic refresh of report snapshots while no separate worker runs it: `serve` starts one
 * timer; each tick measures every report once (ticks never overlap). This is the worker's job in the
 * architecture guide; the timer exists so a single `jobledger serve` keeps its reports fresh.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../store/schema.ts';
import { refreshReports, type ReportSettings } from './snapshots.ts';

export interface ReportRefresher {
  /** Stop the timer and wait for a running refresh to finish. */
  stop(): Promise<void>;
}

/** Refresh now, then every `settings.refreshSeconds`. Failures are logged and retried on the next tick. */
export function startReportRefresher(db: Kysely<DB>, log: Logger, settings: ReportSettings): ReportRefresher {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = refreshReports(db, new Date(), settings)
      .then((took) => log.debug({ took }, 'report snapshots refreshed'))
      .catch((error: unknown) => log.warn({ err: error }, 'report refresh failed; the previous snapshots stay'))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, settings.refreshSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
