/**
 * NAV (Norway) job vacancy feed, pam-stilling-feed: `GET {base}/api/v1/feed` pages followed by their
 * `next_url`, each ACTIVE item's ad read from its `url` (`/api/v1/feedentry/{uuid}`). Shapes and rules
 * from the service's own documentation, "NAV Job Vacancy Feed" (navikt/pam-stilling-feed
 * `docs/index.markdown`, copied at /work/shared/data/nav-feed/pam-stilling-feed-docs.md):
 *
 * - Feed page `{version, title, feed_url, next_url, id, next_id, items[]}`; the end of the feed has
 *   `next_url: null`, and a consumer re-polls that page until it points onwards.
 * - Feed item `{id, url, title, date_modified, _feed_entry: {uuid, status ACTIVE|INACTIVE, title,
 *   businessName, municipal, sistEndret}}`.
 * - Feed entry `{uuid, status, sistEndret, json: {uuid, published, expires, updated, workLocations[],
 *   title, description, sourceurl, applicationUrl, applicationDue, occupationCategories[], categoryList[],
 *   jobtitle, link, employer{name, orgnr, homepage}, engagementtype, extent, sector, ...}}`.
 * - Every request carries `Authorization: Bearer <token>`: the operator's token when configured, else the
 *   public token the service publishes at `{base}/api/publicToken` (rotated at irregular intervals).
 * - Pages carry `ETag`/`Last-Modified`; asking again with `If-None-Match` answers 304 when unchanged. The
 *   first page is asked with `If-Modified-Since` six months back (an ad is never active longer).
 *
 * The feed is a log, not a board: the connector keeps, on the target (`siteState`), the page it read
 * last with its validators and every ad still active, and returns that whole set each crawl, so the
 * pipeline's absence rule sees the board as it stands. An item whose `_feed_entry.status` (or entry
 * `status`) is `INACTIVE` is the source's own closure signal: the ad leaves the set and its id is
 * reported `gone` (closed `expired_upstream`). An entry answering 404/410 left the feed: it leaves
 * the set and is closed by absence (`not_seen`). Any failed page or entry fails the whole crawl, and the
 * stored state stays as it was.
 *
 * | entry `json` | SourcePosting |
 * |---|---|
 * | `uuid` | `sourcePostingId` |
 * | `title` (else `jobtitle`) | `title` |
 * | `employer.name` (else the item's `businessName`) | `company.name` |
 * | `workLocations[]` {address, postalCode, city, municipal, county, country} | `locations[]` (city: `city`, else `municipal`; region: `county`) |
 * | `extent` (Heltid, Deltid), else `engagementtype` (Fast, Vikariat, Engasjement, Sesong...) | `employmentType`, raw (enrichment knows the Norwegian words) |
 * | `published` (RFC 3339 with offset only) | `postedAt` |
 * | `expires` / `applicationDue` (RFC 3339 with offset only) | `closesAt` |
 * | `description` (HTML) | `descriptionHtml` |
 * | `applicationUrl`, else `sourceurl`, else `link` | `applyUrl` |
 * | `link` (arbeidsplassen.nav.no/stillinger/stilling/{uuid}) | `postingUrl` |
 * | `categoryList[]` STYRK08 `{code, name}` | `hints.occupationSeries` ("2342 - Førskolelærere") |
 * | `occupationCategories[0].level1` | `hints.department` (a category signal) |
 *
 * NAV publishes no structured salary, so none is set.
 */
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import { FetchError, type Fetcher } from '../fetcher.ts';
import { companyOf, compact, fetchBoard, identifiedItem, isoInstant, isRecord, parseJson, text, trimBase } from './common.ts';

/** What the connector keeps on the target between crawls. */
interface NavState {
  /** Relative URL of the last feed page read (the end of the feed at that time). */
  page: string;
  etag?: string;
  lastModified?: string;
  /** Every ad still active, by uuid. */
  ads: Record<string, SourcePosting>;
}

/** Feed pages read in one crawl, at most; the rest are read on the next crawl. */
const MAX_PAGES = 500;
/** The first page is asked for changes in the last 183 days (docs: an ad is never active longer than six months). */
const FIRST_LOAD_DAYS = 183;

function loadState(value: unknown): NavState | undefined {
  if (!isRecord(value) || typeof value['page'] !== 'string' || !isRecord(value['ads'])) return undefined;
  return value as unknown as NavState;
}

function location(loc: unknown): SourceLocation | undefined {
  if (!isRecord(loc)) return undefined;
  const city = text(loc['city']) ?? text(loc['municipal']);
  const parts = [text(loc['address']), [text(loc['postalCode']), city].filter(Boolean).join(' ') || undefined].filter(Boolean);
  const out = compact<SourceLocation>({
    text: parts.length > 0 ? parts.join(', ') : undefined,
    city,
    region: text(loc['county']),
    country: text(loc['country']),
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Map one feed entry's `json`; null when it has no uuid or title.
 * @param businessName the feed item's `_feed_entry.businessName`, for an entry that names no employer.
 */
export function mapNavAd(item: unknown, target: CrawlTarget, businessName?: string): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['uuid']), (r) => text(r['title']) ?? text(r['jobtitle']));
  if (!identified) return null;
  const { record: ad, id, title } = identified;
  const employer = isRecord(ad['employer']) ? ad['employer'] : {};
  const locations = Array.isArray(ad['workLocations']) ? ad['workLocations'].map(location).filter((l): l is SourceLocation => l !== undefined) : [];
  const styrk = Array.isArray(ad['categoryList'])
    ? ad['categoryList']
        .filter((c) => isRecord(c) && text(c['code']) && /styrk/i.test(text(c['categoryType']) ?? 'STYRK08'))
        .map((c) => [text((c as Record<string, unknown>)['code']), text((c as Record<string, unknown>)['name'])].filter(Boolean).join(' - '))
    : [];
  const occupation = Array.isArray(ad['occupationCategories']) && isRecord(ad['occupationCategories'][0]) ? text(ad['occupationCategories'][0]['level1']) : undefined;
  const hints = compact({ department: occupation, occupationSeries: styrk.length > 0 ? styrk : undefined });
  const link = text(ad['link']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(employer['name']) ?? businessName),
    location: locations[0]?.text,
    locations,
    employmentType: text(ad['extent']) ?? text(ad['engagementtype']),
    postedAt: isoInstant(ad['published']),
    closesAt: isoInstant(ad['expires']) ?? isoInstant(ad['applicationDue']),
    descriptionHtml: text(ad['description']),
    applyUrl: text(ad['applicationUrl']) ?? text(ad['sourceurl']) ?? link,
    postingUrl: link,
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/** An RFC 1123 date `days` before now, for `If-Modified-Since`. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toUTCString();
}

/**
 * Create the NAV feed connector.
 * @param baseUrl feed origin, e.g. `https://pam-stilling-feed.nav.no` (config `JOBLEDGER_NAV_BASE_URL`).
 * @param token the operator's own token (config `JOBLEDGER_NAV_TOKEN`); unset: the public token.
 */
export function createNavConnector(baseUrl: string, token?: string): Connector {
  const base = trimBase(baseUrl);
  const boardUrl = (): string => `${base}/api/v1/feed`;
  const absolute = (relative: string): string => new URL(relative, `${base}/`).toString();

  async function bearer(fetcher: Fetcher, target: CrawlTarget): Promise<string> {
    if (token) return token;
    let body: string;
    try {
      body = (await fetcher.get(`${base}/api/publicToken`, { headers: { accept: 'text/plain' } })).body.toString('utf8');
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      throw new CrawlError(err.kind === 'bad_url' ? 'blocked' : err.kind === 'redirect' ? 'http_status' : err.kind, `${target.id}: public token: ${err.message}`, err.status);
    }
    // The page names the token in prose; the token is the one JWT on it.
    const jwt = /[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(body)?.[0];
    if (!jwt) throw new CrawlError('malformed', `${target.id}: the public token page carries no token`);
    return jwt;
  }

  return {
    id: 'nav',
    boardUrl,
    /** @throws CrawlError: any page or entry that fails; `malformed` for a page without `items`. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      const previous = loadState(target.siteState);
      const auth = { authorization: `Bearer ${await bearer(fetcher, target)}` };
      const ads = new Map(Object.entries(previous?.ads ?? {}));
      const gone: string[] = [];
      let skipped = 0;
      let page = previous?.page ?? '/api/v1/feed';
      let validators: Pick<CrawlTarget, 'etag' | 'lastModified'> = previous ? { etag: previous.etag, lastModified: previous.lastModified } : { lastModified: daysAgo(FIRST_LOAD_DAYS) };
      let state: NavState | undefined;
      for (let read = 0; read < MAX_PAGES; read++) {
        const answer = await fetchBoard(fetcher, absolute(page), { ...target, ...validators }, auth);
        if (answer.kind === 'not_modified') {
          if (read === 0 && previous) return { kind: 'not_modified' };
          break;
        }
        const body = parseJson(answer.body, target);
        if (!isRecord(body) || !Array.isArray(body['items'])) throw new CrawlError('malformed', `${target.id}: expected a feed page with an "items" array`);
        for (const item of body['items']) {
          const entry = isRecord(item) && isRecord(item['_feed_entry']) ? item['_feed_entry'] : undefined;
          const uuid = text(entry?.['uuid']);
          const url = isRecord(item) ? text(item['url']) : undefined;
          if (!entry || uuid === undefined || url === undefined) {
            skipped++;
            continue;
          }
          if (entry['status'] !== 'ACTIVE') {
            ads.delete(uuid);
            gone.push(uuid);
            continue;
          }
          const detail = await fetchEntry(fetcher, absolute(url), target, auth);
          if (detail === 'gone') {
            ads.delete(uuid);
            continue;
          }
          if (detail['status'] === 'INACTIVE') {
            ads.delete(uuid);
            gone.push(uuid);
            continue;
          }
          const posting = mapNavAd(detail['json'], target, text(entry['businessName']));
          if (posting === null) skipped++;
          else ads.set(uuid, posting);
        }
        state = compact({ page, etag: answer.etag, lastModified: answer.lastModified, ads: {} });
        const next = text(body['next_url']);
        if (next === undefined) break;
        page = next;
        validators = {};
        // Stopped at the bound: the next crawl starts at the first page not read, unconditionally.
        if (read === MAX_PAGES - 1) state = { page: next, ads: {} };
      }
      if (!state) return { kind: 'not_modified' };
      state.ads = Object.fromEntries(ads);
      return compact({ kind: 'fetched' as const, postings: [...ads.values()], skipped, siteState: state, gone: gone.length > 0 ? gone : undefined });
    },
  };
}

/** One feed entry, or 'gone' when it answers 404/410. @throws CrawlError for any other failure. */
async function fetchEntry(fetcher: Fetcher, url: string, target: CrawlTarget, auth: Record<string, string>): Promise<Record<string, unknown> | 'gone'> {
  let response;
  try {
    response = await fetcher.get(url, { headers: { accept: 'application/json', ...auth }, acceptStatuses: [404, 410] });
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    throw new CrawlError(err.kind === 'bad_url' ? 'blocked' : err.kind === 'redirect' ? 'http_status' : err.kind, `${target.id}: ${err.message}`, err.status);
  }
  if (response.status === 404 || response.status === 410) return 'gone';
  const body = parseJson(response.body, target);
  if (!isRecord(body)) throw new CrawlError('malformed', `${target.id}: expected a feed entry object`);
  return body;
}

/** The NAV connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'nav',
  provider: { label: 'NAV (Norway)', providerClass: 'government', sourceType: 'public_agency', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://pam-stilling-feed.nav.no', description: 'NAV job vacancy feed (pam-stilling-feed) origin.' },
  applyHosts: { agency: ['arbeidsplassen.nav.no', 'nav.no'] },
  create: (baseUrl, settings) => createNavConnector(baseUrl!, settings.agencyKeys.navToken),
});
