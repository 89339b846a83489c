/**
 * Board discovery (`jobledger targets discover`): name the ATS board(s) behind a company's careers page.
 *
 * The page is fetched through the guarded fetcher (redirects followed and vetted); every URL it
 * mentions is read: `<a href>`, `<iframe src>`, `<script src>`, `<link href>`, `<form action>`, the
 * final URL after redirects, and URLs written inside inline scripts (embed snippets). Each URL on a
 * supported ATS host names a board by that ATS's own URL scheme (below). A page that names no ATS but
 * carries schema.org JobPosting JSON-LD is the company's own career site: the `career_site` target is
 * the page itself.
 *
 * | provider | URLs recognised (board in braces) |
 * |---|---|
 * | ashby | `jobs.ashbyhq.com/{board}`, `api.ashbyhq.com/posting-api/job-board/{board}` |
 * | greenhouse | `boards.greenhouse.io/{board}`, `job-boards(.eu).greenhouse.io/{board}`, `…/embed/job_board?for={board}`, `boards-api.greenhouse.io/v1/boards/{board}` |
 * | lever | `jobs.lever.co/{site}`, `jobs.eu.lever.co/{site}`, `api.lever.co/v0/postings/{site}` |
 * | smartrecruiters | `jobs.smartrecruiters.com/{company}`, `careers.smartrecruiters.com/{company}`, `api.smartrecruiters.com/v1/companies/{company}` |
 * | recruitee | `{company}.recruitee.com` |
 * | workable | `apply.workable.com/{account}`, `apply.workable.com/api/v1/widget/accounts/{account}`, `apply.workable.com/api/v{n}/accounts/{account}`, `{account}.workable.com`: board `{account}` (the widget API); `apply.workable.com/api/v3/accounts/{account}` (a page that reads the careers-page API itself): board `v3:{account}`, which then replaces the account's widget board |
 * | personio | `{company}.jobs.personio.de`, `{company}.jobs.personio.com` |
 * | workday | `{tenant}.wd{n}.myworkdayjobs.com/[{locale}/]{site}`, `…/wday/cxs/{tenant}/{site}`: board `{host}/{tenant}/{site}` |
 */
import { Parser } from 'htmlparser2';
import type { Fetcher } from './fetcher.ts';
import { readPage } from './job-posting-json-ld.ts';

/** One board a careers page points at. */
export interface DiscoveredBoard {
  /** Provider id (connectors/registry.ts ids; the five ATS ids smartrecruiters, recruitee, workable, personio, workday included). */
  provider: string;
  board: string;
  /** The URL that named it. */
  evidence: string;
}

/** Path segments that are no board (an ATS's own pages, not a company's). */
const NOT_BOARDS = new Set(['embed', 'api', 'v0', 'v1', 'v2', 'v3', 'static', 'assets', 'js', 'css', 'favicon.ico', 'robots.txt', 'sitemap.xml']);
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._~%-]*$/;
/** Workday locale segments (`en-US`, `de-DE`, `fr`). */
const LOCALE = /^[a-z]{2}(-[A-Z]{2})?$/;

/**
 * The ATS hosts that name a board in the path: a board page's first segment (`jobs.lever.co/{site}`), or
 * on an API host the segment after `apiPath` (`api.lever.co/v0/postings/{site}`).
 */
const BOARD_HOSTS: ReadonlyMap<string, { provider: string; apiPath?: readonly string[] }> = new Map([
  ['jobs.ashbyhq.com', { provider: 'ashby' }],
  ['api.ashbyhq.com', { provider: 'ashby', apiPath: ['posting-api', 'job-board'] }],
  ['boards.greenhouse.io', { provider: 'greenhouse' }],
  ['job-boards.greenhouse.io', { provider: 'greenhouse' }],
  ['job-boards.eu.greenhouse.io', { provider: 'greenhouse' }],
  ['boards-api.greenhouse.io', { provider: 'greenhouse', apiPath: ['v1', 'boards'] }],
  ['jobs.lever.co', { provider: 'lever' }],
  ['jobs.eu.lever.co', { provider: 'lever' }],
  ['api.lever.co', { provider: 'lever', apiPath: ['v0', 'postings'] }],
  ['api.eu.lever.co', { provider: 'lever', apiPath: ['v0', 'postings'] }],
  ['jobs.smartrecruiters.com', { provider: 'smartrecruiters' }],
  ['careers.smartrecruiters.com', { provider: 'smartrecruiters' }],
  ['api.smartrecruiters.com', { provider: 'smartrecruiters', apiPath: ['v1', 'companies'] }],
]);

function token(segment: string | undefined): string | undefined {
  if (!segment || NOT_BOARDS.has(segment.toLowerCase()) || !TOKEN.test(segment)) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The board a URL names, or undefined when it is on no supported ATS host (or names no board).
 * @param raw an absolute URL.
 */
export function boardOfUrl(raw: string): Omit<DiscoveredBoard, 'evidence'> | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const host = url.hostname.toLowerCase();
  const path = url.pathname.split('/').filter(Boolean);
  const at = (provider: string, board: string | undefined) => (board ? { provider, board } : undefined);
  const known = BOARD_HOSTS.get(host);
  if (known?.apiPath) return known.apiPath.every((segment, i) => path[i] === segment) ? at(known.provider, token(path[known.apiPath.length])) : undefined;
  // Greenhouse's embed names the board in its query (…/embed/job_board?for={board}).
  if (known?.provider === 'greenhouse' && path[0] === 'embed') return at('greenhouse', token(url.searchParams.get('for') ?? undefined));
  if (known) return at(known.provider, token(path[0]));
  if (host === 'apply.workable.com') {
    if (path[0] !== 'api') return at('workable', token(path[0]));
    const account = path[2] === 'accounts' ? token(path[3]) : path[2] === 'widget' && path[3] === 'accounts' ? token(path[4]) : undefined;
    return at('workable', account && path[1] === 'v3' ? `v3:${account}` : account);
  }
  const sub = /^([a-z0-9][a-z0-9-]*)\.(recruitee\.com|workable\.com|jobs\.personio\.(?:de|com))$/.exec(host);
  if (sub && !['www', 'app', 'api', 'apply', 'careers', 'jobs'].includes(sub[1]!)) {
    const provider = sub[2] === 'recruitee.com' ? 'recruitee' : sub[2] === 'workable.com' ? 'workable' : 'personio';
    return { provider, board: sub[1]! };
  }
  if (/^[a-z0-9-]+\.wd\d+\.(myworkdayjobs|myworkdaysite)\.com$/.test(host)) {
    const tenant = host.split('.')[0]!;
    if (path[0] === 'wday' && path[1] === 'cxs' && path[2] && path[3]) return at('workday', token(path[3]) && `${host}/${path[2]}/${path[3]}`);
    const rest = LOCALE.test(path[0] ?? '') ? path.slice(1) : path;
    const site = token(rest[0]);
    return site && site !== 'wday' ? { provider: 'workday', board: `${host}/${tenant}/${site}` } : undefined;
  }
  return undefined;
}

/** URLs inside inline script text or JSON (embed snippets): any absolute http(s) URL. */
const URL_IN_TEXT = /https?:\/\/[^\s"'<>()\\]+/g;

/**
 * Every board a careers page names, each once, in document order; the career_site target when the
 * page names no ATS but carries JobPosting JSON-LD.
 * @param html the page's text; @param pageUrl its final URL (after redirects), for relative links.
 */
export function discoverBoardsInPage(html: string, pageUrl: string): DiscoveredBoard[] {
  const urls: string[] = [pageUrl];
  const attrs: Record<string, string[]> = { a: ['href'], iframe: ['src'], script: ['src'], link: ['href'], form: ['action'], embed: ['src'], object: ['data'] };
  let inScript = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        for (const attr of attrs[name] ?? []) {
          const value = attributes[attr]?.trim();
          if (!value) continue;
          try {
            urls.push(new URL(value, pageUrl).href);
          } catch {
            // Not a URL: nothing to read.
          }
        }
        if (name === 'script') inScript = true;
      },
      ontext(data) {
        if (inScript) for (const m of data.matchAll(URL_IN_TEXT)) urls.push(m[0]);
      },
      onclosetag(name) {
        if (name === 'script') inScript = false;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();

  const found: DiscoveredBoard[] = [];
  const seen = new Set<string>();
  for (const url of urls) {
    const board = boardOfUrl(url);
    if (!board) continue;
    const key = `${board.provider}:${board.board.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ ...board, evidence: url });
  }
  // One target per Workable account: a page that reads the v3 API itself names that board, not the widget's.
  const v3 = new Set(found.filter((b) => b.provider === 'workable' && b.board.startsWith('v3:')).map((b) => b.board.slice(3).toLowerCase()));
  const named = found.filter((b) => b.provider !== 'workable' || b.board.startsWith('v3:') || !v3.has(b.board.toLowerCase()));
  if (named.length === 0 && readPage(html).postings.length > 0) named.push({ provider: 'career_site', board: pageUrl, evidence: `${pageUrl} (JobPosting JSON-LD)` });
  return named;
}

/**
 * Fetch a careers page (a URL, or a bare domain read as `https://{domain}/`) and name its boards.
 * @throws FetchError (ingest/fetcher.ts) when the page cannot be fetched; Error for input that is neither URL nor domain.
 */
export async function discoverBoards(fetcher: Fetcher, input: string): Promise<{ pageUrl: string; boards: DiscoveredBoard[] }> {
  const trimmed = input.trim();
  const start = /^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}/`;
  if (!URL.canParse(start)) throw new Error(`"${input}" is neither a URL nor a domain name`);
  const direct = boardOfUrl(start);
  if (direct) return { pageUrl: start, boards: [{ ...direct, evidence: start }] };
  const response = await fetcher.get(start, { headers: { accept: 'text/html,application/xhtml+xml' } });
  return { pageUrl: response.url, boards: discoverBoardsInPage(response.body.toString('utf8'), response.url) };
}
