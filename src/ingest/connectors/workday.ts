/**
 * Workday connector: a tenant's public career-site API ("CXS", what `{tenant}.wdN.myworkdayjobs.com/{site}`
 * itself calls; no public reference page exists, the shapes follow the recorded GDIT answers in
 * fixtures/workday): `POST https://{host}/wday/cxs/{tenant}/{site}/jobs` with
 * `{"appliedFacets": {}, "limit": 20, "offset": n, "searchText": ""}` answers
 * `{total, jobPostings: [{title, externalPath, locationsText, postedOn, bulletFields}], facets}` a page at
 * a time, and `GET https://{host}/wday/cxs/{tenant}/{site}{externalPath}` each posting's details
 * `{jobPostingInfo: {...}, hiringOrganization: {name}}`.
 *
 * The board is `{host}/{tenant}/{site}`, e.g. `gdit.wd5.myworkdayjobs.com/gdit/External_Career_Site`;
 * the host must be a Workday career host (`*.myworkdayjobs.com`, `*.myworkdaysite.com`). Paging: pages
 * of 20 by `offset` until a page is short or empty or the first page's `total` was reached (later
 * pages of the real API report `total: 0`, so only the first one is believed).
 *
 * | Workday | SourcePosting |
 * |---|---|
 * | `jobPostingInfo.jobPostingId`, else the last segment of `externalPath` | `sourcePostingId` |
 * | `jobPostingInfo.title`, else the list's `title` | `title` |
 * | `hiringOrganization.name`, else target.companyName, else the tenant | `company.name` |
 * | `jobPostingInfo.location`, else `locationsText` | `location`, `locations[0].text` |
 * | `jobPostingInfo.jobRequisitionLocation.country.alpha2Code`, else `country.descriptor` | `locations[0].country` |
 * | `jobPostingInfo.additionalLocations[]` | further `locations[].text` |
 * | `jobPostingInfo.remoteType` Remote / Hybrid / On-site (when the tenant has it) | `remoteFlag` |
 * | `jobPostingInfo.timeType` | `employmentType`, raw ("Full time") |
 * | `jobPostingInfo.startDate` (YYYY-MM-DD, the posting's start) | `postedAt` = that date at 00:00:00Z (the relative `postedOn`, "Posted 8 Days Ago", is not used) |
 * | `jobPostingInfo.endDate` (YYYY-MM-DD, when the tenant sets one) | `closesAt` = that date at 23:59:59Z |
 * | `jobPostingInfo.jobDescription` | `descriptionHtml` |
 * | `jobPostingInfo.externalUrl` | `postingUrl` and `applyUrl` (the page holds the Apply button) |
 *
 * No salary is read (Workday states pay, where at all, inside the description). Closure signals of the
 * source: a listed posting whose details answer 404/410 or say `posted: false` is returned in `gone`
 * (closed `expired_upstream`); a passed `endDate` closes it too. The search is a POST, which HTTP
 * caches do not validate: every crawl reads every page, and unchanged postings change no row.
 */
import type { Remote } from '../../domain/vocabulary.ts';
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { companyOf, compact, fetchJson, finite, isRecord, mapPostings, readDetails, text, trimBase } from './common.ts';

/** Postings per search page (the career site's own page size and the API's maximum). */
export const WORKDAY_PAGE = 20;
/** Most pages per crawl (4,000 postings). */
const MAX_PAGES = 200;
const WORKDAY_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*\.(myworkdayjobs\.com|myworkdaysite\.com)$/i;
const NAME = /^[A-Za-z0-9_-]+$/;
const REMOTE: Readonly<Record<string, Remote>> = { remote: 'remote', hybrid: 'hybrid', 'on-site': 'on_site', onsite: 'on_site' };

/** The parts of a Workday board `{host}/{tenant}/{site}`. @throws CrawlError('blocked') for any other board. */
export function workdayBoard(target: CrawlTarget): { host: string; tenant: string; site: string } {
  const [host, tenant, site, ...rest] = target.board.split('/');
  if (!host || !tenant || !site || rest.length > 0 || !WORKDAY_HOST.test(host) || !NAME.test(tenant) || !NAME.test(site)) {
    throw new CrawlError('blocked', `${target.id}: a Workday board is {host}/{tenant}/{site} on a myworkdayjobs.com or myworkdaysite.com host`);
  }
  return { host: host.toLowerCase(), tenant, site };
}

function dateAt(value: unknown, time: string): string | undefined {
  const s = text(value)?.trim();
  if (s === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return undefined;
  const ms = Date.parse(`${s}T${time}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Map one posting: its list item and its details (`{jobPostingInfo, hiringOrganization}`); null without id or title. */
export function mapWorkdayPosting(item: Record<string, unknown>, details: Record<string, unknown>, target: CrawlTarget, tenant: string): SourcePosting | null {
  const info = isRecord(details['jobPostingInfo']) ? details['jobPostingInfo'] : {};
  const path = text(item['externalPath']);
  const id = text(info['jobPostingId']) ?? path?.split('/').filter(Boolean).pop();
  const title = text(info['title']) ?? text(item['title']);
  if (id === undefined || title === undefined) return null;
  const where = text(info['location']) ?? text(item['locationsText']);
  const requisition = isRecord(info['jobRequisitionLocation']) ? info['jobRequisitionLocation'] : {};
  const country = (isRecord(requisition['country']) ? text(requisition['country']['alpha2Code']) : undefined) ?? (isRecord(info['country']) ? text(info['country']['descriptor']) : undefined);
  const locations: SourceLocation[] = where !== undefined || country !== undefined ? [compact<SourceLocation>({ text: where, country })] : [];
  if (Array.isArray(info['additionalLocations'])) for (const l of info['additionalLocations']) if (text(l) !== undefined && !locations.some((x) => x.text === l)) locations.push({ text: l as string });
  const org = isRecord(details['hiringOrganization']) ? text(details['hiringOrganization']['name']) : undefined;
  const remote = text(info['remoteType'])?.trim().toLowerCase();
  const url = text(info['externalUrl']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: org !== undefined ? companyOf(target, org) : companyOf({ ...target, board: tenant }),
    location: where,
    locations,
    remoteFlag: remote !== undefined ? REMOTE[remote] : undefined,
    employmentType: text(info['timeType']),
    postedAt: dateAt(info['startDate'], '00:00:00'),
    closesAt: dateAt(info['endDate'], '23:59:59'),
    descriptionHtml: text(info['jobDescription']),
    applyUrl: url,
    postingUrl: url,
  });
}

/**
 * Create the Workday connector.
 * @param baseUrl URL template with `{host}`, e.g. `https://{host}` (config `JOBLEDGER_WORKDAY_BASE_URL`).
 */
export function createWorkdayConnector(baseUrl: string): Connector {
  const siteUrl = (target: CrawlTarget): string => {
    const { host, tenant, site } = workdayBoard(target);
    return `${trimBase(baseUrl).replaceAll('{host}', host)}/wday/cxs/${tenant}/${site}`;
  };
  const boardUrl = (target: CrawlTarget): string => `${siteUrl(target)}/jobs`;
  return {
    id: 'workday',
    boardUrl,
    /** @throws CrawlError: fetch failures by kind; `malformed` for a page or details that are not the API's objects. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      const { tenant } = workdayBoard(target);
      const items: Record<string, unknown>[] = [];
      let total = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const offset = page * WORKDAY_PAGE;
        const answer = await fetchJson(fetcher, boardUrl(target), target, { post: { appliedFacets: {}, limit: WORKDAY_PAGE, offset, searchText: '' } });
        const json = answer.json;
        if (!isRecord(json) || !Array.isArray(json['jobPostings'])) throw new CrawlError('malformed', `${target.id}: page at offset ${offset} is not {total, jobPostings: [...]}`);
        if (page === 0) {
          const first = finite(json['total']);
          if (first === undefined) throw new CrawlError('malformed', `${target.id}: the first page states no total`);
          total = first;
        }
        const postings = json['jobPostings'] as unknown[];
        for (const p of postings) items.push(isRecord(p) ? p : { junk: p });
        if (postings.length < WORKDAY_PAGE || offset + WORKDAY_PAGE >= total) break;
      }

      const { read: pairs, gone } = await readDetails(items, async (item, goneId) => {
        const path = text(item['externalPath']);
        if (path === undefined || !path.startsWith('/job/')) return { item, details: {} };
        const details = await fetchJson(fetcher, `${siteUrl(target)}${path.split('/').map(encodeURIComponent).join('/')}`, target, { acceptStatuses: [404, 410] });
        const info = isRecord(details.json) && isRecord(details.json['jobPostingInfo']) ? details.json['jobPostingInfo'] : undefined;
        if (details.status === 404 || details.status === 410 || info?.['posted'] === false) {
          goneId(text(info?.['jobPostingId']) ?? path.split('/').filter(Boolean).pop()!);
          return undefined;
        }
        if (info === undefined) throw new CrawlError('malformed', `${target.id}: details of ${path} carry no jobPostingInfo`);
        return { item, details: details.json as Record<string, unknown> };
      });
      const result = mapPostings(pairs, (pair) => {
        const { item, details } = pair as { item: Record<string, unknown>; details: Record<string, unknown> };
        return mapWorkdayPosting(item, details, target, tenant);
      });
      return compact({ kind: 'fetched' as const, ...result, gone });
    },
  };
}

/** The Workday connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'workday',
  provider: { label: 'Workday', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: {
    env: 'JOBLEDGER_WORKDAY_BASE_URL',
    default: 'https://{host}',
    description: "Workday career-site API URL template; {host} is the board's tenant host.",
  },
  applyHosts: { atsSubdomain: ['myworkdayjobs.com', 'myworkdaysite.com'] },
  replay: {
    pattern: /^\/workday\/([^/]+)\/wday\/cxs\/([^/]+)\/([^/]+)\/(jobs|job\/.+)$/,
    // fixtures/workday/<host>/<tenant>/<site>/jobs.json is the first page (jobs.offset-<n>.json a later
    // one), <host>/<tenant>/<site>/job/<...>.json a posting's details.
    file: (match, request) => {
      const stem = `${match[1]}/${match[2]}/${match[3]}`;
      if (match[4] !== 'jobs') return `${stem}/${decodeURIComponent(match[4]!)}`;
      const offset = isRecord(request.body) ? (finite(request.body['offset']) ?? 0) : 0;
      return offset > 0 ? `${stem}/jobs.offset-${offset}` : `${stem}/jobs`;
    },
    methods: ['POST'],
    notFound: { errorCode: 'HTTP_404', message: 'Not found' },
    basePath: '/workday/{host}',
  },
  fixtures: { notice: 'README.md' },
  create: createWorkdayConnector,
});
