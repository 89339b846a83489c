/**
 * The official USAJOBS Search API (beside the `usajobs` mirror of announcement files):
 * `GET {base}/api/search?{board}&ResultsPerPage=500&Page=N` with the headers the API requires,
 * `Authorization-Key` (the operator's key) and the e-mail address the key was issued to (config
 * `agencyKeys`). Shape and rules from developer.usajobs.gov, "Search Jobs" (API Reference › Search) and
 * "Authentication": `{SearchResult: {SearchResultCount, SearchResultCountAll, SearchResultItems[
 * {MatchedObjectId, MatchedObjectDescriptor}]}}`. The board is the search's query string
 * (`Keyword=nurse&LocationName=Denver`, `Organization=VATA`); an empty board reads every open
 * announcement.
 *
 * The e-mail address goes in `From` as well as in the API's header of choice: the guarded fetcher sends
 * every request under the service's own User-Agent (the crawler's contact URL), so the address is not
 * in `User-Agent` here; USAJOBS names `User-Agent` for it, which an operator whose key is refused
 * without it must know (docs/connectors: USAJOBS Search API).
 *
 * One announcement, two providers: the `usajobs` mirror names announcements by the same control number,
 * so the descriptor declares `supersedes: ['usajobs']`: the mirror's copy of an announcement this API
 * has is stored withheld (`source.superseded`), and this API's row is the one served.
 *
 * Without a key a crawl fails as `blocked` and changes nothing. Pages are asked with the `If-None-Match`
 * of their last answer (kept on the target); all 304 is `not_modified`. The source's closure signal is
 * `ApplicationCloseDate`: a row past it is closed `expired_upstream` by the ledger.
 *
 * | MatchedObjectDescriptor | SourcePosting |
 * |---|---|
 * | `MatchedObjectId` (else `PositionID`) | `sourcePostingId` (the announcement's control number) |
 * | `PositionTitle` | `title` |
 * | `OrganizationName` (else `DepartmentName`) | `company.name` (the hiring agency) |
 * | `PositionLocation[]` {LocationName, CityName, CountrySubDivisionCode, CountryCode} | `locations[]` |
 * | `PositionSchedule[0].Name` (Full-Time, Part-Time...) | `employmentType` |
 * | `PublicationStartDate` (US Eastern, no offset) | `postedAt` |
 * | `ApplicationCloseDate` (US Eastern, no offset) | `closesAt` |
 * | `UserArea.Details.JobSummary`, `MajorDuties[]`, else `QualificationSummary` | `descriptionText` |
 * | `PositionRemuneration[0]` {MinimumRange, MaximumRange, RateIntervalCode PA/PM/WK/PD/PH; others such as BW → no period} | `salary` in USD |
 * | `UserArea.Details.RemoteIndicator` true / false | `remoteFlag` remote / not_remote |
 * | `ApplyURI[0]`, `PositionURI` | `applyUrl`, `postingUrl` |
 * | `JobCategory[]` {Code, Name} | `hints.occupationSeries` ("2210 - Information Technology Management") |
 */
import type { SalaryPeriod } from '../../domain/vocabulary.ts';
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { companyOf, compact, fetchBoard, idString, isRecord, mapPostings, parseJson, text, trimBase, zonedInstant } from './common.ts';

const PAGE_SIZE = 500;
/** The API serves at most 10,000 results per search. */
const MAX_PAGES = 20;
const ZONE = 'America/New_York';

/** `RateIntervalCode` (and its description) → salary period. */
const INTERVALS: Readonly<Record<string, SalaryPeriod>> = {
  PA: 'annual',
  'PER YEAR': 'annual',
  PM: 'monthly',
  'PER MONTH': 'monthly',
  WK: 'weekly',
  'PER WEEK': 'weekly',
  PD: 'daily',
  'PER DAY': 'daily',
  PH: 'hourly',
  'PER HOUR': 'hourly',
};

interface PageMemo {
  etag: string;
  items: unknown[];
}

const first = (value: unknown): Record<string, unknown> | undefined => (Array.isArray(value) && isRecord(value[0]) ? value[0] : undefined);
const amount = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

function salaryOf(descriptor: Record<string, unknown>): SourceSalary | undefined {
  const pay = first(descriptor['PositionRemuneration']);
  if (!pay) return undefined;
  const min = amount(pay['MinimumRange']);
  const max = amount(pay['MaximumRange']);
  if (min === undefined && max === undefined) return undefined;
  const code = (text(pay['RateIntervalCode']) ?? text(pay['Description']))?.trim().toUpperCase();
  const period = code !== undefined ? INTERVALS[code] : undefined;
  return compact<SourceSalary>({ min, max, currency: 'USD', period: period ?? null });
}

/** Map one search result item; null when it has no id or title. */
export function mapUsajobsApiItem(item: unknown, target: CrawlTarget): SourcePosting | null {
  if (!isRecord(item) || !isRecord(item['MatchedObjectDescriptor'])) return null;
  const d = item['MatchedObjectDescriptor'];
  const id = idString(item['MatchedObjectId']) ?? idString(d['PositionID']);
  const title = text(d['PositionTitle']);
  if (id === undefined || title === undefined) return null;
  const locations = (Array.isArray(d['PositionLocation']) ? d['PositionLocation'] : [])
    .filter(isRecord)
    .map((l) => compact<SourceLocation>({ text: text(l['LocationName']), city: text(l['CityName'])?.split(',')[0], region: text(l['CountrySubDivisionCode']), country: text(l['CountryCode']) }));
  const details = isRecord(d['UserArea']) && isRecord(d['UserArea']['Details']) ? d['UserArea']['Details'] : {};
  const duties = Array.isArray(details['MajorDuties']) ? details['MajorDuties'].map(text).filter((s): s is string => s !== undefined) : [];
  const summary = [text(details['JobSummary']), ...duties].filter(Boolean).join('\n\n') || text(d['QualificationSummary']);
  const categories = (Array.isArray(d['JobCategory']) ? d['JobCategory'] : []).filter(isRecord).map((c) => [text(c['Code']), text(c['Name'])].filter(Boolean).join(' - ')).filter(Boolean);
  const apply = Array.isArray(d['ApplyURI']) ? text(d['ApplyURI'][0]) : undefined;
  const remote = details['RemoteIndicator'];
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(d['OrganizationName']) ?? text(d['DepartmentName'])),
    location: text(d['PositionLocationDisplay']) ?? locations[0]?.text,
    locations,
    remoteFlag: remote === true ? 'remote' : remote === false ? 'not_remote' : undefined,
    employmentType: text(first(d['PositionSchedule'])?.['Name']),
    postedAt: zonedInstant(d['PublicationStartDate'], ZONE),
    closesAt: zonedInstant(d['ApplicationCloseDate'], ZONE),
    descriptionText: summary,
    salary: salaryOf(d),
    applyUrl: apply ?? text(d['PositionURI']),
    postingUrl: text(d['PositionURI']),
    hints: categories.length > 0 ? { occupationSeries: categories } : undefined,
  });
}

/**
 * Create the USAJOBS Search API connector.
 * @param baseUrl API origin, e.g. `https://data.usajobs.gov` (config `JOBLEDGER_USAJOBS_API_BASE_URL`).
 * @param key the `Authorization-Key` (config `JOBLEDGER_USAJOBS_API_KEY`); unset: every crawl fails `blocked`.
 * @param email the address the key was issued to (config `JOBLEDGER_USAJOBS_API_EMAIL`).
 */
export function createUsajobsApiConnector(baseUrl: string, key?: string, email?: string): Connector {
  const base = trimBase(baseUrl);
  const search = (target: CrawlTarget, page: number): string => {
    const params = new URLSearchParams(target.board);
    params.set('ResultsPerPage', String(PAGE_SIZE));
    params.set('Page', String(page));
    return `${base}/api/search?${params.toString()}`;
  };
  return {
    id: 'usajobs_api',
    boardUrl: (target) => search(target, 1),
    /** @throws CrawlError: `blocked` without a key; fetch failures by kind; `malformed` without `SearchResult.SearchResultItems`. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      if (!key) throw new CrawlError('blocked', `${target.id}: no USAJOBS API key configured (JOBLEDGER_USAJOBS_API_KEY)`);
      const headers: Record<string, string> = { 'authorization-key': key };
      if (email) headers['from'] = email;
      const memo: Record<string, PageMemo> = isRecord(target.siteState) && isRecord(target.siteState['pages']) ? (target.siteState['pages'] as Record<string, PageMemo>) : {};
      const pages: Record<string, PageMemo> = {};
      const items: unknown[] = [];
      let changed = false;
      for (let page = 1; page <= MAX_PAGES; page++) {
        const url = search(target, page);
        const answer = await fetchBoard(fetcher, url, { ...target, etag: memo[url]?.etag, lastModified: undefined }, headers);
        let list: unknown[];
        let all: number | undefined;
        if (answer.kind === 'not_modified') {
          if (!memo[url]) throw new CrawlError('malformed', `${target.id}: 304 to an unconditional request`);
          list = memo[url].items;
          pages[url] = memo[url];
        } else {
          const body = parseJson(answer.body, target);
          const result = isRecord(body) && isRecord(body['SearchResult']) ? body['SearchResult'] : undefined;
          if (!result || !Array.isArray(result['SearchResultItems'])) throw new CrawlError('malformed', `${target.id}: expected SearchResult.SearchResultItems`);
          list = result['SearchResultItems'];
          all = typeof result['SearchResultCountAll'] === 'number' ? result['SearchResultCountAll'] : undefined;
          changed = true;
          if (answer.etag) pages[url] = { etag: answer.etag, items: list };
        }
        items.push(...list);
        if (list.length < PAGE_SIZE || (all !== undefined && page * PAGE_SIZE >= all)) break;
      }
      if (!changed) return { kind: 'not_modified' };
      const result = mapPostings(items, (item) => mapUsajobsApiItem(item, target));
      return { kind: 'fetched', ...result, siteState: { pages } };
    },
  };
}

/** The USAJOBS Search API connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'usajobs_api',
  provider: { label: 'USAJOBS Search API', providerClass: 'government', sourceType: 'public_agency', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://data.usajobs.gov', description: 'USAJOBS Search API origin (official API; needs JOBLEDGER_USAJOBS_API_KEY).' },
  applyHosts: { agency: ['usajobs.gov'] },
  // The mirror of announcement files carries the same announcements under the same control numbers.
  supersedes: ['usajobs'],
  create: (baseUrl, settings) => createUsajobsApiConnector(baseUrl!, settings.agencyKeys.usajobsApiKey, settings.agencyKeys.usajobsEmail),
});
