/**
 * What every connector does the same way: the conditional board fetch, the mapping of fetch failures
 * to {@link CrawlError}, JSON parsing that refuses anything that is not JSON, the whole crawl of a
 * board that is one document ({@link documentBoardConnector}; JSON: {@link jsonBoardConnector}; a job
 * board's feed, descriptor and all: {@link jobBoardFeed}), reading each posting's details
 * ({@link readDetails}), an advert's titled sections ({@link titledSection}), and small readers that
 * turn a payload's loosely typed values into `SourcePosting` fields without guessing (absent, null,
 * blank or wrongly typed values become `undefined`).
 */
import pLimit from 'p-limit';
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import type { SalaryPeriod } from '../../domain/vocabulary.ts';
import { CrawlError, defineConnector } from '../connector.ts';
import type { Connector, CrawlOutcome, CrawlTarget } from '../connector.ts';
import { FetchError } from '../fetcher.ts';
import type { Fetcher } from '../fetcher.ts';

/** The body of a board answer, or the fact that the board did not change since the target's validators. */
export type BoardFetch =
  | { kind: 'not_modified' }
  | { kind: 'body'; body: Buffer; etag?: string; lastModified?: string };

/**
 * GET a board URL, conditionally when the target carries validators (`If-None-Match` from `etag`,
 * `If-Modified-Since` from `lastModified`), asking for `accept` (JSON unless given).
 * @throws CrawlError of the matching kind when the fetch fails: FetchError kinds map one to one, except
 *   `bad_url` → `blocked` (the guard refused to fetch it) and `redirect` → `http_status` (the source
 *   never gave a usable answer; `status` is the last 3xx).
 * @param extraHeaders request headers a source requires (an agency's `Authorization`, a client id).
 */
export async function fetchBoard(fetcher: Fetcher, url: string, target: CrawlTarget, extraHeaders: Record<string, string> = {}): Promise<BoardFetch> {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (target.etag) headers['if-none-match'] = target.etag;
  if (target.lastModified) headers['if-modified-since'] = target.lastModified;
  let response;
  try {
    response = await fetcher.get(url, { headers });
  } catch (err) {
    throw crawlErrorOf(err, target);
  }
  if (response.status === 304) return { kind: 'not_modified' };
  return {
    kind: 'body',
    body: response.body,
    etag: text(response.headers['etag']),
    lastModified: text(response.headers['last-modified']),
  };
}

/** The {@link CrawlError} of a failed fetch (see {@link fetchBoard}); other errors are rethrown. */
export function crawlErrorOf(err: unknown, target: CrawlTarget): CrawlError {
  if (!(err instanceof FetchError)) throw err;
  const kind = err.kind === 'bad_url' ? 'blocked' : err.kind === 'redirect' ? 'http_status' : err.kind;
  return new CrawlError(kind, `${target.id}: ${err.message}`, err.status);
}

/**
 * GET (or, with `post`, POST that JSON body to) one document of a multi-document source (a page, a
 * posting's details) and parse it as JSON. `acceptStatuses` are returned as `{ status }` instead of
 * failing (404 of a posting's details: the source says it is gone).
 * @throws CrawlError for a failed fetch or an answer that is not JSON.
 */
export async function fetchJson(
  fetcher: Fetcher,
  url: string,
  target: CrawlTarget,
  options: { post?: unknown; acceptStatuses?: number[]; headers?: Record<string, string> } = {},
): Promise<{ status: number; json?: unknown; etag?: string; lastModified?: string }> {
  const headers = { accept: 'application/json', ...options.headers };
  let response;
  try {
    response = options.post === undefined ? await fetcher.get(url, { headers, acceptStatuses: options.acceptStatuses }) : await fetcher.post(url, options.post, { headers, acceptStatuses: options.acceptStatuses });
  } catch (err) {
    throw crawlErrorOf(err, target);
  }
  if (response.status === 304 || options.acceptStatuses?.includes(response.status)) return { status: response.status };
  return { status: response.status, json: parseJson(response.body, target), etag: text(response.headers['etag']), lastModified: text(response.headers['last-modified']) };
}

/**
 * Parse a board body as JSON (UTF-8, a leading byte-order mark tolerated).
 * @throws CrawlError('malformed') for an empty body, an HTML page, truncated or otherwise invalid JSON.
 */
export function parseJson(body: Buffer, target: CrawlTarget): unknown {
  let textBody = body.toString('utf8');
  if (textBody.charCodeAt(0) === 0xfeff) textBody = textBody.slice(1);
  try {
    return JSON.parse(textBody);
  } catch (err) {
    const start = textBody.trimStart().slice(0, 40).replace(/\s+/g, ' ');
    throw new CrawlError('malformed', `${target.id}: answer is not JSON (${(err as Error).message}; starts with ${JSON.stringify(start)})`);
  }
}

/**
 * The list of postings a board answer carries: the top-level array (`listKey` omitted: Lever,
 * USAJOBS), or the array under `listKey` of a top-level object (`jobs`: Ashby, Greenhouse, Himalayas,
 * Remotive; `data`: Arbeitnow).
 * @param items what the top-level array holds, for the error message
 * @throws CrawlError('malformed') when the body is not JSON or carries no such array.
 */
export function boardList(body: Buffer, target: CrawlTarget, listKey?: string, items = 'postings'): unknown[] {
  const payload = parseJson(body, target);
  if (listKey === undefined) {
    if (!Array.isArray(payload)) throw new CrawlError('malformed', `${target.id}: expected a JSON array of ${items}`);
    return payload;
  }
  const list = isRecord(payload) ? payload[listKey] : undefined;
  if (!Array.isArray(list)) throw new CrawlError('malformed', `${target.id}: expected an object with a "${listKey}" array`);
  return list;
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string with visible content, as given (not trimmed); anything else is undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The non-blank strings of an array, in order; anything that is not an array gives none. */
export function textList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(text).filter((t): t is string => t !== undefined) : [];
}

/** A source item that has what every posting needs: the item as a record, its source id and its title. */
export interface IdentifiedItem {
  record: Record<string, unknown>;
  id: string;
  title: string;
}

/**
 * The record, source id and title of one source item, read by `idOf` and `titleOf`; null when the item
 * is not an object or either is missing, the one rule every mapper shares (a posting needs an id and a
 * title; {@link mapPostings} counts a null as skipped).
 */
export function identifiedItem(
  item: unknown,
  idOf: (record: Record<string, unknown>) => string | undefined,
  titleOf: (record: Record<string, unknown>) => string | undefined,
): IdentifiedItem | null {
  if (!isRecord(item)) return null;
  const id = idOf(item);
  const title = titleOf(item);
  return id === undefined || title === undefined ? null : { record: item, id, title };
}

/**
 * The locations of a payload's list: each object in it read by `read` (undefined: one the posting does
 * not name, e.g. a hidden one), without its undefined fields; a location with no field left is left out,
 * and anything but an array gives none.
 */
export function locationList(list: unknown, read: (item: Record<string, unknown>) => SourceLocation | undefined): SourceLocation[] {
  if (!Array.isArray(list)) return [];
  const locations: SourceLocation[] = [];
  for (const item of list) {
    const loc = isRecord(item) ? read(item) : undefined;
    const kept = loc === undefined ? undefined : compact(loc);
    if (kept !== undefined && Object.keys(kept).length > 0) locations.push(kept);
  }
  return locations;
}

/** A finite number; anything else (null, strings, NaN) is undefined. */
export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An id as a string: non-blank strings as given, finite numbers in decimal. */
export function idString(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return text(value);
}

/**
 * An RFC 3339 date-time (with its offset, e.g. `2025-10-15T06:08:46.281+00:00`) as a UTC instant in
 * `toISOString` form, or undefined when it is not one. A bare date or a date-time without an offset is
 * refused: reading it would mean guessing a time or a time zone.
 */
export function isoInstant(value: unknown): string | undefined {
  const s = text(value)?.trim();
  if (s === undefined || !/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * A local date-time without an offset (`2019-05-12T23:59:59`) read in `zone`, as a UTC instant; a value
 * with an offset is read as is. Undefined for anything else.
 */
export function zonedInstant(value: unknown, zone: string): string | undefined {
  const withOffset = isoInstant(value);
  if (withOffset) return withOffset;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?$/.exec(text(value)?.trim() ?? '');
  if (!m) return undefined;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(asUtc)) return undefined;
  // The zone's offset at that moment (one correction step is exact outside the DST switch hour).
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(asUtc))
      .map((p) => [p.type, p.value]),
  );
  const shown = Date.UTC(Number(parts['year']), Number(parts['month']) - 1, Number(parts['day']), Number(parts['hour']), Number(parts['minute']), Number(parts['second']));
  return new Date(asUtc - (shown - asUtc)).toISOString();
}

/** Epoch milliseconds as a UTC instant, or undefined when not a plausible number. */
export function isoFromEpochMs(value: unknown): string | undefined {
  const ms = finite(value);
  if (ms === undefined || ms <= 0) return undefined;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The company of a posting whose payload may not name it: payload name, else target name, else board. */
export function companyOf(target: CrawlTarget, payloadName?: string): SourcePosting['company'] {
  const company: SourcePosting['company'] = { name: payloadName ?? text(target.companyName) ?? target.board };
  if (target.companyDomain) company.domain = target.companyDomain;
  if (target.companyLogo) company.logoUrl = target.companyLogo;
  return company;
}

/** Drop keys whose value is undefined, so a mapped posting carries only what the source gave. */
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

/**
 * A structured salary from a payload's amounts (finite numbers, as given), currency (upper-cased) and
 * period (null: the source's interval has no stored equivalent); undefined when neither amount is a number.
 */
export function salaryOf(min: unknown, max: unknown, currency: unknown, period: SalaryPeriod | null): SourceSalary | undefined {
  const salary = compact<SourceSalary>({ min: finite(min), max: finite(max), currency: text(currency)?.trim().toUpperCase(), period });
  return salary.min === undefined && salary.max === undefined ? undefined : salary;
}

/**
 * Keep one posting per `sourcePostingId`, in first-seen order. When `prefer(candidate, kept)` says so,
 * a later duplicate replaces the kept one in place; by default the first occurrence wins (duplicates
 * in an ATS board are copies of one posting).
 */
export function dedupeById(
  postings: SourcePosting[],
  prefer: (candidate: SourcePosting, kept: SourcePosting) => boolean = () => false,
): SourcePosting[] {
  const index = new Map<string, number>();
  const out: SourcePosting[] = [];
  for (const posting of postings) {
    const at = index.get(posting.sourcePostingId);
    if (at === undefined) {
      index.set(posting.sourcePostingId, out.length);
      out.push(posting);
    } else if (prefer(posting, out[at]!)) {
      out[at] = posting;
    }
  }
  return out;
}

/**
 * Map each item of a payload's posting list, counting the items `map` rejects (returns null: no id or
 * no title) and skipping those it ignores (returns undefined, e.g. an unlisted Ashby posting), then
 * dedupe by id.
 */
export function mapPostings(
  items: readonly unknown[],
  map: (item: unknown) => SourcePosting | null | undefined,
  prefer?: (candidate: SourcePosting, kept: SourcePosting) => boolean,
): { postings: SourcePosting[]; skipped: number } {
  const postings: SourcePosting[] = [];
  let skipped = 0;
  for (const item of items) {
    const posting = map(item);
    if (posting === null) skipped++;
    else if (posting !== undefined) postings.push(posting);
  }
  return { postings: dedupeById(postings, prefer), skipped };
}

/** Plain text (a section title) as HTML text: `&`, `<` and `>` escaped. */
export function escapeText(plain: string): string {
  return plain.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * One section of an advert as the ATS's hosted page shows it: its plain-text title, trimmed, as an
 * `<h3>` heading (none without a title), then its HTML.
 */
export function titledSection(title: string | undefined, html: string): string {
  return `${title !== undefined ? `<h3>${escapeText(title.trim())}</h3>` : ''}${html}`;
}

/** How many posting details one crawl requests at once, where a source needs one request per posting. */
export const DETAILS_AT_ONCE = 4;

/**
 * Read each listed item's details (SmartRecruiters, Workday: one request per posting), at most
 * {@link DETAILS_AT_ONCE} at a time. `read` returns the item with its details, or calls `gone` with the
 * posting's source id when the details say it left the board (404, 410, or the source's own flag) and
 * returns undefined.
 * @returns what `read` returned, in the list's order, and the ids of the postings gone (undefined when none).
 * @throws what `read` throws (a CrawlError fails the crawl).
 */
export async function readDetails<T, R>(items: readonly T[], read: (item: T, gone: (sourcePostingId: string) => void) => Promise<R | undefined>): Promise<{ read: R[]; gone?: string[] }> {
  const limit = pLimit(DETAILS_AT_ONCE);
  const gone: string[] = [];
  const results = await Promise.all(items.map((item) => limit(() => read(item, (id) => gone.push(id)))));
  return { read: results.filter((r) => r !== undefined), gone: gone.length > 0 ? gone : undefined };
}

/** The `fetched` outcome with the answer's validators. */
export function fetched(result: { postings: SourcePosting[]; skipped: number }, answer: { etag?: string; lastModified?: string }): CrawlOutcome {
  return compact({ kind: 'fetched' as const, postings: result.postings, skipped: result.skipped, etag: answer.etag, lastModified: answer.lastModified });
}

/** A base URL without trailing slashes, so `${base}/path` never doubles one. */
export function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/** What one answer of a {@link DocumentBoard} holds: its postings, the items it skipped, and ids it says are gone. */
export interface BoardReading {
  postings: SourcePosting[];
  skipped: number;
  /** Source ids the answer proves closed (a status other than published); omitted or empty: none. */
  gone?: string[];
}

/** A source whose board is one document fetched with one conditional GET: what {@link documentBoardConnector} needs. */
export interface DocumentBoard {
  /** The connector's id (its descriptor's). */
  id: string;
  /** The board's URL for `target`. */
  boardUrl(target: CrawlTarget): string;
  /** Request headers besides the validators (an XML feed's `accept`). */
  headers?: Record<string, string>;
  /**
   * The postings of one answer's body.
   * @throws CrawlError `malformed` when the body is not the board's document.
   */
  read(body: Buffer, target: CrawlTarget): BoardReading;
}

/**
 * The connector of a {@link DocumentBoard}: one conditional GET of the board's URL; a 304 is
 * `not_modified`, any other answer is read into the `fetched` outcome with the answer's validators.
 * @throws CrawlError (from `crawl`): fetch failures by kind; what `read` throws.
 */
export function documentBoardConnector(board: DocumentBoard): Connector {
  return {
    id: board.id,
    boardUrl: board.boardUrl,
    async crawl(target, fetcher) {
      const answer = await fetchBoard(fetcher, board.boardUrl(target), target, board.headers);
      if (answer.kind === 'not_modified') return answer;
      const { gone, ...result } = board.read(answer.body, target);
      return compact({ ...fetched(result, answer), gone: gone !== undefined && gone.length > 0 ? gone : undefined });
    },
  };
}

/** A source whose board is one JSON document: what {@link jsonBoardConnector} needs to crawl it. */
export interface JsonBoard {
  /** The connector's id (its descriptor's). */
  id: string;
  /** The board's URL; `base` is the configured base URL without trailing slashes. */
  url(base: string, target: CrawlTarget): string;
  /** The posting list's key in a top-level object (see {@link boardList}); omitted: the answer is the array. */
  listKey?: string;
  /** What the top-level array holds, for the error message (default `postings`). */
  items?: string;
  /** Map one item: null when it lacks an id or a title (counted), undefined when it is to be ignored. */
  map(item: unknown, target: CrawlTarget): SourcePosting | null | undefined;
  /** Which of two postings with one id is kept (see {@link dedupeById}; default the first). */
  prefer?: (candidate: SourcePosting, kept: SourcePosting) => boolean;
}

/**
 * The connector of a {@link JsonBoard}: one conditional GET of the board's URL under `baseUrl`; a 304
 * is `not_modified`, any other answer is the board's posting list, mapped and deduplicated.
 * @throws CrawlError (from `crawl`): fetch failures by kind; `malformed` unless the answer carries the list.
 */
export function jsonBoardConnector(board: JsonBoard, baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  return documentBoardConnector({
    id: board.id,
    boardUrl: (target) => board.url(base, target),
    read: (body, target) => mapPostings(boardList(body, target, board.listKey, board.items), (item) => board.map(item, target), board.prefer),
  });
}

/**
 * A job board's public feed (Remotive, Himalayas, Arbeitnow): one JSON document at `path` under the
 * board's API origin, its postings under `listKey`.
 */
export interface JobBoardFeed<Id extends string> {
  id: Id;
  /** The provider's display name. */
  label: string;
  /** The API origin in production, e.g. `https://remotive.com` (setting `JOBLEDGER_<ID>_BASE_URL`). */
  origin: string;
  /** The feed's path, e.g. `/api/remote-jobs`; the replay server answers it (a trailing slash too). */
  path: string;
  /** The key of the posting list in the document. */
  listKey: string;
  /** Map one item: null when it lacks an id or a title. */
  map(item: unknown): SourcePosting | null;
  /** The bundled fixture's file stem (`fixtures/<id>/<file>.json`) and the 404 body of the board's API. */
  replay: { file: string; notFound: unknown };
}

/** `text` as a regular-expression source that matches it literally. */
function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The descriptor of a {@link JobBoardFeed}. A job board is an aggregator (spec: What the service does,
 * items 2 and 11): its provider is discovery-only and not redistributable, so the quality gate withholds
 * every row (rule `source.not_redistributable`) and the ledger keeps them unserved; no apply host is an
 * employer's own. The connector is {@link jsonBoardConnector} of the feed's URL.
 */
export function jobBoardFeed<const Id extends string>(feed: JobBoardFeed<Id>) {
  return defineConnector({
    id: feed.id,
    provider: { label: feed.label, providerClass: 'aggregator', sourceType: 'aggregator', redistributable: false, discoveryOnly: true },
    baseUrl: { default: feed.origin, description: `${feed.label} job-board API base URL (discovery only: its rows are never served).` },
    applyHosts: {},
    replay: { pattern: new RegExp(`^${literalPattern(feed.path)}\\/?$`), file: feed.replay.file, notFound: feed.replay.notFound },
    fixtures: { notice: 'README.md' },
    create: (baseUrl: string | undefined) => jsonBoardConnector({ id: feed.id, url: (base) => `${base}${feed.path}`, listKey: feed.listKey, map: feed.map }, baseUrl!),
  });
}

/**
 * A board that names a host label (`{company}.recruitee.com`, `{company}.jobs.personio.de`): letters,
 * digits and inner hyphens only, so a board can never change which host a template points at.
 */
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * Fill the `{placeholder}` of a base URL template (`https://{company}.recruitee.com`, or the replay
 * server's `http://127.0.0.1:port/recruitee/{company}`) with a board that must be a host label.
 * @throws CrawlError('blocked') when the board is not a host label (it would name another host).
 */
export function fillHostTemplate(baseUrl: string, placeholder: string, target: CrawlTarget): string {
  if (!HOST_LABEL.test(target.board)) throw new CrawlError('blocked', `${target.id}: board "${target.board}" is not a host label`);
  return trimBase(baseUrl).replaceAll(`{${placeholder}}`, target.board.toLowerCase());
}

/**
 * A `YYYY-MM-DD HH:MM:SS UTC` time stamp (Recruitee) or an RFC 3339 date-time as a UTC instant; undefined
 * for anything else.
 */
export function utcStamp(value: unknown): string | undefined {
  const s = text(value)?.trim();
  const m = s === undefined ? null : /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?) ?UTC$/.exec(s);
  return m ? isoInstant(`${m[1]}T${m[2]}Z`) : isoInstant(s);
}

/**
 * The structured salary of an object stating `min` and `max` (JSON numbers or decimal strings), its
 * currency under `keys.currency` (upper-cased) and its period under `keys.period`, mapped by `periods`
 * case-insensitively (an unknown period is null); undefined when it is not an object or states no amount.
 */
export function decimalSalary(value: unknown, keys: { currency: string; period: string }, periods: Readonly<Record<string, SalaryPeriod>>): SourceSalary | undefined {
  if (!isRecord(value)) return undefined;
  const min = decimal(value['min']);
  const max = decimal(value['max']);
  if (min === undefined && max === undefined) return undefined;
  const period = text(value[keys.period])?.trim().toLowerCase();
  return compact<SourceSalary>({ min, max, currency: text(value[keys.currency])?.trim().toUpperCase(), period: (period !== undefined ? periods[period] : undefined) ?? null });
}

/** A number given as a JSON number or a decimal string (`"95.00"`); undefined otherwise. */
export function decimal(value: unknown): number | undefined {
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return finite(value);
}
