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
import { compact, finite, identifiedItem, isoFromEpochMs, jobBoardFeed, salaryOf, text, textList } from './common.ts';

function epochSeconds(value: unknown): string | undefined {
  const s = finite(value);
  return s === undefined ? undefined : isoFromEpochMs(s * 1000);
}

function himalayasSalary(job: Record<string, unknown>): SourceSalary | undefined {
  const period = text(job['salaryPeriod'])?.trim().toLowerCase();
  const known = period && (SALARY_PERIODS as readonly string[]).includes(period) ? (period as SalaryPeriod) : null;
  return salaryOf(job['minSalary'], job['maxSalary'], job['currency'], known);
}

/** Map one Himalayas job; null when it has no id or title. */
export function mapHimalayasJob(item: unknown): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['guid']) ?? text(r['applicationLink']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  const restrictions = textList(job['locationRestrictions']);
  const locations: SourceLocation[] = restrictions.map((country) => ({ country }));
  const parents = textList(job['parentCategories']);
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
    salary: himalayasSalary(job),
    applyUrl: text(job['applicationLink']),
    postingUrl: text(job['applicationLink']),
    hints: parents[0] ? { department: parents[0] } : undefined,
  });
}

/** The Himalayas connector's descriptor (connectors/registry.ts). */
export const descriptor = jobBoardFeed({
  id: 'himalayas',
  label: 'Himalayas',
  origin: 'https://himalayas.app',
  path: '/jobs/api',
  listKey: 'jobs',
  map: mapHimalayasJob,
  replay: { file: 'jobs', notFound: { error: 'not found' } },
});
