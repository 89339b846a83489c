/**
 * Himalayas connector: the job board's public API, `GET {base}/jobs/api` → `{"jobs": [...], "offset",
 * "limit", "totalCount", ...}` (himalayas.app/api; shape as in the reference sample
 * `ats-samples/himalayas.json`). One page is read: the feed is discovery-only, its rows are never
 * served (provider `himalayas`, migration 007), so completeness of the listing does not matter.
 *
 * | Himalayas | SourcePosting |
 * |---|---|
 * | `guid` (else `applicationLink`) | `sourcePostingId` |
 * | `title` | `title` |
 * | `companyName`, `companyLogo` | `company` |
 * | `locationRestrictions[]` | `locations[].country`, joined as `location` |
 * | — (the board lists remote jobs only) | `remoteFlag` 'remote' |
 * | `employmentType` | `employmentType`, raw |
 * | `pubDate`, `expiryDate` (epoch seconds) | `postedAt`, `closesAt` |
 * | `description` | `descriptionHtml` |
 * | `minSalary`, `maxSalary`, `currency`, `salaryPeriod` | `salary` (period annual, monthly, weekly, daily, hourly; else null) |
 * | `applicationLink` | `applyUrl`, `postingUrl` (the board's own page) |
 * | `parentCategories[0]` | `hints.department` |
 */
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { SALARY_PERIODS, type SalaryPeriod } from '../../domain/vocabulary.ts';
import { defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { boardList, compact, fetchBoard, fetched, finite, isoFromEpochMs, isRecord, mapPostings, text, trimBase } from './common.ts';

function epochSeconds(value: unknown): string | undefined {
  const s = finite(value);
  return s === undefined ? undefined : isoFromEpochMs(s * 1000);
}

function salaryOf(job: Record<string, unknown>): SourceSalary | undefined {
  const min = finite(job['minSalary']);
  const max = finite(job['maxSalary']);
  if (min === undefined && max === undefined) return undefined;
  const period = text(job['salaryPeriod'])?.trim().toLowerCase();
  return compact<SourceSalary>({
    min,
    max,
    currency: text(job['currency'])?.trim().toUpperCase(),
    period: period && (SALARY_PERIODS as readonly string[]).includes(period) ? (period as SalaryPeriod) : null,
  });
}

/** Map one Himalayas job; null when it has no id or title. */
export function mapHimalayasJob(job: unknown): SourcePosting | null {
  if (!isRecord(job)) return null;
  const id = text(job['guid']) ?? text(job['applicationLink']);
  const title = text(job['title']);
  if (id === undefined || title === undefined) return null;
  const restrictions = Array.isArray(job['locationRestrictions']) ? job['locationRestrictions'].map(text).filter((c): c is string => c !== undefined) : [];
  const locations: SourceLocation[] = restrictions.map((country) => ({ country }));
  const parents = Array.isArray(job['parentCategories']) ? job['parentCategories'].map(text).filter((c): c is string => c !== undefined) : [];
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: compact({ name: text(job['companyName']) ?? 'Unknown', logoUrl: text(job['companyLogo']) }),
    location: restrictions.length > 0 ? restrictions.join(', ') : undefined,
    locations,
    remoteFlag: 'remote',
    employmentType: text(job['employmentType']),
    postedAt: epochSeconds(job['pubDate']),
    closesAt: epochSeconds(job['expiryDate']),
    descriptionHtml: text(job['description']),
    salary: salaryOf(job),
    applyUrl: text(job['applicationLink']),
    postingUrl: text(job['applicationLink']),
    hints: parents[0] ? { department: parents[0] } : undefined,
  });
}

/**
 * Create the Himalayas connector.
 * @param baseUrl API origin, e.g. `https://himalayas.app` (config `JOBLEDGER_HIMALAYAS_BASE_URL`).
 */
export function createHimalayasConnector(baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  const boardUrl = (): string => `${base}/jobs/api`;
  return {
    id: 'himalayas',
    boardUrl,
    /** @throws CrawlError: fetch failures by kind; `malformed` unless the answer is `{"jobs": [...]}`. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      const answer = await fetchBoard(fetcher, boardUrl(), target);
      if (answer.kind === 'not_modified') return answer;
      return fetched(mapPostings(boardList(answer.body, target, 'jobs'), mapHimalayasJob), answer);
    },
  };
}

/** The Himalayas connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'himalayas',
  provider: { label: 'Himalayas', providerClass: 'aggregator', sourceType: 'aggregator', redistributable: false, discoveryOnly: true },
  baseUrl: {
    env: 'JOBLEDGER_HIMALAYAS_BASE_URL',
    default: 'https://himalayas.app',
    description: 'Himalayas job-board API base URL (discovery only: its rows are never served).',
  },
  applyHosts: {},
  replay: {
    pattern: /^\/jobs\/api\/?$/,
    file: 'jobs',
    notFound: { error: 'not found' },
  },
  fixtures: { notice: 'README.md' },
  create: createHimalayasConnector,
});
