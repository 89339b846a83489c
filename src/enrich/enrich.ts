/**
 * Enrichment: one connector's SourcePosting in, the NormalizedJob the ledger stores out, with every
 * served field in its final form and FieldSources set truthfully (spec: Resources › Job, FieldSources,
 * nullability table).
 *
 * Pure and synchronous apart from the FX rates, which the caller loads once (`loadFxRates`) and passes
 * in. Everything costly (regular expressions, gazetteer and vocabulary tables) is built once when the
 * enrich modules load, and repeated locations and titles are memoized (memo.ts), so enrichPosting can
 * run per posting in a crawl loop without per-call setup.
 *
 * Salary: the source's structured salary when it has one (`structured`, published); otherwise one read
 * out of the advert text by salary-text.ts (`parsed_description`, inferred), never an estimate.
 * Poster type: poster-type.ts (staffing agency or job board; undefined for employer-direct rows).
 *
 * Invariants every result satisfies (tested in enrich.test.ts):
 * - no optional field is an empty string: absent values are omitted;
 * - `categoryConfidence` is null exactly when `category` is absent, and >= 0.6 otherwise;
 * - `remoteInferred` is true only when `remote` is set and was derived by the service;
 * - `hasDescription` is true exactly when `descriptionHtml`/`descriptionText` are present;
 * - `title` is trimmed with internal whitespace collapsed;
 * - `postedAt` and `upstreamClosesAt` are RFC 3339 UTC (`YYYY-MM-DDTHH:mm:ss.sssZ`), dropped when
 *   unparseable;
 * - `applyUrl`, `postingUrl` and `companyLogo` are absolute http(s) URLs without credentials, or absent;
 * - `fieldSources` has all nine keys.
 */
import type { FieldSources } from '../domain/field-sources.ts';
import type { NormalizedJob, SourcePosting } from '../domain/posting.ts';
import type { ProviderType, SourceType } from '../domain/vocabulary.ts';
import { classifyCategory, type CategoryResult } from './category.ts';
import { sanitizeDescription, textToHtml } from './description.ts';
import { mapEmploymentType } from './employment.ts';
import type { FxRates } from './fx.ts';
import { resolveLocation, type ResolvedLocation } from './location.ts';
import { boundedMemo } from './memo.ts';
import { resolveRemote } from './remote.ts';
import { findPosterType } from './poster-type.ts';
import { normalizeSalary, normalizeStructuredSalary, salaryProvenance } from './salary.ts';
import { boardDollarCurrency, parseSalaryFromText } from './salary-text.ts';
import { classifySeniority } from './seniority.ts';

/**
 * The provider a posting came from, as the pipeline knows it: its id (the row's `source`, e.g.
 * `ashby`), its source class (`source_type`) and its class in the legacy vocabulary (`provider_type`).
 */
export interface ProviderProfile {
  id: string;
  sourceType: SourceType;
  providerType: ProviderType;
}

/** Locations and titles repeat within a board and across recrawls (see memo.ts). */
const locationMemo = boundedMemo<ResolvedLocation>(20_000);
const categoryMemo = boundedMemo<CategoryResult>(20_000);

/** Trimmed, internal whitespace collapsed; undefined when nothing visible is left. */
function cleanText(value: string | undefined): string | undefined {
  const s = value?.replace(/\s+/g, ' ').trim();
  return s ? s : undefined;
}

/**
 * RFC 3339 UTC via Date, or undefined when the value does not parse or its year falls outside
 * 0000–9999 (`toISOString` would give an expanded `+010000-…` year, which RFC 3339 does not allow).
 */
function toRfc3339Utc(value: string | undefined): string | undefined {
  const s = value?.trim();
  if (!s) return undefined;
  const date = new Date(s);
  if (Number.isNaN(date.getTime())) return undefined;
  const iso = date.toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined;
}

/** An absolute http(s) URL without user info, serialized by the URL parser; undefined otherwise. */
function httpUrl(value: string | undefined): string | undefined {
  const s = value?.trim();
  if (!s || !URL.canParse(s)) return undefined;
  const url = new URL(s);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) return undefined;
  return url.href;
}

/** What a posting's board as a whole says, for rules one row cannot settle alone (see {@link boardContext}). */
export interface BoardContext {
  /** The one dollar currency the board's rows make unambiguous (salary-text.ts `boardDollarCurrency`). */
  dollar?: string;
}

/**
 * Read the board-level evidence once per crawl: the dollar currency of the board's rows (their
 * structured salary currencies and resolved countries), used for a bare `$` in an advert that
 * resolves no country.
 *
 * @param postings every posting of one board from one crawl.
 */
export function boardContext(postings: readonly SourcePosting[]): BoardContext {
  const dollar = boardDollarCurrency(
    postings.map((p) => ({
      currency: p.salary?.currency,
      country: locationMemo.get(JSON.stringify([p.location, p.locations]), () => resolveLocation(p.location, p.locations)).country,
    })),
  );
  return dollar ? { dollar } : {};
}

/**
 * Enrich one posting.
 *
 * @param posting  what the connector read from the source, untouched.
 * @param provider the provider's id and classes (see {@link ProviderProfile}).
 * @param fx       indicative rates for `salary_min_annual_eur` (load once with `loadFxRates`).
 * @param board    the board-level evidence ({@link boardContext}); empty when unknown.
 * @returns the NormalizedJob to store; see the module docstring for the invariants it satisfies and
 *          each helper module for the rule behind each field.
 */
export function enrichPosting(posting: SourcePosting, provider: ProviderProfile, fx: FxRates, board: BoardContext = {}): NormalizedJob {
  const title = cleanText(posting.title) ?? '';
  const location = cleanText(posting.location) ?? cleanText(posting.locations.find((l) => cleanText(l.text))?.text);
  const place = locationMemo.get(JSON.stringify([posting.location, posting.locations]), () => resolveLocation(posting.location, posting.locations));

  const employmentType = mapEmploymentType(posting.employmentType);
  const seniority = classifySeniority(title);
  const department = posting.hints?.department;
  const team = posting.hints?.team;
  const category = categoryMemo.get(`${title}\u0000${department ?? ''}\u0000${team ?? ''}`, () => classifyCategory(title, { department, team }));
  const description =
    sanitizeDescription(posting.descriptionHtml) ?? (posting.descriptionText ? sanitizeDescription(textToHtml(posting.descriptionText)) : undefined);
  // A salary read out of the advert only where the source publishes none (spec: salary_source).
  const salary =
    normalizeStructuredSalary(posting.salary, fx) ??
    normalizeSalary(parseSalaryFromText(description?.text, { country: place.country, boardDollar: board.dollar }), 'parsed_description', fx);
  const postedAt = toRfc3339Utc(posting.postedAt);
  const remote = resolveRemote({
    flag: posting.remoteFlag,
    texts: [title, location ?? ''],
    secondaryTexts: posting.locations.map((l) => l.text ?? ''),
    advertText: description?.text,
  });

  const fieldSources: FieldSources = {
    remote: remote.provenance,
    employment_type: employmentType ? 'published' : 'absent',
    category: category.category ? 'inferred' : 'absent',
    seniority: seniority ? 'inferred' : 'absent',
    salary: salaryProvenance(salary),
    // Country, city and location only ever come from the source's own location data.
    location: location || place.country || place.city ? 'published' : 'absent',
    posted_at: postedAt ? 'published' : 'absent',
    description: description ? 'published' : 'absent',
    source_type: 'inferred',
  };

  const job: NormalizedJob = {
    sourcePostingId: posting.sourcePostingId,
    title,
    companyName: cleanText(posting.company.name) ?? '',
    remoteInferred: remote.remoteInferred,
    categoryConfidence: category.category ? category.confidence : null,
    hasDescription: description !== undefined,
    sourceType: provider.sourceType,
    providerType: provider.providerType,
    fieldSources,
  };
  const companyDomain = cleanText(posting.company.domain)?.toLowerCase();
  if (companyDomain) job.companyDomain = companyDomain;
  const companyLogo = httpUrl(posting.company.logoUrl);
  if (companyLogo) job.companyLogo = companyLogo;
  if (location) job.location = location;
  if (place.country) job.country = place.country;
  if (place.city) job.city = place.city;
  if (place.state) job.state = place.state;
  if (remote.remote) job.remote = remote.remote;
  if (employmentType) job.employmentType = employmentType;
  if (seniority) job.seniority = seniority;
  if (category.category) job.category = category.category;
  if (postedAt) job.postedAt = postedAt;
  if (description) {
    job.descriptionHtml = description.html;
    job.descriptionText = description.text;
  }
  if (salary) job.salary = salary;
  // A connector that knows who published the posting (career_site's hiringOrganization, Jobsuche's
  // staffing filters) states the poster type, and the row records that the source said so; otherwise
  // the rules judge the row.
  const poster = posting.poster ? { posterType: posting.poster, ruleId: 'poster.source_stated' as const } : findPosterType({ companyName: job.companyName, companyDomain: job.companyDomain, providerType: provider.providerType, descriptionText: description?.text });
  if (poster) {
    job.posterType = poster.posterType;
    if (poster.ruleId) job.posterRuleId = poster.ruleId;
  }
  const applyUrl = httpUrl(posting.applyUrl);
  if (applyUrl) job.applyUrl = applyUrl;
  const postingUrl = httpUrl(posting.postingUrl);
  if (postingUrl) job.postingUrl = postingUrl;
  const upstreamClosesAt = toRfc3339Utc(posting.closesAt);
  if (upstreamClosesAt) job.upstreamClosesAt = upstreamClosesAt;
  return job;
}
