/**
 * Workable connector: an account's public jobs widget API,
 * `GET {base}/api/v1/widget/accounts/{account}?details=true` (Workable help centre, "Embed your jobs
 * widget"; the same answer as `www.workable.com/api/accounts/{account}?details=true`), answering
 * `{"name": account name, "jobs": [...]}` with every published job of the account and, with
 * `details=true`, its description, in one answer. (The v3 `POST /api/v3/accounts/{account}/jobs` of
 * the hosted careers page pages by token and needs a request per job for the text; the widget answer
 * carries the same jobs in one request, and it is the one with a recording.)
 *
 * | Workable | SourcePosting |
 * |---|---|
 * | `shortcode` | `sourcePostingId` |
 * | `title` | `title` |
 * | top-level `name`, else target.companyName, else the account | `company.name` |
 * | `locations[]` {city, region, countryCode/country}, `hidden: true` ones left out | `locations[]` |
 * | first location's city, region, country joined by ", " (else `city`, `state`, `country`) | `location` |
 * | `telecommuting` true / false | `remoteFlag` 'remote' / 'not_remote' |
 * | `employment_type` | `employmentType`, raw ("Full-time") |
 * | `published_on` (YYYY-MM-DD) | `postedAt` = that date at 00:00:00Z (as USAJOBS dates) |
 * | `description` | `descriptionHtml` |
 * | `url` (else `shortlink`), `application_url` | `postingUrl`, `applyUrl` |
 * | `department`, `function` | `hints.department`, `hints.team` |
 *
 * No salary is given. Closure: the widget lists published jobs only and has no status field; the
 * source's own signal is the job's page (`url`) answering 404 or 410, which the pipeline's posting
 * probe checks for a job that left the list (closed `expired_upstream`); otherwise absence closes it
 * `not_seen` after the usual number of good crawls. Validators are sent back when the answer had them.
 */
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { companyOf, compact, documentBoardConnector, identifiedItem, isRecord, mapPostings, parseJson, text, trimBase } from './common.ts';
import { CrawlError } from '../connector.ts';

/** A calendar date (YYYY-MM-DD) as that day's first instant in UTC; undefined for anything else. */
function dateStart(value: unknown): string | undefined {
  const s = text(value)?.trim();
  if (s === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return undefined;
  const ms = Date.parse(`${s}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Map one Workable widget job; null when it has no shortcode or title. */
export function mapWorkableJob(item: unknown, target: CrawlTarget, accountName?: string): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['shortcode']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  const locations: SourceLocation[] = [];
  if (Array.isArray(job['locations'])) {
    for (const l of job['locations']) {
      if (!isRecord(l) || l['hidden'] === true) continue;
      const parts = [text(l['city']), text(l['region']), text(l['country'])].filter((p) => p !== undefined);
      const loc = compact<SourceLocation>({ text: parts.length > 0 ? parts.join(', ') : undefined, country: text(l['countryCode']) ?? text(l['country']), region: text(l['region']), city: text(l['city']) });
      if (Object.keys(loc).length > 0) locations.push(loc);
    }
  }
  if (locations.length === 0) {
    const parts = [text(job['city']), text(job['state']), text(job['country'])].filter((p) => p !== undefined);
    if (parts.length > 0) locations.push(compact<SourceLocation>({ text: parts.join(', '), country: text(job['country']), region: text(job['state']), city: text(job['city']) }));
  }
  const hints = compact({ department: text(job['department']), team: text(job['function']) });
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, accountName),
    location: locations[0]?.text,
    locations,
    remoteFlag: job['telecommuting'] === true ? 'remote' : job['telecommuting'] === false ? 'not_remote' : undefined,
    employmentType: text(job['employment_type']),
    postedAt: dateStart(job['published_on']),
    descriptionHtml: text(job['description']),
    applyUrl: text(job['application_url']),
    postingUrl: text(job['url']) ?? text(job['shortlink']),
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/**
 * Create the Workable connector.
 * @param baseUrl origin of the widget API, e.g. `https://apply.workable.com` (config `JOBLEDGER_WORKABLE_BASE_URL`).
 */
export function createWorkableConnector(baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  const boardUrl = (target: CrawlTarget): string => `${base}/api/v1/widget/accounts/${encodeURIComponent(target.board)}?details=true`;
  return documentBoardConnector({
    id: 'workable',
    boardUrl,
    /** @throws CrawlError `malformed` unless the answer is `{"jobs": [...]}`. */
    read(body, target) {
      const payload = parseJson(body, target);
      if (!isRecord(payload) || !Array.isArray(payload['jobs'])) throw new CrawlError('malformed', `${target.id}: expected an object with a "jobs" array`);
      const name = text(payload['name']);
      return mapPostings(payload['jobs'], (job) => mapWorkableJob(job, target, name));
    },
  });
}

/** The Workable connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'workable',
  provider: { label: 'Workable', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://apply.workable.com', description: 'Workable jobs widget API base URL.' },
  applyHosts: { atsAnyPath: ['apply.workable.com'] },
  replay: {
    pattern: /^\/api\/v1\/widget\/accounts\/([^/]+)\/?$/,
    notFound: { error: 'Not found' },
  },
  fixtures: { notice: 'README.md' },
  create: createWorkableConnector,
});
