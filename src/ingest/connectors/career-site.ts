/**
 * Career-site connector (`career_site`): a company's own careers page, read through the schema.org
 * JobPosting structured data its posting pages carry (issue 17; spec: "Every listing comes from ... a
 * company's own careers page"; Google's job-posting structured-data guidelines). The target's board is
 * the careers URL; its owner is the target's domain (`--domain`, by default the careers URL's host).
 *
 * One crawl, every request through the guarded fetcher with the service's User-Agent (it names the
 * operator's contact URL, `JOBLEDGER_CRAWLER_CONTACT_URL`), one request at a time, at least
 * `delayMs` apart or the robots.txt `Crawl-delay` when that is longer:
 * 1. `/robots.txt` of the careers URL's origin, read by `robots-parser` for the product token
 *    `jobledger`. A 4xx means no rules (RFC 9309 §2.3.1.3); a 5xx or an unreachable file, or rules
 *    disallowing the careers URL, fail the crawl before anything else is fetched (RFC 9309 §2.3.1.4).
 * 2. The sitemaps robots.txt names, else `/sitemap.xml`; sitemap indexes are followed (at most
 *    {@link MAX_SITEMAPS} documents; `.xml.gz` files are gunzipped). A missing sitemap (404/410) is no
 *    sitemap; any other failure fails the crawl, because a partial list would look like closures.
 * 3. The careers page: its own JobPostings and its links.
 * 4. Posting pages: sitemap entries and careers-page links on the site's own hosts whose path is
 *    under the careers path or names jobs ({@link POSTING_PATH}), not disallowed by robots.txt; pages
 *    never read first, then the least recently read; at most `maxPages` requests per crawl (fewer when
 *    the Crawl-delay would make the crawl longer than {@link CRAWL_BUDGET_MS}). A page whose sitemap
 *    `lastmod` is not newer than our last read is not asked again.
 *
 * The site's own hosts are the hosts of the careers URL's registrable domain (`example.com` and
 * `www.example.com`, `jobs.example.com`; public-suffix aware, private suffixes included, so
 * `acme.github.io` is not `other.github.io`), on the careers URL's port; a careers URL on an IP address
 * or a single-label host has only its own origin. Each other host's pages obey that host's own
 * robots.txt (RFC 9309 rules are per host), read when a page there is first wanted, at most
 * {@link MAX_SITE_HOSTS} hosts per crawl; a host whose robots.txt cannot be read contributes what its
 * pages carried last time, as a failed page does. The same page named on two hosts (`www.` and bare)
 * is read once, on the careers page's host when it is one of them. Every request still goes through
 * the guarded fetcher (SSRF guard on every host and redirect).
 * Every document is asked conditionally (`If-None-Match`/`If-Modified-Since` from the site state the
 * target keeps, migration 015), so an unchanged site costs one 304 per document and yields
 * `not_modified`; a 304 page contributes the postings read from it before, as does a page past the
 * bound or one that failed this time.
 *
 * Lifecycle evidence: a posting page answering 404/410, or answering without a JobPosting it carried
 * before, proves that posting dead (`gone`; the pipeline closes it `expired_upstream`). A posting whose
 * page left the sitemap and the careers page is simply not listed (the usual not_seen rule). A crawl
 * where no page carries any JobPosting while the last one read some is a failure (the site changed its
 * markup or hides it behind scripts), never evidence.
 *
 * Employer-direct: a JobPosting whose `hiringOrganization` is not the site's owner (matched by its
 * `sameAs`/`url` domain or its name against the target's domain and company name) was published for
 * someone else: the row names that organization and carries `poster` `jobboard` (`staffing` when the
 * owner is a staffing agency), so the poster-type rules withhold it by default. Apply links are the
 * posting's own `url` (else its page), on the employer's site: never through us.
 *
 * | JobPosting (see ../job-posting-json-ld.ts) | SourcePosting |
 * |---|---|
 * | `identifier` (scoped by host), else `url`, else the page URL | `sourcePostingId` |
 * | `title`, `description`, `datePosted`, `employmentType` | `title`, `descriptionHtml`, `postedAt`, `employmentType` |
 * | `validThrough` | `closesAt` |
 * | `hiringOrganization` `name`, `sameAs` domain, `logo` | `company` (the target's name/domain when it is the owner) |
 * | `jobLocation` addresses, then `applicantLocationRequirements` | `locations`, `location` |
 * | `jobLocationType` TELECOMMUTE | `remoteFlag` `remote` (published) |
 * | `baseSalary` | `salary` |
 * | `url` (resolved against the page) | `applyUrl`, `postingUrl` |
 */
import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import robotsParserModule from 'robots-parser';
import { bareDomain } from '../../domain/domain-name.ts';
import type { SourcePosting } from '../../domain/posting.ts';
import type { PosterType } from '../../domain/vocabulary.ts';
import { classifyPosterType } from '../../enrich/poster-type.ts';
import { CrawlError, defineConnector } from '../connector.ts';
import type { Connector, CrawlOutcome, CrawlTarget } from '../connector.ts';
import { FetchError } from '../fetcher.ts';
import type { Fetcher, FetchResponse } from '../fetcher.ts';
import { readPage, type JobPostingData } from '../job-posting-json-ld.ts';
import { compact, dedupeById } from './common.ts';

/**
 * robots-parser is CommonJS (`module.exports = function`) while its typings declare a default export;
 * under Node's ESM interop the default import is that function itself.
 */
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
};

/** The product token robots.txt groups are matched against (the User-Agent's first word). */
export const ROBOTS_AGENT = 'jobledger';
/** Sitemap documents (indexes included) read per crawl, at most. */
export const MAX_SITEMAPS = 20;
/** Entries kept from all sitemaps of one site, at most (a sitemap holds up to 50,000). */
export const MAX_SITEMAP_ENTRIES = 50_000;
/** Hosts of the site (the careers URL's registrable domain) whose pages one crawl reads, at most. */
export const MAX_SITE_HOSTS = 8;
/** Longest the requests of one crawl may be spread over by delays, ms (the pipeline allows a crawl 900 s). */
export const CRAWL_BUDGET_MS = 600_000;
/** Paths that name job postings (English, German, French, Dutch, Spanish, Scandinavian words). */
export const POSTING_PATH = /(?:^|[/_.-])(?:jobs?|careers?|vacanc(?:y|ies)|positions?|openings?|roles?|postings?|stellen\w*|karriere|emplois?|offres?|vacatures?|empleos?|ofertas?|jobb|stillinger?|tjanster)(?:$|[/_.-])/i;

export interface CareerSiteOptions {
  /** Posting pages requested per crawl, at most (config `JOBLEDGER_CAREER_MAX_PAGES`). */
  maxPages: number;
  /** Least pause between two requests, ms (config `JOBLEDGER_CAREER_DELAY_MS`). */
  delayMs: number;
  /** How to wait; the real timer unless a caller must observe the waits. */
  sleep?: (ms: number) => Promise<void>;
}

/** What one document of the site gave last time, with its validators. */
interface DocState {
  etag?: string;
  lastModified?: string;
  /** When we last had an answer from it (RFC 3339). */
  readAt: string;
  robots?: string;
  sitemaps?: string[];
  entries?: { loc: string; lastmod?: string }[];
  links?: string[];
  postings?: SourcePosting[];
}

/** The site state kept on the target between crawls (`crawl_targets.site_state`). */
interface SiteState {
  v: 1;
  docs: Record<string, DocState>;
}

function loadState(value: unknown): SiteState {
  if (typeof value === 'object' && value !== null && (value as SiteState).v === 1 && typeof (value as SiteState).docs === 'object') return value as SiteState;
  return { v: 1, docs: {} };
}

const xml = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, isArray: (name) => name === 'url' || name === 'sitemap', processEntities: true });

/** Sitemap (or sitemap index) entries; @throws CrawlError('malformed') when it is no sitemap. */
function readSitemap(body: Buffer, url: string, targetId: string): { entries: { loc: string; lastmod?: string }[]; sitemaps: string[] } {
  const bytes = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
  let doc: Record<string, unknown>;
  try {
    doc = xml.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new CrawlError('malformed', `${targetId}: sitemap ${url} is not XML (${(error as Error).message})`);
  }
  const loc = (item: unknown): { loc: string; lastmod?: string } | undefined => {
    if (typeof item !== 'object' || item === null) return undefined;
    const l = (item as Record<string, unknown>)['loc'];
    const m = (item as Record<string, unknown>)['lastmod'];
    if (typeof l !== 'string' || l.trim() === '') return undefined;
    return compact({ loc: l.trim(), lastmod: typeof m === 'string' ? m.trim() : undefined });
  };
  const urlset = doc['urlset'] as Record<string, unknown> | undefined;
  const index = doc['sitemapindex'] as Record<string, unknown> | undefined;
  if (urlset !== undefined) {
    const items = (typeof urlset === 'object' && urlset !== null ? (urlset['url'] as unknown[]) : undefined) ?? [];
    return { entries: items.map(loc).filter((e) => e !== undefined), sitemaps: [] };
  }
  if (index !== undefined) {
    const items = (typeof index === 'object' && index !== null ? (index['sitemap'] as unknown[]) : undefined) ?? [];
    return { entries: [], sitemaps: items.map(loc).filter((e) => e !== undefined).map((e) => e.loc) };
  }
  throw new CrawlError('malformed', `${targetId}: ${url} is neither a urlset nor a sitemapindex`);
}

/** Lower case, accents and legal-form words gone, letters and digits only ("Acme, Inc." → "acme"). */
function foldName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\b(?:inc|llc|ltd|limited|gmbh|ag|sa|sas|bv|nv|plc|ab|as|asa|oy|spa|srl|co|corp|corporation|group|holding|se|kg)\b\.?/g, '')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url.includes('://') ? url : `https://${url}`).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/** The site's owner: the target's domain (else the careers URL's host) and company name. */
interface Owner {
  domain: string;
  name?: string;
  poster: PosterType;
}

/**
 * Is `org` the site's owner? Yes when it names no organization, when any of its `sameAs`/`url`
 * addresses is on the owner's domain, or when its folded name equals the owner's folded name or the
 * first label of the owner's domain ("Acme Inc." on acme.com).
 */
export function isSiteOwner(org: JobPostingData['hiringOrganization'], owner: { domain: string; name?: string }): boolean {
  if (!org || (!org.name && org.sameAs.length === 0)) return true;
  const domain = owner.domain.toLowerCase();
  for (const address of org.sameAs) {
    const host = hostOf(address);
    if (host && (host === domain || host.endsWith(`.${domain}`) || domain.endsWith(`.${host}`))) return true;
  }
  if (!org.name) return false;
  const folded = foldName(org.name);
  if (folded === '') return true;
  if (owner.name && foldName(owner.name) === folded) return true;
  return foldName(domain.split('.')[0] ?? '') === folded;
}

function absolute(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** Turn one JobPosting into a SourcePosting; null when it has no title. */
function toSourcePosting(data: JobPostingData, pageUrl: string, target: CrawlTarget, owner: Owner): SourcePosting | null {
  if (!data.title) return null;
  const url = (data.url ? absolute(data.url, pageUrl) : undefined) ?? pageUrl;
  const host = new URL(pageUrl).host;
  const ownPosting = isSiteOwner(data.hiringOrganization, owner);
  const org = data.hiringOrganization;
  const company: SourcePosting['company'] = ownPosting
    ? compact({ name: target.companyName ?? org?.name ?? owner.domain, domain: owner.domain, logoUrl: org?.logo ?? target.companyLogo })
    : compact({ name: org?.name ?? org?.sameAs.map(hostOf).find(Boolean) ?? 'Unknown', domain: org?.sameAs.map(hostOf).find(Boolean) ?? undefined, logoUrl: org?.logo });
  const locations = [...data.locations, ...data.applicantLocations.map((name) => ({ text: name }))];
  const location = data.locations[0]?.text ?? (data.telecommute ? `Remote${data.applicantLocations.length ? ` (${data.applicantLocations.join(', ')})` : ''}` : undefined);
  return compact<SourcePosting>({
    sourcePostingId: data.identifier ? `${host}#${data.identifier}` : url,
    title: data.title,
    company,
    location,
    locations,
    remoteFlag: data.telecommute ? 'remote' : undefined,
    employmentType: data.employmentType,
    postedAt: data.postedAt,
    descriptionHtml: data.descriptionHtml,
    salary: data.salary,
    applyUrl: url,
    postingUrl: url,
    closesAt: data.validThrough,
    poster: ownPosting ? undefined : owner.poster,
  });
}

/** The page with the longer description wins: a posting's own page over the careers page's summary. */
function richer(candidate: SourcePosting, kept: SourcePosting): boolean {
  return (candidate.descriptionHtml?.length ?? 0) > (kept.descriptionHtml?.length ?? 0);
}

/**
 * Create the career-site connector.
 * @param options bounds and pacing (see {@link CareerSiteOptions}).
 */
export function createCareerSiteConnector(options: CareerSiteOptions): Connector {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    id: 'career_site',
    boardUrl: (target) => target.board,
    /**
     * Crawl one site as described in the module docstring.
     * @throws CrawlError: `blocked` (robots.txt disallows the careers page, or the guard refused an
     *   address), `http_status`/`timeout`/`network`/`too_large` for robots.txt, a sitemap or the careers
     *   page, `malformed` for a broken sitemap or a site whose pages lost every JobPosting.
     */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      let careersUrl: URL;
      try {
        careersUrl = new URL(target.board);
      } catch {
        throw new CrawlError('blocked', `${target.id}: the board is not a URL`);
      }
      const origin = careersUrl.origin;
      const previous = loadState(target.siteState);
      const next: SiteState = { v: 1, docs: {} };
      const now = new Date().toISOString();
      let delayMs = options.delayMs;
      let lastRequestAt = 0;
      let requests = 0;
      let changed = false;

      /** One polite conditional GET; `unchanged` for a 304, `missing` for a listed 4xx. */
      const get = async (url: string, accept: number[]): Promise<{ kind: 'unchanged' } | { kind: 'missing'; status: number } | { kind: 'body'; response: FetchResponse }> => {
        const wait = lastRequestAt + delayMs - Date.now();
        if (requests > 0 && wait > 0) await sleep(wait);
        requests++;
        const cached = previous.docs[url];
        const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
        if (cached?.etag) headers['if-none-match'] = cached.etag;
        if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
        try {
          const response = await fetcher.get(url, { headers, acceptStatuses: accept });
          if (response.status === 304 && cached) return { kind: 'unchanged' };
          if (accept.includes(response.status)) return { kind: 'missing', status: response.status };
          return { kind: 'body', response };
        } finally {
          lastRequestAt = Date.now();
        }
      };
      const crawlError = (err: unknown, what: string): unknown => {
        if (!(err instanceof FetchError)) return err;
        const kind = err.kind === 'bad_url' ? 'blocked' : err.kind === 'redirect' ? 'http_status' : err.kind;
        return new CrawlError(kind, `${target.id}: ${what}: ${err.message}`, err.status);
      };
      const keep = (url: string, response: FetchResponse | undefined, data: Omit<DocState, 'readAt' | 'etag' | 'lastModified'>): DocState => {
        const doc: DocState = response
          ? compact({ etag: response.headers['etag'] || undefined, lastModified: response.headers['last-modified'] || undefined, readAt: now, ...data })
          : { ...previous.docs[url]!, readAt: now };
        next.docs[url] = doc;
        return doc;
      };

      // The site's own hosts: the careers URL's registrable domain, on its port (else its origin alone).
      const siteDomain = bareDomain(careersUrl.hostname);
      const ownHost = (url: string): boolean => {
        const u = new URL(url);
        if (u.origin === origin) return true;
        return siteDomain !== undefined && (u.protocol === 'https:' || u.protocol === 'http:') && u.port === careersUrl.port && bareDomain(u.hostname) === siteDomain;
      };

      // 1. robots.txt, per host: the careers URL's host first (its failure fails the crawl), the site's
      // other hosts when a page there is first wanted (their failure only keeps those pages as they were).
      const CLIENT_ERRORS = Array.from({ length: 100 }, (_, i) => 400 + i);
      type Robots = ReturnType<typeof robotsParser>;
      const robotsByOrigin = new Map<string, Robots | null>();
      const readRobots = async (of: string): Promise<Robots> => {
        const robotsUrl = `${of}/robots.txt`;
        let robotsText = '';
        const answer = await get(robotsUrl, CLIENT_ERRORS);
        if (answer.kind === 'unchanged') robotsText = keep(robotsUrl, undefined, {}).robots ?? '';
        else if (answer.kind === 'body') {
          changed = true;
          robotsText = answer.response.body.toString('utf8').slice(0, 512 * 1024);
          keep(robotsUrl, answer.response, { robots: robotsText });
        } else changed = changed || previous.docs[robotsUrl] !== undefined;
        const parsed = robotsParser(robotsUrl, robotsText);
        const crawlDelay = parsed.getCrawlDelay(ROBOTS_AGENT);
        if (crawlDelay !== undefined && Number.isFinite(crawlDelay) && crawlDelay * 1000 > delayMs) delayMs = crawlDelay * 1000;
        robotsByOrigin.set(of, parsed);
        return parsed;
      };
      /** The robots of a site host's origin: null when unreadable this crawl, undefined past {@link MAX_SITE_HOSTS}. */
      const robotsOf = async (url: string): Promise<Robots | null | undefined> => {
        const of = new URL(url).origin;
        if (robotsByOrigin.has(of)) return robotsByOrigin.get(of);
        if (robotsByOrigin.size >= MAX_SITE_HOSTS) return undefined;
        try {
          return await readRobots(of);
        } catch (err) {
          if (!(err instanceof FetchError)) throw err;
          robotsByOrigin.set(of, null);
          return null;
        }
      };
      const allowedBy = (robots: Robots | null | undefined, url: string): boolean => robots != null && robots.isAllowed(url, ROBOTS_AGENT) !== false;
      let robots: Robots;
      try {
        robots = await readRobots(origin);
      } catch (err) {
        throw crawlError(err, 'robots.txt could not be read, so nothing may be crawled');
      }
      if (!allowedBy(robots, careersUrl.href)) throw new CrawlError('blocked', `${target.id}: robots.txt of ${origin} disallows ${careersUrl.href} for ${ROBOTS_AGENT}`);

      // 2. sitemaps
      const entries = new Map<string, string | undefined>();
      const queue = robots.getSitemaps().map((s) => absolute(s, origin)).filter((s): s is string => s !== undefined && ownHost(s));
      if (queue.length === 0) queue.push(`${origin}/sitemap.xml`);
      const seenSitemaps = new Set<string>();
      while (queue.length > 0 && seenSitemaps.size < MAX_SITEMAPS) {
        const url = queue.shift()!;
        if (seenSitemaps.has(url) || !allowedBy(await robotsOf(url), url)) continue;
        seenSitemaps.add(url);
        let doc: DocState | undefined;
        try {
          const answer = await get(url, [404, 410]);
          if (answer.kind === 'unchanged') doc = keep(url, undefined, {});
          else if (answer.kind === 'body') {
            changed = true;
            doc = keep(url, answer.response, readSitemap(answer.response.body, url, target.id));
          } else changed = changed || previous.docs[url] !== undefined;
        } catch (err) {
          throw crawlError(err, `sitemap ${url}`);
        }
        for (const child of doc?.sitemaps ?? []) {
          const abs = absolute(child, url);
          if (abs && ownHost(abs)) queue.push(abs);
        }
        for (const entry of doc?.entries ?? []) {
          if (entries.size >= MAX_SITEMAP_ENTRIES) break;
          const abs = absolute(entry.loc, url);
          if (abs) entries.set(abs, entry.lastmod);
        }
      }

      // 3. the careers page
      const postings: SourcePosting[] = [];
      let skipped = 0;
      const owner: Owner = {
        domain: target.companyDomain ?? bareDomain(careersUrl.hostname) ?? careersUrl.hostname,
        name: target.companyName,
        poster:
          classifyPosterType({ companyName: target.companyName ?? '', companyDomain: target.companyDomain, providerType: 'direct' }) === 'staffing' ? 'staffing' : 'jobboard',
      };
      const collect = (doc: DocState): void => {
        for (const p of doc.postings ?? []) postings.push(p);
      };
      const read = (url: string, response: FetchResponse): DocState => {
        const page = readPage(response.body.toString('utf8'));
        const mapped = page.postings.map((p) => toSourcePosting(p, response.url || url, target, owner));
        skipped += mapped.filter((p) => p === null).length + page.unreadable;
        const links = page.links.map((l) => absolute(l, response.url || url)).filter((l): l is string => l !== undefined);
        return keep(url, response, { postings: mapped.filter((p): p is SourcePosting => p !== null), links });
      };
      let careersDoc: DocState;
      try {
        const answer = await get(careersUrl.href, []);
        if (answer.kind === 'unchanged') careersDoc = keep(careersUrl.href, undefined, {});
        else if (answer.kind === 'body') {
          changed = true;
          careersDoc = read(careersUrl.href, answer.response);
        } else throw new CrawlError('http_status', `${target.id}: the careers page answered ${answer.status}`, answer.status);
      } catch (err) {
        throw crawlError(err, 'careers page');
      }
      collect(careersDoc);

      // 4. posting pages
      const careersPath = careersUrl.pathname.replace(/\/+$/, '');
      const looksLikePosting = (url: string): boolean => {
        const u = new URL(url);
        if (!ownHost(url) || u.href === careersUrl.href) return false;
        if (/\.(?:pdf|jpe?g|png|gif|svg|webp|zip|docx?|xlsx?|css|js|xml|txt)$/i.test(u.pathname)) return false;
        return (careersPath !== '' && u.pathname.startsWith(`${careersPath}/`)) || POSTING_PATH.test(u.pathname);
      };
      // One page named on two of the site's hosts (`www.` and bare) is read once: on the careers page's
      // host when it is one of them, else on the first host named.
      const pageKey = (url: string): string => {
        const u = new URL(url);
        return `${u.hostname.replace(/^www\./, '')}${u.port ? `:${u.port}` : ''}${u.pathname}${u.search}`;
      };
      const byPage = new Map<string, string>();
      for (const url of [...new Set([...entries.keys(), ...(careersDoc.links ?? [])])].filter(looksLikePosting)) {
        const key = pageKey(url);
        const kept = byPage.get(key);
        if (kept === undefined || (new URL(url).origin === origin && new URL(kept).origin !== origin)) byPage.set(key, url);
      }
      const hostRobots = new Map<string, Robots | null | undefined>();
      for (const url of byPage.values()) {
        const of = new URL(url).origin;
        if (!hostRobots.has(of)) hostRobots.set(of, await robotsOf(url));
      }
      // Pages on a host whose robots.txt could not be read keep what they carried; disallowed ones are left.
      const unreadable = [...byPage.values()].filter((url) => hostRobots.get(new URL(url).origin) === null);
      for (const url of unreadable) {
        const cached = previous.docs[url];
        if (cached) {
          next.docs[url] = cached;
          collect(cached);
        }
      }
      const candidates = [...byPage.values()].filter((url) => allowedBy(hostRobots.get(new URL(url).origin), url));
      candidates.sort((a, b) => (previous.docs[a]?.readAt ?? '').localeCompare(previous.docs[b]?.readAt ?? ''));
      const pageBudget = Math.min(options.maxPages, delayMs > 0 ? Math.max(1, Math.floor(CRAWL_BUDGET_MS / delayMs)) : options.maxPages);
      let pageRequests = 0;
      const gone = new Set<string>();
      let lostMarkup = 0;
      const hadPostings = Object.values(previous.docs).some((d) => (d.postings?.length ?? 0) > 0);
      for (const url of candidates) {
        const cached = previous.docs[url];
        const lastmod = entries.get(url);
        if (cached && lastmod && !Number.isNaN(Date.parse(lastmod)) && Date.parse(lastmod) <= Date.parse(cached.readAt)) {
          next.docs[url] = cached;
          collect(cached);
          continue;
        }
        if (pageRequests >= pageBudget) {
          if (cached) {
            next.docs[url] = cached;
            collect(cached);
          }
          continue;
        }
        pageRequests++;
        try {
          const answer = await get(url, [404, 410]);
          if (answer.kind === 'unchanged') collect(keep(url, undefined, {}));
          else if (answer.kind === 'missing') {
            // Remembered as read and empty, so it goes to the back of the queue and a listed dead
            // link does not make every crawl look changed.
            if ((cached?.postings?.length ?? 0) > 0) changed = true;
            for (const p of cached?.postings ?? []) gone.add(p.sourcePostingId);
            next.docs[url] = { readAt: now, postings: [] };
          } else {
            changed = true;
            const doc = read(url, answer.response);
            collect(doc);
            const present = new Set((doc.postings ?? []).map((p) => p.sourcePostingId));
            const lost = (cached?.postings ?? []).filter((p) => !present.has(p.sourcePostingId));
            for (const p of lost) gone.add(p.sourcePostingId);
            if (lost.length > 0 && present.size === 0) lostMarkup++;
          }
        } catch (err) {
          // One page that failed proves nothing: what it carried last time stands until it answers.
          if (!(err instanceof FetchError)) throw err;
          if (cached) {
            next.docs[url] = cached;
            collect(cached);
          }
        }
      }
      for (const url of Object.keys(previous.docs)) if (!(url in next.docs)) changed = true;

      const unique = dedupeById(postings, richer);
      if (unique.length === 0 && hadPostings && lostMarkup > 0) {
        throw new CrawlError('malformed', `${target.id}: no page carries a JobPosting any more (${lostMarkup} pages had one); the site may have changed its markup`);
      }
      if (!changed) return { kind: 'not_modified' };
      const listed = new Set(unique.map((p) => p.sourcePostingId));
      return compact({
        kind: 'fetched' as const,
        postings: unique,
        skipped,
        siteState: next,
        gone: [...gone].filter((id) => !listed.has(id)),
      });
    },
  };
}

/**
 * The career-site connector's descriptor (connectors/registry.ts): no base URL (each target's board is
 * its careers page), no bundled feed; it takes the config's `careerSite` bounds. A careers page may
 * link to the company's ATS board, so every connector's ATS host counts as the employer's own.
 */
export const descriptor = defineConnector({
  id: 'career_site',
  provider: { label: 'Company career pages', providerClass: 'direct', sourceType: 'career_site', redistributable: true, discoveryOnly: false },
  applyHosts: { anyAts: true },
  create: (_baseUrl: string | undefined, settings) => createCareerSiteConnector(settings.careerSite),
});
