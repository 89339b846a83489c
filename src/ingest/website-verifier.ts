/**
 * Website proof for the employer directory (spec: Company.website, "present only where the domain was
 * fetched and the company's own name found on it"; website_verified, "when that check was made").
 *
 * For each company with a known domain, the home page `https://<domain>/` is fetched through the
 * guarded fetcher (SSRF guard, size and time caps, redirects re-checked per hop) and its visible text
 * and title are searched for the company's own name. Names and text are folded the same way before
 * comparing: Unicode compatibility form, diacritics removed, lower case, every run of characters other
 * than letters and digits made one space, so "Hims & Hers" matches "HIMS &amp; HERS" and "Développeur"
 * matches "developpeur"; a legal-form suffix (Inc, LLC, GmbH, ...) is not required on the page. The
 * name must appear as whole words.
 *
 * Outcomes: `verified` sets `website` (the origin that answered) and `website_verified_at` (the UTC
 * date); `name_not_found` and `redirected_elsewhere` (the home page moved to another host) clear both:
 * the website is unproven; `fetch_failed` changes nothing but the check time, so a site that is briefly
 * down keeps an earlier proof.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { sanitizeDescription } from '../enrich/description.ts';
import { companiesDueForWebsiteCheck, recordWebsiteCheck } from '../store/companies.ts';
import type { DB } from '../store/schema.ts';
import { FetchError, type Fetcher } from './fetcher.ts';

export type WebsiteOutcome = 'verified' | 'name_not_found' | 'redirected_elsewhere' | 'fetch_failed';

export interface WebsiteCheck {
  slug: string;
  domain: string;
  outcome: WebsiteOutcome;
  /** The proven website (origin) when verified. */
  website?: string;
  /** Why the fetch failed. */
  error?: string;
}

export interface VerifyOptions {
  now: Date;
  /** At most this many companies per run (least recently checked first). Default 100. */
  limit?: number;
  /** Re-check companies whose last check is older than this many days. Default 30. */
  maxAgeDays?: number;
  /** URL of a domain's home page; default `https://<domain>/`. Tests point it at a loopback server. */
  urlFor?: (domain: string) => string;
  log?: Logger;
}

const LEGAL_SUFFIXES = new Set(['inc', 'llc', 'ltd', 'limited', 'gmbh', 'corp', 'corporation', 'co', 'company', 'sa', 'ag', 'bv', 'plc', 'pty', 'sas', 'srl', 'ab', 'as', 'oy', 'nv', 'se']);

/** Fold text for comparison (see the module docstring). */
export function foldForMatch(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The company name as it must appear on the page: folded, without a trailing legal form. */
export function nameToFind(name: string): string {
  const words = foldForMatch(name).split(' ').filter(Boolean);
  while (words.length > 1 && LEGAL_SUFFIXES.has(words[words.length - 1]!)) words.pop();
  return words.join(' ');
}

/** The visible text of a page: the description sanitizer's allow-list drops scripts, styles and markup. */
function visibleText(html: string): string {
  return sanitizeDescription(html)?.text ?? '';
}

/** True when `html`'s title or visible text contains `name` as whole words. */
export function pageNamesCompany(html: string, name: string): boolean {
  const wanted = nameToFind(name);
  if (!wanted) return false;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '';
  const text = ` ${foldForMatch(`${title} ${visibleText(html)}`)} `;
  return text.includes(` ${wanted} `);
}

function sameSite(answered: URL, requested: URL): boolean {
  const bare = (h: string) => h.toLowerCase().replace(/^www\./, '');
  const a = bare(answered.hostname);
  const r = bare(requested.hostname);
  return a === r || a.endsWith(`.${r}`);
}

/**
 * Check the websites of companies that have a domain and were not checked within `maxAgeDays`.
 * @returns one entry per company checked.
 */
export async function verifyWebsites(db: Kysely<DB>, fetcher: Fetcher, options: VerifyOptions): Promise<WebsiteCheck[]> {
  const urlFor = options.urlFor ?? ((domain: string) => `https://${domain}/`);
  const cutoff = new Date(options.now.getTime() - (options.maxAgeDays ?? 30) * 86_400_000);
  const companies = await companiesDueForWebsiteCheck(db, cutoff, options.limit ?? 100);

  const results: WebsiteCheck[] = [];
  for (const company of companies) {
    const domain = company.domain;
    const requested = new URL(urlFor(domain));
    let check: WebsiteCheck;
    try {
      const res = await fetcher.get(requested.href, { headers: { Accept: 'text/html,application/xhtml+xml' } });
      const answered = new URL(res.url);
      if (!sameSite(answered, requested)) check = { slug: company.slug, domain, outcome: 'redirected_elsewhere' };
      else if (pageNamesCompany(res.body.toString('utf8'), company.name)) check = { slug: company.slug, domain, outcome: 'verified', website: answered.origin };
      else check = { slug: company.slug, domain, outcome: 'name_not_found' };
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      check = { slug: company.slug, domain, outcome: 'fetch_failed', error: `${error.kind}: ${error.message}` };
    }
    const proof =
      check.outcome === 'verified'
        ? { website: check.website!, verifiedOn: options.now.toISOString().slice(0, 10) }
        : check.outcome === 'fetch_failed'
          ? undefined
          : null;
    await recordWebsiteCheck(db, company.id, options.now, proof);
    options.log?.info({ company: company.slug, outcome: check.outcome }, 'website checked');
    results.push(check);
  }
  return results;
}
