/**
 * USAJOBS connector over the public announcement files of github.com/abigailhaddad/usajobs_historical
 * (`tracking/public/data/raw_jobs/<file>.json`, served by raw.githubusercontent.com): one JSON array per
 * department, each item
 * `{control_number, position_title, department, agency, subagency, appointment_type, occupation_series[],
 * hiring_paths[], open_date, close_date, usajobs_url}` (see /work/shared/data/README.md). The board is the
 * file stem, e.g. `jobs_department_of_labor`; the URL is `{base}/{board}.json`.
 *
 * | file | SourcePosting |
 * |---|---|
 * | `control_number` | `sourcePostingId` (decimal string) |
 * | `position_title` | `title` |
 * | `agency`, else `department` | `company.name` (the hiring agency) |
 * | `open_date` (YYYY-MM-DD) | `postedAt` = that date at 00:00:00Z |
 * | `close_date` (YYYY-MM-DD) | `closesAt` = that date at 23:59:59Z (see below) |
 * | `usajobs_url` | `applyUrl` and `postingUrl` (USAJOBS is the federal government's own hiring site) |
 * | `appointment_type` (Permanent, Term, Temporary, ...) | `employmentType`, raw |
 * | `occupation_series[]` (OPM codes, "2210 - Information Technology Management") | `hints.occupationSeries` |
 *
 * The files carry no location, description or salary, so none is set. `closesAt`: the files give a
 * calendar date only; we take the last second of that date in UTC (`YYYY-MM-DDT23:59:59.000Z`).
 * USAJOBS announcements close at 11:59 pm US Eastern time, 4–5 hours after that instant, so the ledger
 * may close such a row a few hours early but never keeps one past its announced window.
 *
 * The same control number can appear twice in a file (re-announced in a later year, e.g. 803545200 in
 * jobs_legislative_branch): the announcement with the later `open_date` wins, being the current one.
 */
import type { SourcePosting } from '../../domain/posting.ts';
import { defineConnector, type Connector, type CrawlTarget } from '../connector.ts';
import { companyOf, compact, identifiedItem, idString, jsonBoardConnector, text, textList } from './common.ts';

/** `YYYY-MM-DD` plus a UTC time of day as an ISO instant, or undefined when the date is not a real date. */
function dateAt(value: unknown, hours: number, minutes: number, seconds: number): string | undefined {
  const s = text(value)?.trim();
  const m = s === undefined ? null : /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds));
  // Date.UTC rolls 2025-02-30 over into March; such a date is not what the file said.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString();
}

/** Map one announcement; null when it has no control number or title. */
export function mapUsajobsAnnouncement(value: unknown, target: CrawlTarget): SourcePosting | null {
  const identified = identifiedItem(value, (r) => idString(r['control_number']), (r) => text(r['position_title']));
  if (!identified) return null;
  const { record: item, id, title } = identified;
  const series = textList(item['occupation_series']);
  const url = text(item['usajobs_url']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(item['agency']) ?? text(item['department'])),
    locations: [],
    employmentType: text(item['appointment_type']),
    postedAt: dateAt(item['open_date'], 0, 0, 0),
    closesAt: dateAt(item['close_date'], 23, 59, 59),
    applyUrl: url,
    postingUrl: url,
    hints: series.length > 0 ? { occupationSeries: series } : undefined,
  });
}

/** Prefer the announcement that opened later (the re-announcement) over an earlier copy. */
function laterAnnouncement(candidate: SourcePosting, kept: SourcePosting): boolean {
  return (candidate.postedAt ?? '') > (kept.postedAt ?? '');
}

/**
 * Create the USAJOBS connector.
 * @param baseUrl folder URL of the announcement files (config `JOBLEDGER_USAJOBS_BASE_URL`), e.g.
 *   `https://raw.githubusercontent.com/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs`.
 */
export function createUsajobsConnector(baseUrl: string): Connector {
  return jsonBoardConnector(
    {
      id: 'usajobs',
      url: (base, target) => `${base}/${encodeURIComponent(target.board)}.json`,
      items: 'announcements',
      map: mapUsajobsAnnouncement,
      prefer: laterAnnouncement,
    },
    baseUrl,
  );
}

/** The USAJOBS connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'usajobs',
  provider: { label: 'USAJOBS', providerClass: 'government', sourceType: 'public_agency', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://raw.githubusercontent.com/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs', description: 'Base URL of the USAJOBS announcement files (one JSON array per department).' },
  applyHosts: { agency: ['usajobs.gov'] },
  replay: {
    pattern: /^\/abigailhaddad\/usajobs_historical\/main\/tracking\/public\/data\/raw_jobs\/([^/]+)\.json$/,
    // Mirrors raw.githubusercontent.com, so the base URL carries the repository path.
    basePath: '/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs',
    notFound: { error: '404: Not Found' },
  },
  fixtures: { notice: 'LICENSE' },
  create: createUsajobsConnector,
});
