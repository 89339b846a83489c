/**
 * SmartRecruiters connector: the public Posting API (developers.smartrecruiters.com/docs/posting-api,
 * "List postings" and "Get posting"): `GET {base}/v1/companies/{company}/postings?offset=&limit=100`
 * answers `{offset, limit, totalFound, content: [...]}` a page at a time, and
 * `GET {base}/v1/companies/{company}/postings/{id}` each posting's details with its advert
 * (`jobAd.sections`). Pages are followed by `offset` until `totalFound` postings were read or a page
 * comes back empty; then each posting's details are fetched (four at a time).
 *
 * | SmartRecruiters | SourcePosting |
 * |---|---|
 * | `id` | `sourcePostingId` |
 * | `name` | `title` |
 * | `company.name`, else target.companyName, else the board | `company.name` |
 * | `location.fullLocation`, else `city, region, country` | `location`, `locations[0].text` |
 * | `location` {city, region, country (ISO alpha-2, lower case)} | `locations[0]` |
 * | `location.remote` true / `location.hybrid` true / `remote` false | `remoteFlag` 'remote' / 'hybrid' / 'not_remote' |
 * | `typeOfEmployment.label` | `employmentType`, raw ("Full-time") |
 * | `releasedDate` (RFC 3339) | `postedAt` |
 * | details `jobAd.sections` {companyDescription, jobDescription, qualifications, additionalInformation} {title, text} | `descriptionHtml`: `<h3>{title}</h3>{text}` per section, in that order |
 * | details `postingUrl` (else `https://jobs.smartrecruiters.com/{company}/{id}`) | `postingUrl` and `applyUrl` (below) |
 * | `department.label`, `function.label` | `hints.department`, `hints.team` |
 *
 * Apply link: the posting's public page, which holds the application. The details' own `applyUrl` is
 * not used: it can be the one-click form (`jobs.smartrecruiters.com/oneclick-ui/company/{company}/...`)
 * whose path does not begin with the board, which the quality gate could not tell from another board's.
 *
 * No structured salary is read. Closure signals of the source: a listed posting whose details answer
 * 404 or 410, or carry `active: false`, was unpublished by SmartRecruiters itself: it is returned in
 * `gone` and closed `expired_upstream`. Conditional requests: the first page is asked with the
 * target's validators; validators are kept only when that page held the whole board (one page read,
 * `totalFound` postings in it), so a 304 then means the whole board is unchanged. Any page or details answer that
 * fails otherwise fails the crawl (nothing changes).
 */
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { companyOf, compact, fetchJson, finite, identifiedItem, idString, isoInstant, isRecord, mapPostings, readDetails, text, titledSection, trimBase } from './common.ts';

/** Postings per list page (the API's maximum). */
export const SMARTRECRUITERS_PAGE = 100;
/** Most pages read per crawl (10,000 postings), so a source that never ends its paging cannot hold a crawl. */
const MAX_PAGES = 100;
const SECTIONS = ['companyDescription', 'jobDescription', 'qualifications', 'additionalInformation'] as const;

function label(value: unknown): string | undefined {
  return isRecord(value) ? text(value['label']) : undefined;
}

/** The advert HTML of a posting's `jobAd.sections`; undefined when none has text. */
export function smartRecruitersAdHtml(jobAd: unknown): string | undefined {
  const sections = isRecord(jobAd) && isRecord(jobAd['sections']) ? jobAd['sections'] : undefined;
  if (!sections) return undefined;
  const parts: string[] = [];
  for (const key of SECTIONS) {
    const section = sections[key];
    if (!isRecord(section)) continue;
    const body = text(section['text']);
    if (body === undefined) continue;
    const title = text(section['title']);
    parts.push(titledSection(title, body));
  }
  return parts.length > 0 ? parts.join('') : undefined;
}

/** Map one posting (list item merged with its details); null when it has no id or name. */
export function mapSmartRecruitersPosting(item: unknown, target: CrawlTarget): SourcePosting | null {
  const identified = identifiedItem(item, (r) => idString(r['id']), (r) => text(r['name']));
  if (!identified) return null;
  const { record: posting, id, title } = identified;
  const loc = isRecord(posting['location']) ? posting['location'] : {};
  const city = text(loc['city']);
  const region = text(loc['region']);
  const country = text(loc['country'])?.trim().toUpperCase();
  const joined = [city, region, country].filter((p) => p !== undefined).join(', ');
  const where = text(loc['fullLocation']) ?? (joined === '' ? undefined : joined);
  const locations: SourceLocation[] = where !== undefined || country !== undefined ? [compact<SourceLocation>({ text: where, country, region, city })] : [];
  const company = isRecord(posting['company']) ? posting['company'] : {};
  const identifier = text(company['identifier']) ?? target.board;
  const fallbackUrl = `https://jobs.smartrecruiters.com/${encodeURIComponent(identifier)}/${encodeURIComponent(id)}`;
  const hints = compact({ department: label(posting['department']), team: label(posting['function']) });
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(company['name'])),
    location: where,
    locations,
    remoteFlag: loc['remote'] === true ? 'remote' : loc['hybrid'] === true ? 'hybrid' : loc['remote'] === false ? 'not_remote' : undefined,
    employmentType: label(posting['typeOfEmployment']),
    postedAt: isoInstant(posting['releasedDate']),
    descriptionHtml: smartRecruitersAdHtml(posting['jobAd']),
    applyUrl: text(posting['postingUrl']) ?? fallbackUrl,
    postingUrl: text(posting['postingUrl']) ?? fallbackUrl,
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/**
 * Create the SmartRecruiters connector.
 * @param baseUrl API origin, e.g. `https://api.smartrecruiters.com` (config `JOBLEDGER_SMARTRECRUITERS_BASE_URL`).
 */
export function createSmartRecruitersConnector(baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  const companyUrl = (target: CrawlTarget): string => `${base}/v1/companies/${encodeURIComponent(target.board)}/postings`;
  const boardUrl = (target: CrawlTarget): string => `${companyUrl(target)}?offset=0&limit=${SMARTRECRUITERS_PAGE}`;
  return {
    id: 'smartrecruiters',
    boardUrl,
    /** @throws CrawlError: fetch failures by kind; `malformed` for a page or details that are not the API's objects. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      const items: Record<string, unknown>[] = [];
      let validators: { etag?: string; lastModified?: string } = {};
      let total = 0;
      let pages = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        pages++;
        const offset = items.length;
        const conditional = page === 0 ? compact({ 'if-none-match': target.etag, 'if-modified-since': target.lastModified }) : {};
        const answer = await fetchJson(fetcher, `${companyUrl(target)}?offset=${offset}&limit=${SMARTRECRUITERS_PAGE}`, target, { headers: conditional as Record<string, string> });
        if (answer.status === 304) {
          if (page === 0) return { kind: 'not_modified' };
          throw new CrawlError('malformed', `${target.id}: page at offset ${offset} answered 304 to an unconditional request`);
        }
        const json = answer.json;
        if (!isRecord(json) || !Array.isArray(json['content']) || finite(json['totalFound']) === undefined) {
          throw new CrawlError('malformed', `${target.id}: page at offset ${offset} is not {totalFound, content: [...]}`);
        }
        if (page === 0) {
          total = finite(json['totalFound'])!;
          validators = { etag: answer.etag, lastModified: answer.lastModified };
        }
        const content = json['content'] as unknown[];
        for (const item of content) items.push(isRecord(item) ? item : { junk: item });
        if (content.length === 0 || items.length >= total) break;
      }
      // Validators of the first page speak for the board only when that page held every posting.
      if (pages > 1 || items.length < total) validators = {};

      const { read: merged, gone } = await readDetails(items, async (item, goneId) => {
        const id = idString(item['id']);
        if (id === undefined) return item;
        const details = await fetchJson(fetcher, `${companyUrl(target)}/${encodeURIComponent(id)}`, target, { acceptStatuses: [404, 410] });
        if (details.status === 404 || details.status === 410 || (isRecord(details.json) && details.json['active'] === false)) {
          goneId(id);
          return undefined;
        }
        if (!isRecord(details.json)) throw new CrawlError('malformed', `${target.id}: details of ${id} are not an object`);
        return { ...item, ...details.json };
      });
      const result = mapPostings(merged, (posting) => mapSmartRecruitersPosting(posting, target));
      return compact({ kind: 'fetched' as const, ...result, ...validators, gone });
    },
  };
}

/** The SmartRecruiters connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'smartrecruiters',
  provider: { label: 'SmartRecruiters', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://api.smartrecruiters.com', description: 'SmartRecruiters Posting API base URL.' },
  applyHosts: { ats: ['jobs.smartrecruiters.com', 'careers.smartrecruiters.com'] },
  replay: {
    pattern: /^\/v1\/companies\/([^/]+)\/postings(?:\/([^/]+))?\/?$/,
    // fixtures/smartrecruiters/<company>.json is the first page, <company>.offset-<n>.json a later one,
    // <company>/<id>.json a posting's details.
    file: (match, request) => {
      const company = decodeURIComponent(match[1] ?? '');
      if (match[2] !== undefined) return `${company}/${decodeURIComponent(match[2])}`;
      const offset = Number(request.query.get('offset') ?? '0');
      return offset > 0 ? `${company}.offset-${offset}` : company;
    },
    notFound: { message: 'Not found' },
  },
  fixtures: { notice: 'README.md' },
  create: createSmartRecruitersConnector,
});
