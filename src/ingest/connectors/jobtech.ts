/**
 * JobTech JobStream (Sweden, Arbetsförmedlingen's open ad data): `GET {base}/snapshot` (every published
 * ad, a JSON array) for the first load, then `GET {base}/stream?date=YYYY-MM-DDTHH:MM:SS` (the ads changed
 * since that time, a JSON array; a removed ad is `{id, removed: true, removed_date}`). Shapes from
 * JobTech's documentation, "JobStream" (jobtechdev.se/en/components/jobstream and the API's
 * Swagger at jobstream.api.jobtechdev.se), with the ad schema of JobTech's own test resource
 * (JobtechSwe/sokannonser-api `tests/integration_tests/test_resources/platsannons_results_eng.json`,
 * copied untouched to fixtures/jobtech/, Apache-2.0).
 *
 * The stream is a log of changes: the connector keeps, on the target (`siteState`), every published ad
 * and the time of its last read, applies each crawl's changes to that set and returns the whole set, so
 * the pipeline's absence rule sees the board as it stands. `removed: true` is the source's closure
 * signal: the ad leaves the set and is reported `gone` (closed `expired_upstream`). A stream with no
 * change (`[]`) is `not_modified`: no row is touched. The stream's `date` is the start of the previous
 * read less five minutes (changes are idempotent; the overlap covers clock skew), in UTC.
 *
 * | ad | SourcePosting |
 * |---|---|
 * | `id` | `sourcePostingId` |
 * | `headline` | `title` |
 * | `employer.workplace`, else `employer.name` | `company.name` |
 * | `workplace_address` {street_address, postcode, city, municipality, region, country} | `locations[0]` |
 * | `working_hours_type.label` (Heltid, Deltid), else `employment_type.label` | `employmentType`, raw |
 * | `publication_date` (Swedish local time, no offset) | `postedAt` (read in Europe/Stockholm) |
 * | `application_deadline` (Swedish local time) | `closesAt` |
 * | `description.text_formatted`, else `description.text` | `descriptionText` |
 * | `application_details.url`, else `webpage_url` | `applyUrl` |
 * | `webpage_url` (arbetsformedlingen.se/platsbanken/annonser/{id}) | `postingUrl` |
 * | `occupation_group` {legacy_ams_taxonomy_id (SSYK), label}, `occupation.label` | `hints.occupationSeries` |
 * | `occupation_field.label` ("Data/IT") | `hints.department` (the occupation concept as a category signal) |
 *
 * JobStream ads carry salary only as a type and free text (`salary_type`, `salary_description`), so no
 * structured salary is set.
 */
import type { SourceLocation, SourcePosting } from '../../domain/posting.ts';
import { CrawlError, defineConnector, type Connector, type CrawlOutcome, type CrawlTarget } from '../connector.ts';
import type { Fetcher } from '../fetcher.ts';
import { companyOf, compact, fetchBoard, identifiedItem, idString, isRecord, parseJson, text, trimBase, zonedInstant } from './common.ts';

interface JobtechState {
  /** When the last good read started (ISO instant). */
  readAt: string;
  ads: Record<string, SourcePosting>;
}

/** The stream's overlap with the previous read. */
const OVERLAP_MS = 5 * 60_000;

function loadState(value: unknown): JobtechState | undefined {
  if (!isRecord(value) || typeof value['readAt'] !== 'string' || !isRecord(value['ads'])) return undefined;
  return value as unknown as JobtechState;
}

const label = (concept: unknown): string | undefined => (isRecord(concept) ? text(concept['label']) : undefined);

/** Map one JobStream ad; null when it has no id or headline. */
export function mapJobtechAd(item: unknown, target: CrawlTarget): SourcePosting | null {
  const identified = identifiedItem(item, (r) => idString(r['id']), (r) => text(r['headline']));
  if (!identified) return null;
  const { record: ad, id, title } = identified;
  const employer = isRecord(ad['employer']) ? ad['employer'] : {};
  const address = isRecord(ad['workplace_address']) ? ad['workplace_address'] : {};
  const city = text(address['city']) ?? text(address['municipality']);
  const street = [text(address['street_address']), [text(address['postcode']), city].filter(Boolean).join(' ') || undefined].filter(Boolean);
  const loc = compact<SourceLocation>({ text: street.length > 0 ? street.join(', ') : undefined, city, region: text(address['region']), country: text(address['country']) });
  const description = isRecord(ad['description']) ? ad['description'] : {};
  const group = isRecord(ad['occupation_group']) ? ad['occupation_group'] : undefined;
  const series = [
    group ? [text(group['legacy_ams_taxonomy_id']), label(group)].filter(Boolean).join(' - ') : undefined,
    label(ad['occupation']),
  ].filter((s): s is string => Boolean(s));
  const hints = compact({ department: label(ad['occupation_field']), occupationSeries: series.length > 0 ? series : undefined });
  const details = isRecord(ad['application_details']) ? ad['application_details'] : {};
  const webpage = text(ad['webpage_url']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: companyOf(target, text(employer['workplace']) ?? text(employer['name'])),
    location: loc.text ?? city,
    locations: Object.keys(loc).length > 0 ? [loc] : [],
    employmentType: label(ad['working_hours_type']) ?? label(ad['employment_type']),
    postedAt: zonedInstant(ad['publication_date'], 'Europe/Stockholm'),
    closesAt: zonedInstant(ad['application_deadline'], 'Europe/Stockholm'),
    descriptionText: text(description['text_formatted']) ?? text(description['text']),
    applyUrl: text(details['url']) ?? webpage,
    postingUrl: webpage,
    hints: Object.keys(hints).length > 0 ? hints : undefined,
  });
}

/** `YYYY-MM-DDTHH:MM:SS` in UTC, the stream's `date` parameter. */
function streamDate(instant: number): string {
  return new Date(instant).toISOString().slice(0, 19);
}

/**
 * Create the JobStream connector.
 * @param baseUrl API origin, e.g. `https://jobstream.api.jobtechdev.se` (config `JOBLEDGER_JOBTECH_BASE_URL`).
 */
export function createJobtechConnector(baseUrl: string): Connector {
  const base = trimBase(baseUrl);
  return {
    id: 'jobtech',
    boardUrl: () => `${base}/snapshot`,
    /** @throws CrawlError: fetch failures by kind; `malformed` unless the answer is a JSON array of ads. */
    async crawl(target: CrawlTarget, fetcher: Fetcher): Promise<CrawlOutcome> {
      const previous = loadState(target.siteState);
      const startedAt = Date.now();
      const url = previous ? `${base}/stream?date=${encodeURIComponent(streamDate(Date.parse(previous.readAt) - OVERLAP_MS))}` : `${base}/snapshot`;
      // Validators belong to the snapshot, whose URL never changes; the stream's URL changes every read.
      const answer = await fetchBoard(fetcher, url, previous ? { ...target, etag: undefined, lastModified: undefined } : target);
      if (answer.kind === 'not_modified') return answer;
      const list = parseJson(answer.body, target);
      if (!Array.isArray(list)) throw new CrawlError('malformed', `${target.id}: expected a JSON array of ads`);
      if (previous && list.length === 0) return { kind: 'not_modified' };
      const ads = new Map(Object.entries(previous?.ads ?? {}));
      const gone: string[] = [];
      let skipped = 0;
      for (const ad of list) {
        if (isRecord(ad) && ad['removed'] === true) {
          const id = idString(ad['id']);
          if (id === undefined) skipped++;
          else {
            ads.delete(id);
            gone.push(id);
          }
          continue;
        }
        const posting = mapJobtechAd(ad, target);
        if (posting === null) skipped++;
        else ads.set(posting.sourcePostingId, posting);
      }
      const siteState: JobtechState = { readAt: new Date(startedAt).toISOString(), ads: Object.fromEntries(ads) };
      return compact({
        kind: 'fetched' as const,
        postings: [...ads.values()],
        skipped,
        siteState,
        gone: gone.length > 0 ? gone : undefined,
        etag: previous ? undefined : answer.etag,
        lastModified: previous ? undefined : answer.lastModified,
      });
    },
  };
}

/** The JobStream connector's descriptor (connectors/registry.ts). */
export const descriptor = defineConnector({
  id: 'jobtech',
  provider: { label: 'JobTech JobStream (Sweden)', providerClass: 'government', sourceType: 'public_agency', redistributable: true, discoveryOnly: false },
  baseUrl: { default: 'https://jobstream.api.jobtechdev.se', description: 'JobTech JobStream API origin (snapshot and stream).' },
  applyHosts: { agency: ['arbetsformedlingen.se'] },
  create: (baseUrl) => createJobtechConnector(baseUrl!),
});
