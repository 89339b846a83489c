/**
 * Bundesagentur für Arbeit Jobsuche (Germany): the search API,
 * `GET {base}/pc/v6/jobs?{board}&page=N&size=100`, else `GET {base}/pc/v4/jobs?...`, with the
 * documented public client id header `X-API-Key: jobboerse-jobsuche` (bund.dev "Jobsuche API",
 * jobsuche.api.bund.dev; community OpenAPI github.com/bundesAPI/jobsuche-api). The board is the search's
 * query string (`was=Pflegefachkraft&wo=Leipzig&umkreis=25`); `angebotsart=1` (employment) is added
 * unless the board names another.
 *
 * Two generations of the search: the newer `/pc/v6/jobs` answers `{ergebnisliste[], maxErgebnisse,
 * page, size, woOutput, facetten}` (in 2026 the only one that answers; v4 is refused with 403), the
 * documented `/pc/v4/jobs` answers `{stellenangebote[], maxErgebnisse, page, size, facetten}` (shared data
 * `bundesagentur/SOURCE.md`: client code of 2026 asks v6 and falls back to v4). A crawl asks the
 * generation that answered last (v6 at first); when its first page is refused (403, 404 or 410: the
 * endpoint is not there) it asks the other, and remembers the one that answered on the target. Any
 * other failure fails the crawl, as does a refusal by both. Both item shapes are read either way.
 *
 * Staffing: the API marks temporary-work (`zeitarbeit`) and private-placement-agency (`pav`) offers only
 * through its own filters of those names (the facets count them; the items carry no flag). The connector
 * therefore reads the search twice, as given (both included, the API's default) and with
 * `zeitarbeit=false&pav=false`; an offer found only in the first is the staffing firm's and is marked
 * `poster: 'staffing'`, which the quality gate withholds as the spec's staffing poster type.
 *
 * Conditional requests: every page is asked with the `If-None-Match` of its last answer (kept on the
 * target with that page's items); a crawl whose pages all answer 304 is `not_modified`.
 *
 * | v4 / newer | SourcePosting |
 * |---|---|
 * | `refnr` / `referenznummer` | `sourcePostingId` |
 * | `titel` / `stellenangebotsTitel`, else `beruf` / `hauptberuf` | `title` |
 * | `arbeitgeber` / `firma` | `company.name` |
 * | `arbeitsort` / `stellenlokationen[].adresse` {strasse, hausnummer, plz, ort, region, land} | `locations[]` (region `NORDRHEIN_WESTFALEN` read as "Nordrhein Westfalen") |
 * | `aktuelleVeroeffentlichungsdatum` / `datumErsteVeroeffentlichung` (a date) | `postedAt`, 00:00 Europe/Berlin |
 * | `arbeitszeitVollzeit` true / only `arbeitszeitTeilzeit*` true | `employmentType` Vollzeit / Teilzeit; `vertragsdauer` BEFRISTET → befristet |
 * | `homeofficemoeglich` | not mapped: home office "possible" is not a remote job |
 * | `gehaltsspanneVon`/`gehaltsspanneBis` with `verguetungsangabe` JAHRESGEHALT / MONATSGEHALT / STUNDENLOHN | `salary` in EUR (the German agency's amounts are euros) per year / month / hour |
 * | `externeUrl` / `externeURL`, else the Jobsuche detail page | `applyUrl` |
 * | `https://www.arbeitsagentur.de/jobsuche/jobdetail/{refnr}` | `postingUrl` |
 * | `beruf` / `hauptberuf`, `alleBerufe[]` | `hints.occupationSeries` |
 */
import type { SalaryPeriod } from '../../domain/vocabulary.ts';
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { companyOf, compact, crawlErrorOf, finite, idString, isRecord, parseJson, text, trimBase, zonedInstant } from './common.ts';

/** The public client id the Jobsuche web app sends, documented for the API. */
export const BA_CLIENT_ID = 'jobboerse-jobsuche';
const PAGE_SIZE = 100;
/** Pages per search read in one crawl, at most (the API stops serving past 10,000 offers a search). */
const MAX_PAGES = 100;

/** `verguetungsangabe` → salary period. */
const PERIODS: Readonly<Record<string, SalaryPeriod>> = { JAHRESGEHALT: 'annual', MONATSGEHALT: 'monthly', STUNDENLOHN: 'hourly' };

interface PageMemo {
  etag: string;
  items: unknown[];
  max?: number;
}
/** A generation of the search API (the path segment under `/pc/`). */
type SearchApi = 'v6' | 'v4';
interface BaState {
  /** The generation that answered the last good crawl (absent in states written before v6). */
  api?: SearchApi;
  pages: Record<string, PageMemo>;
}
/** Statuses of a search endpoint that is not there (refused, gone): the other generation is asked. */
const REFUSED = [403, 404, 410];

function loadState(value: unknown): BaState {
  return isRecord(value) && isRecord(value['pages']) ? (value as unknown as BaState) : { pages: {} };
}

function place(address: unknown): SourceLocation | undefined {
  if (!isRecord(address)) return undefined;
  const street = [text(address['strasse']), text(address['hausnummer'])].filter(Boolean).join(' ');
  const city = text(address['ort']);
  const line = [street || undefined, [text(address['plz']), city].filter(Boolean).join(' ') || undefined].filter(Boolean).join(', ');
  const region = text(address['region'])?.replaceAll('_', ' ').toLowerCase().replace(/(^|[\s-])\p{L}/gu, (m) => m.toUpperCase());
  const land = text(address['land']);
  const loc = compact<SourceLocation>({ text: line || undefined, city, region, country: land ? land.charAt(0) + land.slice(1).toLowerCase() : undefined });
  return Object.keys(loc).length > 0 ? loc : undefined;
}

function salaryOf(item: Record<string, unknown>): SourceSalary | undefined {
  const min = finite(item['gehaltsspanneVon']);
  const max = finite(item['gehaltsspanneBis']);
  if (min === undefined && max === undefined) return undefined;
  const kind = text(item['verguetungsangabe']);
  return compact<SourceSalary>({ min, max, currency: 'EUR', period: (kind ? PERIODS[kind] : undefined) ?? null });
}

function employment(item: Record<string, unknown>): string | undefined {
  const partTime = Object.entries(item).some(([k, v]) => k.startsWith('arbeitszeitTeilzeit') && v === true);
  const hours = item['arbeitszeitVollzeit'] === true ? 'Vollzeit' : partTime ? 'Teilzeit' : undefined;
  return hours ?? (item['vertragsdauer'] === 'BEFRISTET' ? 'befristet' : undefined);
}

/** Map one offer (v4 or newer shape); null when it has no reference number or title. */
export function mapBaOffer(item: unknown, target: CrawlTarget): SourcePosting | null {
  if (!isRecord(item)) return null;
  const id = idString(item['refnr']) ?? idString(item['referenznummer']);
  const occupation = text(item['beruf']) ?? text(item['hauptberuf']);
  const title = text(item['titel']) ?? text(item['stellenangebotsTitel']) ?? occupation;
  if (id === undefined || title === undefined) return null;
  const addresses = Array.isArray(item['stellenlokationen']) ? item['stellenlokationen'].map((l) => (isRecord(l) ? l['adresse'] : undefined)) : [item['arbeitsort']];
  const locations = addresses.map(place).filter((l): l is SourceLocation => l !== undefined);
  const all = Array.isArray(item['alleBerufe']) ? item['alleBerufe'].map(text).filter((s): s is string => s !== undefined) : [];
  const series = [...new Set([occupation, ...all].filter((s): s is string => s !== undefined))];
  const detail = `https://www.arbeitsagentur.de/jobsuche/jobdetail/${encodeURIComponent(id)}`;
  const published = text(item['aktuelleVeroeffentlichungsdatum']) ?? text(item['datumErsteVeroeffentlichung']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(item['arbeitgeber']) ?? text(item['firma'])),
    location: locations[0]?.text ?? locations[0]?.city,
    locations,
    employmentType: employment(item),
    postedAt: published && /^\d{4}-\d{2}-\d{2}$/.test(published) ? zonedInstant(`${published}T00:00:00`, 'Europe/Berlin') : undefined,
    salary: salaryOf(item),
    applyUrl: text(item['externeUrl']) ?? text(item['externeURL']) ?? detail,
    postingUrl: detail,
    hints: series.length > 0 ? { occupationSeries: series } : undefined,
  });
}

/**
 * Create the Jobsuche connector.
 * @param baseUrl service root, e.g. `https://rest.arbeitsagentur.de/jobboerse/jobsuche-service` (config `JOBLEDGER_BUNDESAGENTUR_BASE_URL`).
 */
export function createBundesagenturConnector(baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  const search = (target: CrawlTarget, api: SearchApi, extra: string): string => {
    const params = new URLSearchParams(target.board);
    if (!params.has('angebotsart')) params.set('angebotsart', '1');
    for (const [k, v] of new URLSearchParams(extra)) params.set(k, v);
    return `${base}/pc/${api}/jobs?${params.toString()}`;
  };
  const clientHeaders = { 'x-api-key': BA_CLIENT_ID };

  /** One page, conditionally when it has an ETag; a {@link REFUSED} status comes back as such. */
  async function getPage(fetcher: Fetcher, url: string, target: CrawlTarget, etag: string | undefined): Promise<{ status: number; body: Buffer; etag?: string }> {
    const headers: Record<string, string> = { accept: 'application/json', ...clientHeaders };
    if (etag) headers['if-none-match'] = etag;
    try {
      const response = await fetcher.get(url, { headers, acceptStatuses: REFUSED });
      return { status: response.status, body: response.body, etag: text(response.headers['etag']) };
    } catch (err) {
      throw crawlErrorOf(err, target);
    }
  }

  /**
   * Every page of one search: items, and whether any page changed; `refused` when its first page
   * answered a {@link REFUSED} status.
   * @throws CrawlError for any other failure, and for a refusal of a later page.
   */
  async function readSearch(target: CrawlTarget, fetcher: Fetcher, api: SearchApi, extra: string, state: BaState, next: BaState): Promise<{ items: unknown[]; changed: boolean } | 'refused'> {
    const items: unknown[] = [];
    let changed = false;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const url = search(target, api, `${extra}&page=${page}&size=${PAGE_SIZE}`);
      const memo = state.pages[url];
      const answer = await getPage(fetcher, url, target, memo?.etag);
      if (REFUSED.includes(answer.status)) {
        if (page === 1) return 'refused';
        throw new CrawlError('http_status', `${target.id}: page ${page} of the ${api} search answered ${answer.status}`, answer.status);
      }
      let pageItems: unknown[];
      let max: number | undefined;
      if (answer.status === 304) {
        if (!memo) throw new CrawlError('malformed', `${target.id}: 304 to an unconditional request`);
        pageItems = memo.items;
        max = memo.max;
        next.pages[url] = memo;
      } else {
        const body = parseJson(answer.body, target);
        const list = isRecord(body) ? (body['ergebnisliste'] ?? body['stellenangebote'] ?? (typeof body['maxErgebnisse'] === 'number' ? [] : undefined)) : undefined;
        if (!Array.isArray(list)) throw new CrawlError('malformed', `${target.id}: expected a search answer with "ergebnisliste" or "stellenangebote"`);
        pageItems = list;
        max = isRecord(body) ? finite(body['maxErgebnisse']) : undefined;
        changed = true;
        if (answer.etag) next.pages[url] = compact({ etag: answer.etag, items: list, max });
      }
      items.push(...pageItems);
      if (pageItems.length < PAGE_SIZE || (max !== undefined && page * PAGE_SIZE >= max)) break;
    }
    return { items, changed };
  }

  return {
    id: 'bundesagentur',
    boardUrl: (target) => search(target, 'v6', `page=1&size=${PAGE_SIZE}`),
    /** @throws CrawlError: fetch failures by kind (`http_status` when both generations refuse); `malformed` for an answer without an offer list. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      const state = loadState(target.siteState);
      const next: BaState = { pages: {} };
      const order: SearchApi[] = state.api === 'v4' ? ['v4', 'v6'] : ['v6', 'v4'];
      let api: SearchApi | undefined;
      let all: { items: unknown[]; changed: boolean } | undefined;
      for (const candidate of order) {
        const read = await readSearch(target, fetcher, candidate, '', state, next);
        if (read === 'refused') continue;
        api = candidate;
        all = read;
        break;
      }
      if (api === undefined || all === undefined) throw new CrawlError('http_status', `${target.id}: neither the v6 nor the v4 search answers (${REFUSED.join('/')})`);
      next.api = api;
      const direct = await readSearch(target, fetcher, api, 'zeitarbeit=false&pav=false', state, next);
      if (direct === 'refused') throw new CrawlError('http_status', `${target.id}: the ${api} search refused the search without temporary work and placement agencies`);
      if (!all.changed && !direct.changed) return { kind: 'not_modified' };
      const directIds = new Set(direct.items.map((i) => (isRecord(i) ? (idString(i['refnr']) ?? idString(i['referenznummer'])) : undefined)));
      const postings: SourcePosting[] = [];
      const seen = new Set<string>();
      let skipped = 0;
      for (const item of all.items) {
        const posting = mapBaOffer(item, target);
        if (posting === null) {
          skipped++;
          continue;
        }
        if (seen.has(posting.sourcePostingId)) continue;
        seen.add(posting.sourcePostingId);
        // Listed only when temporary work and placement agencies are included: a staffing firm's offer.
        if (!directIds.has(posting.sourcePostingId)) posting.poster = 'staffing';
        postings.push(posting);
      }
      return { kind: 'fetched', postings, skipped, siteState: next };
    },
  };
}

/** The Jobsuche connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'bundesagentur',
  provider: { label: 'Bundesagentur für Arbeit Jobsuche (Germany)', providerClass: 'government', sourceType: 'public_agency', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://rest.arbeitsagentur.de/jobboerse/jobsuche-service', description: 'Bundesagentur für Arbeit Jobsuche API root (search under /pc/v6/jobs, else /pc/v4/jobs).' },
  applyHosts: { agency: ['arbeitsagentur.de'] },
  create: (baseUrl) => createBundesagenturConnector(baseUrl!),
});
