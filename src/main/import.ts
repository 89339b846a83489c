/**
 * Running an import: crawl a set of targets through the real connectors with a progress display
 * (a bar on a terminal, periodic log lines otherwise) and a closing summary.
 */
import { SingleBar, Presets } from 'cli-progress';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CareerSiteConfig, FetchConfig, SourceBaseUrls, AgencyKeys } from '../config/config.ts';
import { createConnectors } from '../ingest/connectors/registry.ts';
import { createFetcher } from '../ingest/fetcher.ts';
import { currentFxRates } from '../ingest/fx-refresh.ts';
import { crawlTargets, type CrawlReport } from '../ingest/pipeline.ts';
import { createPostingProbe } from '../ingest/posting-probe.ts';
import type { AbsencePolicy } from '../domain/lifecycle.ts';
import { analyzeAfterBulkWrite } from '../store/ledger.ts';
import type { CrawlTargetRow, DB } from '../store/schema.ts';

export interface ImportSummary {
  targets: number;
  failed: number;
  notModified: number;
  /** Targets another process was crawling at the time (their crawl lease was held). */
  busy: number;
  postings: number;
  created: number;
  updated: number;
  unchanged: number;
  closed: number;
  seconds: number;
  /**
   * When any board failed or was skipped as busy: one line for the operator naming how many and why
   * (the holder of a busy board's lease). The `ingest` command prints it and exits 1.
   */
  unfinished?: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The operator's line about boards this import did not bring up to date, or undefined when there are none. */
function unfinishedLine(reports: CrawlReport[]): string | undefined {
  const failed = reports.filter((r) => r.outcome === 'failed');
  const busy = reports.filter((r) => r.outcome === 'busy');
  const parts: string[] = [];
  if (failed.length > 0) {
    const kinds = [...new Set(failed.map((r) => (r.outcome === 'failed' ? r.errorKind : '')))].join(', ');
    parts.push(`${plural(failed.length, 'board')} failed (${kinds}; nothing changed for them)`);
  }
  if (busy.length > 0) {
    const holders = [...new Set(busy.flatMap((r) => (r.outcome === 'busy' && r.holder ? [r.holder] : [])))];
    const until = busy.flatMap((r) => (r.outcome === 'busy' && r.until ? [r.until.getTime()] : []));
    const list = `${holders.slice(0, 3).join(', ')}${holders.length > 3 ? ', ...' : ''}`;
    const latest = until.length > 0 ? `, until ${new Date(Math.max(...until)).toISOString()} unless renewed` : '';
    parts.push(`${plural(busy.length, 'board')} skipped because another process is crawling them${holders.length > 0 ? ` (lease held by ${list}${latest})` : ''}`);
  }
  return parts.length > 0 ? `${parts.join('; ')}. Run the import again to bring them up to date.` : undefined;
}

function summarize(reports: CrawlReport[], seconds: number): ImportSummary {
  const summary: ImportSummary = { targets: reports.length, failed: 0, notModified: 0, busy: 0, postings: 0, created: 0, updated: 0, unchanged: 0, closed: 0, seconds };
  const unfinished = unfinishedLine(reports);
  if (unfinished) summary.unfinished = unfinished;
  for (const r of reports) {
    if (r.outcome === 'failed') summary.failed++;
    else if (r.outcome === 'busy') summary.busy++;
    else if (r.outcome === 'not_modified') {
      summary.notModified++;
      summary.closed += r.notSeen + r.probes.provedDead;
    } else {
      summary.postings += r.counts.postings;
      summary.created += r.counts.created;
      summary.updated += r.counts.updated;
      summary.unchanged += r.counts.unchanged;
      summary.closed += r.counts.closed + r.probes.provedDead;
    }
  }
  return summary;
}

/**
 * Crawl `targets` and report progress. Failed targets are logged and counted; they change nothing.
 * Salaries are converted with the newest stored ECB rates (`fx_rates`, issue #15 class 5), the bundled
 * history for any currency never fetched.
 */
export async function runImport(
  db: Kysely<DB>,
  log: Logger,
  targets: CrawlTargetRow[],
  sources: { fetch: FetchConfig; baseUrls: SourceBaseUrls; pageUrl?: (postingUrl: string) => string },
  lifecycle: { absence: AbsencePolicy; probeLimit: number; careerSite?: CareerSiteConfig; agencyKeys?: AgencyKeys },
): Promise<ImportSummary> {
  const started = Date.now();
  const fetcher = createFetcher(sources.fetch, log.child({ component: 'fetcher' }));
  const deps = {
    db,
    connectors: createConnectors(sources.baseUrls, lifecycle.careerSite, lifecycle.agencyKeys),
    fetcher,
    // The rates the worker's scheduled ECB fetch stored (fx_rates), the bundled history where none are.
    fx: await currentFxRates(db),
    log: log.child({ component: 'ingest' }).child({}, { level: 'warn' }),
    absence: lifecycle.absence,
    probe: lifecycle.probeLimit > 0 ? createPostingProbe(fetcher, { rewrite: sources.pageUrl }) : undefined,
    probeLimit: lifecycle.probeLimit,
  };

  const bar = process.stderr.isTTY ? new SingleBar({ format: 'importing {bar} {value}/{total} boards | {rows} rows | {board}', hideCursor: true, stream: process.stderr }, Presets.shades_classic) : undefined;
  let rows = 0;
  let lastLogged = 0;
  bar?.start(targets.length, 0, { rows, board: '' });
  const reports = await crawlTargets(deps, targets, {
    concurrency: 4,
    onProgress: (report, done, total) => {
      if (report.outcome === 'fetched') rows += report.counts.postings;
      if (report.outcome === 'failed') log.warn({ target: report.targetId, errorKind: report.errorKind, error: report.error }, 'board failed; nothing changed for it');
      if (report.outcome === 'busy') log.warn({ target: report.targetId, holder: report.holder, until: report.until }, 'board is being crawled by another process; skipped');
      if (bar) bar.update(done, { rows, board: report.targetId });
      else if (done === total || done - lastLogged >= Math.max(1, Math.ceil(total / 10))) {
        lastLogged = done;
        log.info({ done, total, rows }, 'import progress');
      }
    },
  });
  bar?.stop();
  await fetcher.close();
  const summary = summarize(reports, Math.round((Date.now() - started) / 100) / 10);
  log.info(summary, 'import finished');
  // After a bulk import the next crawl (the worker's, or the next ingest) would plan on statistics
  // from before it until autovacuum comes round; a failure here only leaves that to autovacuum.
  const analyzing = Date.now();
  try {
    const tables = await analyzeAfterBulkWrite(db);
    if (tables.length > 0) log.info({ tables, ms: Date.now() - analyzing }, 'planner statistics refreshed after the import');
  } catch (error) {
    log.warn({ err: error }, 'could not refresh the planner statistics after the import; autovacuum will');
  }
  return summary;
}
