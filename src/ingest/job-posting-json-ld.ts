/**
 * schema.org `JobPosting` structured data read out of an HTML page (schema.org/JobPosting; Google
 * Search Central, "Job posting (JobPosting) structured data",
 * developers.google.com/search/docs/appearance/structured-data/job-posting).
 *
 * What a page may carry, and what is read:
 * - every `<script type="application/ld+json">` block (any case, parameters such as `; charset=utf-8`
 *   allowed), each holding an object, an array, or an object with `@graph`; JobPostings are found at any
 *   depth (e.g. a `WebPage`'s `mainEntity`), several per page;
 * - `@type` `JobPosting`, also as `schema:JobPosting`, `https://schema.org/JobPosting` or in a type array;
 * - the malformed forms seen on real sites: a block wrapped in `<!-- -->` or `<![CDATA[ ]]>` (also
 *   behind `//`), trailing commas, comments, raw line breaks inside strings and other repairs
 *   `jsonrepair` makes, and a block whose JSON was HTML-escaped as a whole (`{&quot;@type&quot;: ...}`)
 *   or whose text values carry entities (`R&amp;D`).
 * A block that stays unreadable after that is counted in `unreadable`, never guessed at.
 *
 * Fields, mapped without guessing (absent stays absent):
 * | JobPosting | {@link JobPostingData} |
 * |---|---|
 * | `title` (entities decoded) | `title` |
 * | `description` (HTML; an entity-escaped HTML text is unescaped once) | `descriptionHtml` |
 * | `datePosted` | `postedAt`: an RFC 3339 instant; a bare date is 00:00Z of that day (as USAJOBS `open_date`), a date-time without offset is read as UTC |
 * | `validThrough` | `validThrough`: with an offset, that instant; a bare date or a date-time without an offset is read at UTC-12:00, the latest it can mean anywhere, so a row never closes early |
 * | `employmentType` (text or list; FULL_TIME, PART_TIME, CONTRACTOR, TEMPORARY, INTERN, ...) | `employmentType`: the first value |
 * | `hiringOrganization` `name`, `sameAs`, `url`, `logo` (text or ImageObject) | `hiringOrganization` |
 * | `jobLocation[].address` (PostalAddress or text): `addressLocality`, `addressRegion`, `addressCountry` (text or Country) | `locations` |
 * | `jobLocationType` `TELECOMMUTE` | `telecommute` |
 * | `applicantLocationRequirements` (Country, State or AdministrativeArea, `name`) | `applicantLocations` |
 * | `baseSalary` `currency`, `value.minValue`/`maxValue`/`value`, `value.unitText` (HOUR, DAY, WEEK, MONTH, YEAR) | `salary` |
 * | `directApply` | `directApply` |
 * | `identifier` (PropertyValue `value`, or text) | `identifier` |
 * | `url` | `url` (as written; the caller resolves it) |
 */
import { decodeHTML } from 'entities';
import { Parser } from 'htmlparser2';
import { jsonrepair } from 'jsonrepair';
import type { SourceLocation, SourceSalary } from '../domain/posting.ts';
import type { SalaryPeriod } from '../domain/vocabulary.ts';

/** One JobPosting as the page states it. */
export interface JobPostingData {
  title?: string;
  descriptionHtml?: string;
  /** RFC 3339 instant (`toISOString` form). */
  postedAt?: string;
  /** RFC 3339 instant (`toISOString` form). */
  validThrough?: string;
  employmentType?: string;
  hiringOrganization?: { name?: string; sameAs: string[]; logo?: string };
  /** Each `jobLocation` address, in order. */
  locations: SourceLocation[];
  /** `jobLocationType` is `TELECOMMUTE`: the posting itself says the job is remote. */
  telecommute: boolean;
  /** Names in `applicantLocationRequirements` (countries or regions a remote applicant may live in). */
  applicantLocations: string[];
  salary?: SourceSalary;
  directApply?: boolean;
  identifier?: string;
  url?: string;
}

/** What one HTML page offers a crawler. */
export interface PageReading {
  postings: JobPostingData[];
  /** `ld+json` blocks that were not JSON even after repair. */
  unreadable: number;
  /** Every `<a href>` value, as written, in document order. */
  links: string[];
}

/** Deepest nesting searched for JobPostings (a `@graph` inside a `WebPage` inside an array is depth 3). */
const MAX_DEPTH = 12;

/**
 * Read an HTML page: its JSON-LD JobPostings and its links.
 * @param html the page as text (any size the fetcher accepted).
 */
export function readPage(html: string): PageReading {
  const blocks: string[] = [];
  const links: string[] = [];
  let inJsonLd = false;
  let block = '';
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'script' && /^\s*application\/ld\+json\s*(;.*)?$/i.test(attribs['type'] ?? '')) {
          inJsonLd = true;
          block = '';
        } else if (name === 'a' && attribs['href'] !== undefined) {
          links.push(attribs['href']);
        }
      },
      ontext(text) {
        if (inJsonLd) block += text;
      },
      onclosetag(name) {
        if (name === 'script' && inJsonLd) {
          inJsonLd = false;
          blocks.push(block);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  const postings: JobPostingData[] = [];
  let unreadable = 0;
  for (const raw of blocks) {
    if (unwrap(raw) === '') continue;
    const value = parseBlock(raw);
    if (value === undefined) {
      unreadable++;
      continue;
    }
    const found: Record<string, unknown>[] = [];
    collectJobPostings(value, found, 0);
    for (const node of found) postings.push(readJobPosting(node));
  }
  return { postings, unreadable, links };
}

/** Strip the wrappers some CMSs put around a block: `<!-- -->` and `<![CDATA[ ]]>`, also behind `//` or `/* *\/`. */
function unwrap(raw: string): string {
  let s = raw.trim();
  for (let i = 0; i < 3; i++) {
    const before = s;
    s = s
      .replace(/^(?:\/\/|\/\*)?\s*<!--/, '')
      .replace(/(?:\/\/|\/\*)?\s*-->\s*(?:\*\/)?$/, '')
      .replace(/^(?:\/\/|\/\*)?\s*<!\[CDATA\[\s*(?:\*\/)?/, '')
      .replace(/(?:\/\/|\/\*)?\s*\]\]>\s*(?:\*\/)?$/, '')
      .trim();
    if (s === before) break;
  }
  return s;
}

/** One block as a JSON value, repaired when needed; undefined when it cannot be read. */
function parseBlock(raw: string): unknown {
  const text = unwrap(raw);
  if (text === '') return undefined;
  const candidates = [text];
  // A block HTML-escaped as a whole has no bare quote and at least one escaped one.
  if (!text.includes('"') && /&(?:quot|#34|#x22);/i.test(text)) candidates.unshift(decodeHTML(text));
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate);
    } catch {
      try {
        return JSON.parse(jsonrepair(candidate));
      } catch {
        // try the next reading
      }
    }
  }
  return undefined;
}

function typeNames(node: Record<string, unknown>): string[] {
  const type = node['@type'];
  const list = Array.isArray(type) ? type : [type];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^(?:https?:\/\/schema\.org\/|schema:)/i, '').trim());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function collectJobPostings(value: unknown, out: Record<string, unknown>[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collectJobPostings(item, out, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  if (typeNames(value).includes('JobPosting')) {
    out.push(value);
    return;
  }
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) collectJobPostings(child, out, depth + 1);
  }
}

/** Text with visible content, entities decoded and whitespace collapsed; anything else undefined. */
function plain(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const s = decodeHTML(value).replace(/\s+/g, ' ').trim();
  return s === '' ? undefined : s;
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** A number, also when written as a numeric string ("85000", "85,000.00"). */
function amount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const s = value.trim().replace(/,(?=\d{3}\b)/g, '');
  if (!/^\d+(\.\d+)?$/.test(s)) return undefined;
  return Number(s);
}

const DATE_ONLY = /^(\d{4}-\d{2}-\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;
const ZONED_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/;

function instant(s: string): string | undefined {
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `datePosted`: see the module table. */
function postedInstant(value: unknown): string | undefined {
  const s = plain(value);
  if (!s) return undefined;
  if (ZONED_DATE_TIME.test(s)) return instant(s.replace(' ', 'T'));
  const date = DATE_ONLY.exec(s);
  if (date) return instant(`${date[1]}T00:00:00Z`);
  const local = LOCAL_DATE_TIME.exec(s);
  if (local) return instant(`${local[1]}T${local[2]}Z`);
  return undefined;
}

/** `validThrough`: see the module table (never earlier than the page can mean). */
function closingInstant(value: unknown): string | undefined {
  const s = plain(value);
  if (!s) return undefined;
  if (ZONED_DATE_TIME.test(s)) return instant(s.replace(' ', 'T'));
  const date = DATE_ONLY.exec(s);
  if (date) return instant(`${date[1]}T23:59:59-12:00`);
  const local = LOCAL_DATE_TIME.exec(s);
  if (local) return instant(`${local[1]}T${local[2]}-12:00`);
  return undefined;
}

/** schema.org `unitText` of a salary (Google lists HOUR, DAY, WEEK, MONTH, YEAR). */
const UNIT_PERIODS: Readonly<Record<string, SalaryPeriod>> = { HOUR: 'hourly', DAY: 'daily', WEEK: 'weekly', MONTH: 'monthly', YEAR: 'annual' };

function readSalary(value: unknown): SourceSalary | undefined {
  const money = first(value);
  if (!isRecord(money)) return undefined;
  const currency = plain(money['currency'])?.toUpperCase();
  const quantity = first(money['value']);
  let min: number | undefined;
  let max: number | undefined;
  let unit: string | undefined;
  if (isRecord(quantity)) {
    const exact = amount(quantity['value']);
    min = amount(quantity['minValue']) ?? exact;
    max = amount(quantity['maxValue']) ?? exact;
    unit = plain(quantity['unitText'])?.toUpperCase();
  } else {
    min = max = amount(quantity);
  }
  if (min === undefined && max === undefined) return undefined;
  const salary: SourceSalary = { period: unit ? (UNIT_PERIODS[unit] ?? null) : null };
  if (min !== undefined) salary.min = min;
  if (max !== undefined) salary.max = max;
  if (currency && /^[A-Z]{3}$/.test(currency)) salary.currency = currency;
  return salary;
}

function readAddress(place: unknown): SourceLocation | undefined {
  if (!isRecord(place)) return plain(place) ? { text: plain(place) } : undefined;
  const address = first(place['address']);
  if (!isRecord(address)) {
    const text = plain(address) ?? plain(place['name']);
    return text ? { text } : undefined;
  }
  const countryValue = first(address['addressCountry']);
  const country = isRecord(countryValue) ? plain(countryValue['name']) ?? plain(countryValue['identifier']) : plain(countryValue);
  const city = plain(address['addressLocality']);
  const region = plain(address['addressRegion']);
  const parts = [city, region, country].filter((p): p is string => p !== undefined);
  if (parts.length === 0) return undefined;
  const location: SourceLocation = { text: parts.join(', ') };
  if (city) location.city = city;
  if (region) location.region = region;
  if (country) location.country = country;
  return location;
}

function readOrganization(value: unknown): JobPostingData['hiringOrganization'] {
  const org = first(value);
  if (typeof org === 'string') return plain(org) ? { name: plain(org), sameAs: [] } : undefined;
  if (!isRecord(org)) return undefined;
  const sameAs = [...list(org['sameAs']), ...list(org['url'])].map(plain).filter((s): s is string => s !== undefined);
  const logoValue = first(org['logo']);
  const logo = isRecord(logoValue) ? plain(logoValue['url']) ?? plain(logoValue['contentUrl']) : plain(logoValue);
  const result: NonNullable<JobPostingData['hiringOrganization']> = { sameAs };
  const name = plain(org['name']) ?? plain(org['legalName']);
  if (name) result.name = name;
  if (logo) result.logo = logo;
  return result;
}

/** The description as HTML: a text that only carries escaped markup (`&lt;p&gt;`) is unescaped once. */
function descriptionHtml(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return !value.includes('<') && /&lt;\/?[a-z]/i.test(value) ? decodeHTML(value) : value;
}

/** Map one JobPosting node to {@link JobPostingData}. */
export function readJobPosting(node: Record<string, unknown>): JobPostingData {
  const identifierValue = first(node['identifier']);
  const identifier = isRecord(identifierValue) ? plain(identifierValue['value']) ?? plain(identifierValue['@id']) : plain(identifierValue);
  const data: JobPostingData = {
    locations: list(node['jobLocation']).map(readAddress).filter((l): l is SourceLocation => l !== undefined),
    telecommute: list(node['jobLocationType']).some((t) => plain(t)?.toUpperCase() === 'TELECOMMUTE'),
    applicantLocations: list(node['applicantLocationRequirements'])
      .map((r) => (isRecord(r) ? plain(r['name']) : plain(r)))
      .filter((n): n is string => n !== undefined),
  };
  const title = plain(node['title']);
  if (title) data.title = title;
  const description = descriptionHtml(node['description']);
  if (description) data.descriptionHtml = description;
  const postedAt = postedInstant(node['datePosted']);
  if (postedAt) data.postedAt = postedAt;
  const validThrough = closingInstant(node['validThrough']);
  if (validThrough) data.validThrough = validThrough;
  const employmentType = plain(first(node['employmentType']));
  if (employmentType) data.employmentType = employmentType;
  const org = readOrganization(node['hiringOrganization']);
  if (org) data.hiringOrganization = org;
  const salary = readSalary(node['baseSalary']);
  if (salary) data.salary = salary;
  if (typeof node['directApply'] === 'boolean') data.directApply = node['directApply'];
  if (identifier) data.identifier = identifier;
  const url = plain(first(node['url']));
  if (url) data.url = url;
  return data;
}
