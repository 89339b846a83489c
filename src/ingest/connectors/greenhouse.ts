/**
 * Greenhouse connector: the public Job Board API, `GET {base}/v1/boards/{token}/jobs?content=true`
 * (developers.greenhouse.io/job-board.html, "List Jobs"), answering `{"jobs": [...], "meta": {...}}`.
 *
 * | Greenhouse | SourcePosting |
 * |---|---|
 * | `id` (number) | `sourcePostingId` (decimal string) |
 * | `title` | `title` |
 * | `company_name`, else target.companyName, else the token | `company.name` |
 * | `location.name` | `location`, and `locations[0].text` |
 * | `offices[].location` | further `locations[].text` (a text already listed is not repeated) |
 * | `first_published` | `postedAt` (as a UTC instant); `updated_at` is an edit time, not a publication time, and is not used |
 * | `content` | `descriptionHtml`, entity-unescaped once (below) |
 * | `absolute_url` | `postingUrl` and `applyUrl` (the board page holds the application form) |
 * | `departments[0].name` | `hints.department` |
 *
 * Greenhouse has no remote flag, employment type or structured salary, so none is set; structured
 * country/region/city are not given either (office locations are free text).
 *
 * `content` is HTML that Greenhouse HTML-escapes a second time (`&lt;p&gt;Hello &amp;amp; welcome&lt;/p&gt;`).
 * {@link unescapeHtmlOnce} undoes exactly that one layer, yielding real HTML (`<p>Hello &amp; welcome</p>`);
 * a second pass would turn escaped text into markup.
 */
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { companyOf, compact, identifiedItem, idString, isoInstant, isRecord, jsonBoardConnector, text } from './common.ts';

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/**
 * Undo one layer of HTML escaping: `&amp; &lt; &gt; &quot; &apos;` and numeric references
 * (`&#39;`, `&#x27;`). Other named entities (`&nbsp;`, `&rsquo;`) are left as they are: after one
 * unescape they are ordinary entities of the resulting HTML. One left-to-right pass, so `&amp;lt;`
 * becomes `&lt;`, never `<`.
 */
export function unescapeHtmlOnce(escaped: string): string {
  return escaped.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (ref in NAMED) return NAMED[ref]!;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    // Leave references to surrogates, NUL or out-of-range code points untouched rather than invent text.
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
    return String.fromCodePoint(code);
  });
}

/** Map one Greenhouse job; null when it has no id or title. */
export function mapGreenhouseJob(item: unknown, target: CrawlTarget): SourcePosting | null {
  const identified = identifiedItem(item, (r) => idString(r['id']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;

  const primary = isRecord(job['location']) ? text(job['location']['name']) : undefined;
  const texts: string[] = [];
  if (primary !== undefined) texts.push(primary);
  if (Array.isArray(job['offices'])) {
    for (const office of job['offices']) {
      const officeLocation = isRecord(office) ? text(office['location']) : undefined;
      if (officeLocation !== undefined && !texts.includes(officeLocation)) texts.push(officeLocation);
    }
  }
  const locations: SourceLocation[] = texts.map((t) => ({ text: t }));
  const firstDepartment = Array.isArray(job['departments']) ? job['departments'].find(isRecord) : undefined;
  const department = firstDepartment ? text(firstDepartment['name']) : undefined;
  const content = text(job['content']);
  const url = text(job['absolute_url']);

  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(job['company_name'])),
    location: primary,
    locations,
    postedAt: isoInstant(job['first_published']),
    descriptionHtml: content === undefined ? undefined : unescapeHtmlOnce(content),
    applyUrl: url,
    postingUrl: url,
    hints: department !== undefined ? { department } : undefined,
  });
}

/**
 * Create the Greenhouse connector.
 * @param baseUrl API origin, e.g. `https://boards-api.greenhouse.io` (config `JOBLEDGER_GREENHOUSE_BASE_URL`).
 */
export function createGreenhouseConnector(baseUrl: string): Connector {
  return jsonBoardConnector(
    { id: 'greenhouse', url: (base, target) => `${base}/v1/boards/${encodeURIComponent(target.board)}/jobs?content=true`, listKey: 'jobs', map: mapGreenhouseJob },
    baseUrl,
  );
}

/** The Greenhouse connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'greenhouse',
  provider: { label: 'Greenhouse', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://boards-api.greenhouse.io', description: 'Greenhouse job board API base URL.' },
  applyHosts: { ats: ['boards.greenhouse.io', 'job-boards.greenhouse.io', 'job-boards.eu.greenhouse.io'] },
  replay: {
    pattern: /^\/v1\/boards\/([^/]+)\/jobs\/?$/,
    notFound: { status: 404, error: 'Job board not found' },
  },
  fixtures: { notice: 'README.md' },
  create: createGreenhouseConnector,
});
