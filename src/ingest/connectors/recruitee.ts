/**
 * Recruitee connector: a company's public careers API, `GET https://{company}.recruitee.com/api/offers/`
 * (Recruitee "Careers Site API", docs.recruitee.com/reference/offers), answering `{"offers": [...]}`
 * with every published offer of the company in one answer, descriptions included.
 *
 * | Recruitee | SourcePosting |
 * |---|---|
 * | `id` (number) | `sourcePostingId` (decimal string) |
 * | `title` | `title` |
 * | `company_name`, else target.companyName, else the board | `company.name` |
 * | `location` | `location` |
 * | `locations[]` {name, city, state, country_code/country} | `locations[]` {text, city, region, country} |
 * | `remote` / `hybrid` / `on_site` (booleans) | `remoteFlag` 'remote' / 'hybrid' / 'on_site' (first true one) |
 * | `employment_type_code` | `employmentType`, raw ("fulltime_permanent") |
 * | `published_at` (`YYYY-MM-DD HH:MM:SS UTC`) | `postedAt` |
 * | `close_at` (same form, usually null) | `closesAt`: a passed one closes the row `expired_upstream` |
 * | `description` + `requirements` | `descriptionHtml` (requirements under an `<h3>Job requirements</h3>`, as the hosted page titles them) |
 * | `careers_url`, `careers_apply_url` | `postingUrl`, `applyUrl` |
 * | `salary` {min, max (decimal strings), currency, period} | `salary` (below) |
 * | `department` | `hints.department` |
 *
 * Closure signals of the source: an offer whose `status` is not `published` (the API lists only
 * published offers, so another status means Recruitee itself withdrew it) is returned in `gone` and
 * closed `expired_upstream`; a passed `close_at` closes it too. Salary `period`: year → annual,
 * month → monthly, week → weekly, day → daily, hour → hourly, anything else → period null.
 *
 * The API sends validators on its answers when it has them; the connector sends them back
 * (`If-None-Match`/`If-Modified-Since`) and a 304 leaves the board as it was.
 */
import type { Remote, SalaryPeriod } from '../../domain/vocabulary.ts';
import type { SourcePosting, SourceSalary } from '../../domain/posting.ts';
import { defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { boardList, compact, companyOf, decimalSalary, documentBoardConnector, fillHostTemplate, identifiedItem, idString, isRecord, locationList, mapPostings, text, utcStamp } from './common.ts';

/** Recruitee `salary.period` → stored salary period. */
export const RECRUITEE_PERIODS: Readonly<Record<string, SalaryPeriod>> = { year: 'annual', month: 'monthly', week: 'weekly', day: 'daily', hour: 'hourly' };

/** The structured salary of a Recruitee offer, or undefined when it states no amount. */
export function recruiteeSalary(salary: unknown): SourceSalary | undefined {
  return decimalSalary(salary, { currency: 'currency', period: 'period' }, RECRUITEE_PERIODS);
}

function remoteOf(offer: Record<string, unknown>): Remote | undefined {
  if (offer['remote'] === true) return 'remote';
  if (offer['hybrid'] === true) return 'hybrid';
  if (offer['on_site'] === true) return 'on_site';
  return undefined;
}

/** Map one Recruitee offer; null when it has no id or title. */
export function mapRecruiteeOffer(item: unknown, target: CrawlTarget): SourcePosting | null {
  const identified = identifiedItem(item, (r) => idString(r['id']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: offer, id, title } = identified;
  const locations = locationList(offer['locations'], (l) => ({ text: text(l['name']), country: text(l['country_code']) ?? text(l['country']), region: text(l['state']), city: text(l['city']) }));
  const description = text(offer['description']);
  const requirements = text(offer['requirements']);
  const html = [description, requirements !== undefined ? `<h3>Job requirements</h3>${requirements}` : undefined].filter((p) => p !== undefined).join('');
  const department = text(offer['department']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(offer['company_name'])),
    location: text(offer['location']),
    locations,
    remoteFlag: remoteOf(offer),
    employmentType: text(offer['employment_type_code']),
    postedAt: utcStamp(offer['published_at']),
    closesAt: utcStamp(offer['close_at']),
    descriptionHtml: html === '' ? undefined : html,
    salary: recruiteeSalary(offer['salary']),
    applyUrl: text(offer['careers_apply_url']),
    postingUrl: text(offer['careers_url']),
    hints: department !== undefined ? { department } : undefined,
  });
}

/**
 * Create the Recruitee connector.
 * @param baseUrl URL template with `{company}`, e.g. `https://{company}.recruitee.com` (config `JOBLEDGER_RECRUITEE_BASE_URL`).
 */
export function createRecruiteeConnector(baseUrl: string): Connector {
  const boardUrl = (target: CrawlTarget): string => `${fillHostTemplate(baseUrl, 'company', target)}/api/offers/`;
  return documentBoardConnector({
    id: 'recruitee',
    boardUrl,
    /** @throws CrawlError `malformed` unless the answer is `{"offers": [...]}`. */
    read(body, target) {
      const offers = boardList(body, target, 'offers', 'offers');
      const gone: string[] = [];
      const published = offers.filter((o) => {
        const status = isRecord(o) ? text(o['status']) : undefined;
        if (status === undefined || status === 'published') return true;
        const id = isRecord(o) ? idString(o['id']) : undefined;
        if (id !== undefined) gone.push(id);
        return false;
      });
      return { ...mapPostings(published, (offer) => mapRecruiteeOffer(offer, target)), gone };
    },
  });
}

/** The Recruitee connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'recruitee',
  provider: { label: 'Recruitee', providerClass: 'employer_ats', sourceType: 'ats', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://{company}.recruitee.com', description: 'Recruitee careers API URL template; {company} is the board.' },
  applyHosts: { atsSubdomain: ['recruitee.com'] },
  replay: {
    pattern: /^\/recruitee\/([^/]+)\/api\/offers\/?$/,
    notFound: { error: 'Not found' },
    basePath: '/recruitee/{company}',
  },
  fixtures: { notice: 'README.md' },
  create: createRecruiteeConnector,
});
