/**
 * Ashby connector: the public job-posting API, `GET {base}/posting-api/job-board/{board}?includeCompensation=true`
 * (Ashby developer docs, "Public Job Posting API"; shape as recorded in /work/shared/data/ashby, see
 * fixtures/README.md): `{"jobs": [...], "apiVersion": "1"}`.
 *
 * Field mapping, exactly what the payload says and nothing more:
 * | Ashby | SourcePosting |
 * |---|---|
 * | `id` | `sourcePostingId` |
 * | `title` | `title` |
 * | — (Ashby names no company) | `company.name` = target.companyName, else the board token |
 * | `location` | `location`, and `locations[0].text` |
 * | `address.postalAddress` {addressCountry, addressRegion, addressLocality} | `locations[0]` country, region, city |
 * | `secondaryLocations[]` {location, address.postalAddress} | `locations[1..]` |
 * | `isRemote` true / false / null | `remoteFlag` 'remote_or_hybrid' (not on-site: Ashby sets it on hybrid postings too) / 'not_remote' (not fully remote: hybrid or on-site) / absent |
 * | `employmentType` (FullTime, PartTime, Contract, Intern, Temporary) | `employmentType`, raw |
 * | `publishedAt` | `postedAt` (as a UTC instant) |
 * | `descriptionHtml`, `descriptionPlain` | `descriptionHtml`, `descriptionText` |
 * | `compensation.summaryComponents[]` with `compensationType` "Salary" | `salary` (below) |
 * | `applyUrl`, `jobUrl` | `applyUrl`, `postingUrl` |
 * | `department`, `team` | `hints.department`, `hints.team` |
 *
 * Salary: the first summary component of type `Salary` (the recorded data never has two); `interval`
 * `1 YEAR` → annual, `1 MONTH` → monthly, `1 WEEK` → weekly, `1 DAY` → daily, `1 HOUR` → hourly, any
 * other (`1 TIME`, `NONE`) → period null; `currencyCode` upper-cased; `minValue`/`maxValue` as given. A
 * component with neither amount is no salary. Equity, bonus and commission components are ignored.
 *
 * Postings with `isListed: false` are not public and are left out (not counted as skipped); postings
 * without an id or a title are counted in `skipped`; duplicate ids keep the first.
 */
import type { SalaryPeriod } from '../../domain/vocabulary.ts';
import type { SourceLocation, SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { companyOf, compact, identifiedItem, isoInstant, isRecord, jsonBoardConnector, locationList, salaryOf, text } from './common.ts';

/** Ashby `interval` → stored salary period (null: the interval has no yearly equivalent). */
export const ASHBY_INTERVALS: Readonly<Record<string, SalaryPeriod>> = {
  '1 YEAR': 'annual',
  '1 MONTH': 'monthly',
  '1 WEEK': 'weekly',
  '1 DAY': 'daily',
  '1 HOUR': 'hourly',
};

function location(label: unknown, address: unknown): SourceLocation | undefined {
  const postal = isRecord(address) && isRecord(address['postalAddress']) ? address['postalAddress'] : {};
  const loc = compact<SourceLocation>({
    text: text(label),
    country: text(postal['addressCountry']),
    region: text(postal['addressRegion']),
    city: text(postal['addressLocality']),
  });
  return Object.keys(loc).length > 0 ? loc : undefined;
}

/** The structured salary of an Ashby `compensation` object, or undefined when it states none. */
export function ashbySalary(compensation: unknown): SourceSalary | undefined {
  if (!isRecord(compensation) || !Array.isArray(compensation['summaryComponents'])) return undefined;
  const component = compensation['summaryComponents'].find((c) => isRecord(c) && c['compensationType'] === 'Salary');
  if (!isRecord(component)) return undefined;
  const interval = text(component['interval']);
  const period = (interval !== undefined ? ASHBY_INTERVALS[interval.trim().toUpperCase()] : undefined) ?? null;
  return salaryOf(component['minValue'], component['maxValue'], component['currencyCode'], period);
}

/** Map one Ashby job; null when it has no id or title, undefined when it is unlisted. */
export function mapAshbyJob(item: unknown, target: CrawlTarget): SourcePosting | null | undefined {
  const identified = identifiedItem(item, (r) => text(r['id']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  if (job['isListed'] === false) return undefined;

  const primary = location(job['location'], job['address']);
  const secondary = locationList(job['secondaryLocations'], (s) => location(s['location'], s['address']));
  const locations = primary ? [primary, ...secondary] : secondary;
  const hints = compact({ department: text(job['department']), team: text(job['team']) });

  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target),
    location: text(job['location']),
    locations,
    remoteFlag: job['isRemote'] === true ? 'remote_or_hybrid' : job['isRemote'] === false ? 'not_remote' : undefined,
    employmentType: text(job['employmentType']),
    postedAt: isoInstant(job['publishedAt']),
    descriptionHtml: text(job['descriptionHtml']),
    descriptionText: text(job['descriptionPlain']),
    salary: ashbySalary(job['compensation']),
    applyUrl: text(job['applyUrl']),
    postingUrl: text(job['jobUrl']),
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/**
 * Create the Ashby connector.
 * @param baseUrl API origin, e.g. `https://api.ashbyhq.com` (config `JOBLEDGER_ASHBY_BASE_URL`).
 */
export function createAshbyConnector(baseUrl: string): Connector {
  return jsonBoardConnector(
    { id: 'ashby', url: (base, target) => `${base}/posting-api/job-board/${encodeURIComponent(target.board)}?includeCompensation=true`, listKey: 'jobs', map: mapAshbyJob },
    baseUrl,
  );
}

/** The Ashby connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'ashby',
  provider: { label: 'Ashby', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://api.ashbyhq.com', description: 'Ashby posting API base URL.' },
  applyHosts: { ats: ['jobs.ashbyhq.com'] },
  replay: {
    pattern: /^\/posting-api\/job-board\/([^/]+)\/?$/,
    notFound: { success: false, errors: ['job board not found'] },
  },
  fixtures: { notice: 'LICENSE' },
  create: createAshbyConnector,
});
