/**
 * Personio connector: a company's public XML job feed, `GET https://{company}.jobs.personio.de/xml`
 * (Personio Developer Hub, "Integrating job postings from Personio into your website / XML feed":
 * developer.personio.de/docs/integrating-job-ads-from-personio), answering
 * `<workzag-jobs><position>…</position>…</workzag-jobs>` with every published position and its texts.
 *
 * | Personio XML | SourcePosting |
 * |---|---|
 * | `id` | `sourcePostingId` |
 * | `name` | `title` |
 * | `subcompany`, else target.companyName, else the board | `company.name` |
 * | `office` | `location`, and `locations[0].text` |
 * | `additionalOffices/office` | further `locations[].text` |
 * | `employmentType` (+ `schedule`) | `employmentType`, raw ("permanent, full-time") |
 * | `createdAt` (RFC 3339) | `postedAt` |
 * | `jobDescriptions/jobDescription` {name, value (CDATA HTML)} | `descriptionHtml`: `<h3>{name}</h3>{value}` per section, as the hosted page shows them |
 * | — (the feed names no URL) | `postingUrl` = `applyUrl` = `https://{company}.jobs.personio.de/job/{id}` (the position's hosted page, which holds the application form) |
 * | `salaryInformation` {min, max, currencyCode, type} | `salary` (type yearly → annual, monthly, weekly, daily, hourly; other → period null) |
 * | `department`, `occupationCategory` | `hints.department`, `hints.team` |
 *
 * Remote: Personio has no remote flag; an office named "Remote" stays location text for enrichment.
 * Closure: the feed lists published positions only and carries no status or end date; the source's
 * own signal is the position's hosted page answering 404/410 (the pipeline's posting probe, closed
 * `expired_upstream`), else absence (`not_seen`). Validators are sent back when the feed had them.
 *
 * The answer must be well-formed XML whose root is `workzag-jobs`; anything else (an HTML error page,
 * an empty body, truncated XML) is `malformed` and changes nothing.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { SalaryPeriod } from '../../domain/vocabulary.ts';
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { compact, companyOf, decimalSalary, documentBoardConnector, fillHostTemplate, identifiedItem, idString, isoInstant, isRecord, mapPostings, text, titledSection } from './common.ts';

/** Personio `salaryInformation.type` → stored salary period. */
export const PERSONIO_PERIODS: Readonly<Record<string, SalaryPeriod>> = { yearly: 'annual', monthly: 'monthly', weekly: 'weekly', daily: 'daily', hourly: 'hourly' };

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  // By tag name: every `office` is an array too (the position's own holds one value).
  isArray: (name) => name === 'position' || name === 'jobDescription' || name === 'office',
});

/**
 * The positions of a Personio feed body.
 * @throws CrawlError('malformed') for a body that is not well-formed XML with a `workzag-jobs` root.
 */
export function personioPositions(body: Buffer, target: CrawlTarget): unknown[] {
  const xml = body.toString('utf8').replace(/^\uFEFF/, '');
  const valid = xml.trim() === '' ? false : XMLValidator.validate(xml);
  if (valid !== true) {
    const why = valid === false ? 'empty body' : valid.err.msg;
    throw new CrawlError('malformed', `${target.id}: answer is not well-formed XML (${why})`);
  }
  const doc = parser.parse(xml) as Record<string, unknown>;
  if (!('workzag-jobs' in doc)) throw new CrawlError('malformed', `${target.id}: XML root is not <workzag-jobs>`);
  const root = doc['workzag-jobs'];
  if (root === '' || root === undefined) return [];
  if (!isRecord(root)) throw new CrawlError('malformed', `${target.id}: <workzag-jobs> holds no positions element list`);
  const positions = root['position'];
  return Array.isArray(positions) ? positions : [];
}

/** The structured salary of `salaryInformation`, or undefined when it states no amount. */
export function personioSalary(info: unknown): SourceSalary | undefined {
  return decimalSalary(info, { currency: 'currencyCode', period: 'type' }, PERSONIO_PERIODS);
}

/** Map one Personio `<position>`; null when it has no id or name. */
export function mapPersonioPosition(item: unknown, target: CrawlTarget, origin: string): SourcePosting | null {
  const identified = identifiedItem(item, (r) => idString(r['id']), (r) => text(r['name']));
  if (!identified) return null;
  const { record: position, id, title } = identified;
  const office = Array.isArray(position['office']) ? text(position['office'][0]) : text(position['office']);
  const locations: SourceLocation[] = office !== undefined ? [{ text: office }] : [];
  const additional = isRecord(position['additionalOffices']) ? position['additionalOffices']['office'] : undefined;
  if (Array.isArray(additional)) for (const o of additional) if (text(o) !== undefined && !locations.some((l) => l.text === o)) locations.push({ text: o as string });
  const sections: string[] = [];
  const descriptions = isRecord(position['jobDescriptions']) ? position['jobDescriptions']['jobDescription'] : undefined;
  if (Array.isArray(descriptions)) {
    for (const d of descriptions) {
      if (!isRecord(d)) continue;
      const name = text(d['name']);
      const value = text(d['value']);
      if (value === undefined) continue;
      sections.push(titledSection(name, value.trim()));
    }
  }
  const employment = [text(position['employmentType']), text(position['schedule'])].filter((p) => p !== undefined).join(', ');
  const hints = compact({ department: text(position['department']), team: text(position['occupationCategory']) });
  const page = `${origin}/job/${encodeURIComponent(id)}`;
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(position['subcompany'])),
    location: office,
    locations,
    employmentType: employment === '' ? undefined : employment,
    postedAt: isoInstant(position['createdAt']),
    descriptionHtml: sections.length > 0 ? sections.join('') : undefined,
    salary: personioSalary(position['salaryInformation']),
    applyUrl: page,
    postingUrl: page,
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/**
 * Create the Personio connector.
 * @param baseUrl URL template with `{company}`, e.g. `https://{company}.jobs.personio.de` (config
 *   `JOBLEDGER_PERSONIO_BASE_URL`); the posting pages are always on the real host.
 */
export function createPersonioConnector(baseUrl: string): Connector {
  const boardUrl = (target: CrawlTarget): string => `${fillHostTemplate(baseUrl, 'company', target)}/xml`;
  return documentBoardConnector({
    id: 'personio',
    boardUrl,
    headers: { accept: 'application/xml, text/xml' },
    /** @throws CrawlError `malformed` unless the answer is a `<workzag-jobs>` feed. */
    read(body, target) {
      const origin = fillHostTemplate('https://{company}.jobs.personio.de', 'company', target);
      return mapPostings(personioPositions(body, target), (p) => mapPersonioPosition(p, target, origin));
    },
  });
}

/** The Personio connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'personio',
  provider: { label: 'Personio', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://{company}.jobs.personio.de', description: 'Personio XML job feed URL template; {company} is the board.' },
  applyHosts: { atsSubdomain: ['jobs.personio.de', 'jobs.personio.com'] },
  replay: {
    pattern: /^\/personio\/([^/]+)\/xml\/?$/,
    notFound: { error: 'Not found' },
    basePath: '/personio/{company}',
  },
  fixtures: { notice: 'README.md' },
  create: createPersonioConnector,
});
