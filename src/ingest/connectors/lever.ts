/**
 * Lever connector: the public Postings API, `GET {base}/v0/postings/{site}?mode=json`
 * (github.com/lever/postings-api, "Get a list of job postings"), answering a JSON array of postings.
 * Without `limit` the API returns every published posting of the site in one answer.
 *
 * | Lever | SourcePosting |
 * |---|---|
 * | `id` | `sourcePostingId` |
 * | `text` | `title` |
 * | — (Lever names no company) | `company.name` = target.companyName, else the site name |
 * | `categories.location` | `location`, and `locations[0].text` |
 * | `country` (ISO 3166 alpha-2) | `locations[0].country` (it describes the posting's primary location) |
 * | `categories.allLocations[]` | further `locations[].text` (the primary one is not repeated) |
 * | `workplaceType` remote / hybrid / onsite / unspecified | `remoteFlag` 'remote' / 'hybrid' / 'on_site' / absent |
 * | `categories.commitment` | `employmentType`, raw ("Full-time", "Permanent", "Short Term") |
 * | `createdAt` (epoch milliseconds) | `postedAt` |
 * | `description` (else `descriptionBody`), `lists[]`, `additional` | `descriptionHtml` (below) |
 * | `hostedUrl`, `applyUrl` | `postingUrl`, `applyUrl` |
 * | `salaryRange` {min, max, currency, interval} | `salary` (below) |
 * | `categories.department`, `categories.team` | `hints.department`, `hints.team` |
 *
 * Description: Lever splits the advert into an introduction (`description`, which includes the
 * `opening`; `descriptionBody` is the same without it), titled lists and a closing `additional`. The
 * HTML is `description` + each list as `<h3>{text}</h3><ul>{content}</ul>` + `additional`, which is how
 * Lever's own hosted page stacks them. List titles are plain text and are HTML-escaped. The plain-text
 * variants (`descriptionPlain`, ...) do not cover the lists, so no `descriptionText` is set; enrichment
 * extracts text from the HTML.
 *
 * Salary interval: `per-year-salary` → annual, `per-month-salary` → monthly, `per-week-salary` → weekly,
 * `per-day-wage` → daily, `per-hour-wage` → hourly, anything else → period null. A range with neither
 * amount is no salary.
 */
import type { Remote, SalaryPeriod } from '../../domain/vocabulary.ts';
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { companyOf, compact, escapeText, identifiedItem, isoFromEpochMs, isRecord, jsonBoardConnector, salaryOf, text } from './common.ts';

/** Lever `salaryRange.interval` → stored salary period. */
export const LEVER_INTERVALS: Readonly<Record<string, SalaryPeriod>> = {
  'per-year-salary': 'annual',
  'per-month-salary': 'monthly',
  'per-week-salary': 'weekly',
  'per-day-wage': 'daily',
  'per-hour-wage': 'hourly',
};

const WORKPLACE: Readonly<Record<string, Remote>> = { remote: 'remote', hybrid: 'hybrid', onsite: 'on_site' };

/** The structured salary of a Lever `salaryRange`, or undefined when it states none. */
export function leverSalary(range: unknown): SourceSalary | undefined {
  if (!isRecord(range)) return undefined;
  const interval = text(range['interval']);
  const period = (interval !== undefined ? LEVER_INTERVALS[interval.trim().toLowerCase()] : undefined) ?? null;
  return salaryOf(range['min'], range['max'], range['currency'], period);
}

/** The description HTML of a Lever posting, assembled as described in this module; undefined when empty. */
export function leverDescriptionHtml(posting: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  const intro = text(posting['description']) ?? text(posting['descriptionBody']);
  if (intro !== undefined) parts.push(intro);
  if (Array.isArray(posting['lists'])) {
    for (const list of posting['lists']) {
      if (!isRecord(list)) continue;
      const title = text(list['text']);
      const content = text(list['content']);
      if (title === undefined && content === undefined) continue;
      if (title !== undefined) parts.push(`<h3>${escapeText(title)}</h3>`);
      if (content !== undefined) parts.push(`<ul>${content}</ul>`);
    }
  }
  const additional = text(posting['additional']);
  if (additional !== undefined) parts.push(additional);
  return parts.length > 0 ? parts.join('') : undefined;
}

/** Map one Lever posting; null when it has no id or title. */
export function mapLeverPosting(item: unknown, target: CrawlTarget): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['id']), (r) => text(r['text']));
  if (!identified) return null;
  const { record: posting, id, title } = identified;

  const categories = isRecord(posting['categories']) ? posting['categories'] : {};
  const primary = text(categories['location']);
  const country = text(posting['country']);
  const locations: SourceLocation[] = [];
  if (primary !== undefined || country !== undefined) locations.push(compact<SourceLocation>({ text: primary, country }));
  if (Array.isArray(categories['allLocations'])) {
    for (const other of categories['allLocations']) {
      const label = text(other);
      if (label !== undefined && label !== primary && !locations.some((l) => l.text === label)) locations.push({ text: label });
    }
  }
  const workplace = text(posting['workplaceType'])?.trim().toLowerCase();
  const hints = compact({ department: text(categories['department']), team: text(categories['team']) });

  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target),
    location: primary,
    locations,
    remoteFlag: workplace !== undefined ? WORKPLACE[workplace] : undefined,
    employmentType: text(categories['commitment']),
    postedAt: isoFromEpochMs(posting['createdAt']),
    descriptionHtml: leverDescriptionHtml(posting),
    salary: leverSalary(posting['salaryRange']),
    applyUrl: text(posting['applyUrl']),
    postingUrl: text(posting['hostedUrl']),
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/**
 * Create the Lever connector.
 * @param baseUrl API origin, e.g. `https://api.lever.co` (config `JOBLEDGER_LEVER_BASE_URL`).
 */
export function createLeverConnector(baseUrl: string): Connector {
  return jsonBoardConnector({ id: 'lever', url: (base, target) => `${base}/v0/postings/${encodeURIComponent(target.board)}?mode=json`, map: mapLeverPosting }, baseUrl);
}

/** The Lever connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'lever',
  provider: { label: 'Lever', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://api.lever.co', description: 'Lever postings API base URL.' },
  applyHosts: { ats: ['jobs.lever.co', 'jobs.eu.lever.co'] },
  replay: {
    pattern: /^\/v0\/postings\/([^/]+)\/?$/,
    notFound: { ok: false, error: 'Document not found' },
  },
  fixtures: { notice: 'README.md' },
  create: createLeverConnector,
});
