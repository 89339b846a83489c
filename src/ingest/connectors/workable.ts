/**
 * Workable connector: an account's published jobs, read through one of Workable's two public APIs,
 * chosen by the target's board. Both are the same provider (`workable`) and the same posting ids (the
 * job's `shortcode`), so a job is one ledger row whichever API read it, and an account can move from one
 * API to the other without a row changing identity.
 *
 * **Board `{account}`: the jobs widget API**, `GET {base}/api/v1/widget/accounts/{account}?details=true`
 * (Workable help centre, "Embed your jobs widget"; the same answer as
 * `www.workable.com/api/accounts/{account}?details=true`), answering `{"name": account name, "jobs": [...]}`
 * with every published job of the account and, with `details=true`, its description, in one
 * conditional request. The cheapest read, and the one with a recording (the demo's).
 *
 * | Workable widget | SourcePosting |
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
 *
 * **Board `v3:{account}`: the public jobs API of the account's hosted careers page**
 * (`apply.workable.com/{account}`, issue 18): `POST {base}/api/v3/accounts/{account}/jobs` with the
 * careers page's empty filter `{"query":"","location":[],"department":[],"worktype":[],"remote":[],"workplace":[]}`
 * answers `{total, results[], nextPage?}` a page at a time; the next page is asked with the same body
 * plus `"token": nextPage`, until an answer carries no `nextPage`. Each job's details (its text) come
 * from `GET {base}/api/v2/accounts/{account}/jobs/{shortcode}`, which repeats the list fields and adds
 * `description`, `requirements` and `benefits`. Workable documents no reference page for these
 * endpoints (its published API, workable.readme.io, is the token-protected SPI); the shapes follow the
 * answers described in the shared data's `workable/SOURCE.md` and the field meanings of Workable's job
 * resource (workable.readme.io "Jobs": `shortcode`, `state` published/closed/archived).
 *
 * | Workable v3 list item + v2 details | SourcePosting |
 * |---|---|
 * | `shortcode` | `sourcePostingId` |
 * | `title` | `title` |
 * | target.companyName, else the account | `company.name` (the API names no company) |
 * | `locations[]` {city, region, country, countryCode}, `hidden: true` left out; else `location` | `locations[]`, `location` |
 * | `workplace` `on_site` / `hybrid` / `remote`, else `remote` true | `remoteFlag` on_site / hybrid / remote |
 * | `type` full / part / contract / temporary / internship (else as given) | `employmentType` Full-time / Part-time / Contract / Temporary / Internship |
 * | `published` (RFC 3339) | `postedAt` |
 * | details `description`, then `requirements` and `benefits` under their own headings | `descriptionHtml` |
 * | `https://apply.workable.com/{account}/j/{shortcode}/` (and `.../apply/`) | `postingUrl` (and `applyUrl`) |
 * | `department[]` | `hints.department` (joined with " / ") |
 *
 * v3 closure signals of the source: a listed job whose `state` is not `published`, or whose details
 * answer 404 or 410, is returned in `gone` (closed `expired_upstream`). Jobs marked `isInternal` are
 * not public vacancies and are left out. Conditional requests: the list is a POST, which HTTP caches do
 * not validate, so every crawl reads every list page; each job's details are asked with the ETag of
 * their last answer (kept on the target with the job as mapped), and a crawl whose list is as before and
 * whose details all answer 304 is `not_modified`. A list longer than {@link WORKABLE_V3_MAX_PAGES}
 * pages, a repeated page token, or any page or details answer that fails fails the whole crawl (nothing
 * changes): a partial list would look like closures.
 */
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { companyOf, compact, documentBoardConnector, fetchJson, identifiedItem, isoInstant, isRecord, locationList, mapPostings, parseJson, text, textList, trimBase } from './common.ts';

/** A calendar date (YYYY-MM-DD) as that day's first instant in UTC; undefined for anything else. */
function dateStart(value: unknown): string | undefined {
  const s = text(value)?.trim();
  if (s === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return undefined;
  const ms = Date.parse(`${s}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** One location of a Workable job, widget and v3 alike; undefined when the employer hides it. */
function workableLocation(l: Record<string, unknown>): SourceLocation | undefined {
  if (l['hidden'] === true) return undefined;
  const parts = [text(l['city']), text(l['region']), text(l['country'])].filter((p) => p !== undefined);
  return { text: parts.length > 0 ? parts.join(', ') : undefined, country: text(l['countryCode']) ?? text(l['country']), region: text(l['region']), city: text(l['city']) };
}

/** Map one Workable widget job; null when it has no shortcode or title. */
export function mapWorkableJob(item: unknown, target: CrawlTarget, accountName?: string): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['shortcode']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  const locations = locationList(job['locations'], workableLocation);
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

/** The board prefix that selects the v3 careers-page API: `v3:{account}`. */
export const WORKABLE_V3_PREFIX = 'v3:';
/** Most v3 list pages read per crawl; a longer list fails the crawl rather than look like closures. */
export const WORKABLE_V3_MAX_PAGES = 200;
/** The careers page's own unfiltered search. */
const V3_QUERY = { query: '', location: [], department: [], worktype: [], remote: [], workplace: [] } as const;
/** An account name as Workable spells them (its hosted page's path segment). */
const ACCOUNT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** v3 `type` → the widget's wording of the employment type. */
const V3_TYPES: Readonly<Record<string, string>> = { full: 'Full-time', part: 'Part-time', contract: 'Contract', temporary: 'Temporary', internship: 'Internship' };
const V3_WORKPLACES: Readonly<Record<string, 'on_site' | 'hybrid' | 'remote'>> = { on_site: 'on_site', onsite: 'on_site', hybrid: 'hybrid', remote: 'remote' };

/**
 * The account of a v3 board (`v3:{account}`), or undefined for a widget board.
 * @throws CrawlError('blocked') for a v3 board whose account is not an account name.
 */
export function workableV3Account(target: CrawlTarget): string | undefined {
  if (!target.board.startsWith(WORKABLE_V3_PREFIX)) return undefined;
  const account = target.board.slice(WORKABLE_V3_PREFIX.length);
  if (!ACCOUNT.test(account)) throw new CrawlError('blocked', `${target.id}: a Workable v3 board is v3:{account}, the account as in apply.workable.com/{account}`);
  return account;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The advert HTML of v2 details: `description`, then `requirements` and `benefits` under headings; undefined when all are empty. */
export function workableV3AdHtml(details: Record<string, unknown>): string | undefined {
  const parts = [text(details['description'])];
  for (const [key, heading] of [['requirements', 'Requirements'], ['benefits', 'Benefits']] as const) {
    const body = text(details[key]);
    if (body !== undefined) parts.push(`<h3>${escapeText(heading)}</h3>${body}`);
  }
  const html = parts.filter((p) => p !== undefined).join('');
  return html === '' ? undefined : html;
}

/**
 * Map one v3 job: its list item merged with its v2 details (details win); null when it has no shortcode
 * or title.
 */
export function mapWorkableV3Job(item: unknown, target: CrawlTarget, account: string): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['shortcode']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  const locations = locationList(Array.isArray(job['locations']) && job['locations'].length > 0 ? job['locations'] : [job['location']], workableLocation);
  const workplace = text(job['workplace'])?.trim().toLowerCase();
  const type = text(job['type'])?.trim();
  const departments = textList(job['department']);
  const page = `https://apply.workable.com/${encodeURIComponent(account)}/j/${encodeURIComponent(id)}/`;
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf({ ...target, board: account }),
    location: locations[0]?.text,
    locations,
    remoteFlag: workplace !== undefined && V3_WORKPLACES[workplace] ? V3_WORKPLACES[workplace] : job['remote'] === true ? 'remote' : undefined,
    employmentType: type === undefined ? undefined : (V3_TYPES[type.toLowerCase()] ?? type),
    postedAt: isoInstant(job['published']),
    descriptionHtml: workableV3AdHtml(job),
    applyUrl: `${page}apply/`,
    postingUrl: page,
    hints: departments.length > 0 ? { department: departments.join(' / ') } : undefined,
  });
}

/** What a v3 board keeps on its target between crawls (`site_state`). */
interface V3State {
  /** SHA-256 of the last list's items, in order. */
  list?: string;
  /** Per shortcode: the ETag of its details answer, the list item it was merged with (hash), the mapped job. */
  details: Record<string, { etag: string; item: string; posting: SourcePosting }>;
}

function loadV3State(value: unknown): V3State {
  return isRecord(value) && isRecord(value['details']) ? (value as unknown as V3State) : { details: {} };
}

const sha256 = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('base64url');

/** Crawl a v3 board (see the module docstring). @throws CrawlError: fetch failures by kind; `malformed` for answers that are not the API's. */
async function crawlV3(base: string, target: CrawlTarget, account: string, fetcher: Fetcher): Promise<CrawlOutcome> {
  const accountUrl = `${base}/api/v3/accounts/${encodeURIComponent(account)}/jobs`;
  const items: Record<string, unknown>[] = [];
  const tokens = new Set<string>();
  let token: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= WORKABLE_V3_MAX_PAGES) throw new CrawlError('malformed', `${target.id}: the job list goes on past ${WORKABLE_V3_MAX_PAGES} pages`);
    const answer = await fetchJson(fetcher, accountUrl, target, { post: token === undefined ? V3_QUERY : { ...V3_QUERY, token } });
    const json = answer.json;
    if (!isRecord(json) || !Array.isArray(json['results'])) throw new CrawlError('malformed', `${target.id}: list page ${page + 1} is not {total, results: [...], nextPage}`);
    const results = json['results'] as unknown[];
    for (const r of results) items.push(isRecord(r) ? r : { junk: r });
    token = text(json['nextPage']);
    if (token === undefined || results.length === 0) break;
    if (tokens.has(token)) throw new CrawlError('malformed', `${target.id}: list page ${page + 1} names an earlier page again as its next`);
    tokens.add(token);
  }

  const previous = loadV3State(target.siteState);
  const next: V3State = { list: sha256(items), details: {} };
  const gone: string[] = [];
  let changed = next.list !== previous.list;
  const limit = pLimit(4);
  const mapped = await Promise.all(
    items.map((item) =>
      limit(async (): Promise<SourcePosting | null | undefined> => {
        if (item['isInternal'] === true) return undefined;
        const shortcode = text(item['shortcode']);
        if (shortcode === undefined) return null;
        const state = text(item['state']);
        if (state !== undefined && state !== 'published') {
          gone.push(shortcode);
          return undefined;
        }
        const itemHash = sha256(item);
        const memo = previous.details[shortcode];
        const conditional = memo !== undefined && memo.item === itemHash ? { 'if-none-match': memo.etag } : undefined;
        const details = await fetchJson(fetcher, `${base}/api/v2/accounts/${encodeURIComponent(account)}/jobs/${encodeURIComponent(shortcode)}`, target, { acceptStatuses: [404, 410], headers: conditional });
        if (details.status === 304) {
          if (!conditional || !memo) throw new CrawlError('malformed', `${target.id}: details of ${shortcode} answered 304 to an unconditional request`);
          next.details[shortcode] = memo;
          return memo.posting;
        }
        changed = true;
        if (details.status === 404 || details.status === 410 || (isRecord(details.json) && text(details.json['state']) !== undefined && details.json['state'] !== 'published')) {
          gone.push(shortcode);
          return undefined;
        }
        if (!isRecord(details.json)) throw new CrawlError('malformed', `${target.id}: details of ${shortcode} are not an object`);
        const posting = mapWorkableV3Job({ ...item, ...details.json }, target, account);
        if (posting && details.etag) next.details[shortcode] = { etag: details.etag, item: itemHash, posting };
        return posting;
      }),
    ),
  );
  if (!changed && gone.length === 0) return { kind: 'not_modified' };
  const result = mapPostings(
    mapped.filter((m) => m !== undefined),
    (posting) => posting as SourcePosting | null,
  );
  return compact({ kind: 'fetched' as const, ...result, siteState: next, gone: gone.length > 0 ? gone : undefined });
}

/**
 * Create the Workable connector.
 * @param baseUrl origin of Workable's public APIs, e.g. `https://apply.workable.com` (config `JOBLEDGER_WORKABLE_BASE_URL`).
 */
export function createWorkableConnector(baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  const widget = documentBoardConnector({
    id: 'workable',
    boardUrl: (target) => `${base}/api/v1/widget/accounts/${encodeURIComponent(target.board)}?details=true`,
    /** @throws CrawlError `malformed` unless the answer is `{"jobs": [...]}`. */
    read(body, target) {
      const payload = parseJson(body, target);
      if (!isRecord(payload) || !Array.isArray(payload['jobs'])) throw new CrawlError('malformed', `${target.id}: expected an object with a "jobs" array`);
      const name = text(payload['name']);
      return mapPostings(payload['jobs'], (job) => mapWorkableJob(job, target, name));
    },
  });
  return {
    id: 'workable',
    boardUrl(target) {
      const account = workableV3Account(target);
      return account === undefined ? widget.boardUrl(target) : `${base}/api/v3/accounts/${encodeURIComponent(account)}/jobs`;
    },
    async crawl(target, fetcher) {
      const account = workableV3Account(target);
      return account === undefined ? widget.crawl(target, fetcher) : crawlV3(base, target, account, fetcher);
    },
  };
}

/** The Workable connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'workable',
  provider: { label: 'Workable', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://apply.workable.com', description: "Workable's public jobs API base URL (the widget API, and the careers-page API of v3: boards)." },
  applyHosts: { atsAnyPath: ['apply.workable.com'] },
  replay: {
    // `/api/v1/widget/accounts/{account}` (the widget), `POST /api/v3/accounts/{account}/jobs` (the v3
    // list), `/api/v2/accounts/{account}/jobs/{shortcode}` (v3 details).
    pattern: /^\/api\/(v3|v2|v1\/widget)\/accounts\/([^/]+)(?:\/jobs)?(?:\/[^/]+)?\/?$/,
    // fixtures/workable/<account>.json is a widget answer; v3/<account>.json the first v3 list page,
    // v3/<account>.page-<token>.json the page of that token, v3/<account>/<shortcode>.json the details.
    file: (match, request) => {
      const parts = match.input.split('/').filter(Boolean);
      const at = parts.indexOf('accounts');
      const [jobs, shortcode, extra] = parts.slice(at + 2);
      const decode = (s: string): string | null => {
        try {
          return decodeURIComponent(s);
        } catch {
          return null;
        }
      };
      const name = decode(match[2] ?? '');
      if (name === null) return null;
      if (match[1] === 'v1/widget') return jobs === undefined ? name : null;
      if (jobs !== 'jobs' || extra !== undefined) return null;
      if (match[1] === 'v2') return shortcode !== undefined && decode(shortcode) !== null ? `v3/${name}/${decode(shortcode)!}` : null;
      if (shortcode !== undefined) return null;
      const token = isRecord(request.body) ? text(request.body['token']) : undefined;
      return token === undefined ? `v3/${name}` : `v3/${name}.page-${token}`;
    },
    methods: ['POST'],
    notFound: { error: 'Not found' },
  },
  fixtures: { notice: 'README.md' },
  create: createWorkableConnector,
});
