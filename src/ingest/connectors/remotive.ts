/**
 * Remotive connector: the job board's public API, `GET {base}/api/remote-jobs` → `{"jobs": [...]}`
 * (remotive.com/api-documentation; shape as in the reference sample `ats-samples/remotive.json`).
 *
 * Remotive is a job board: its rows are fetched for discovery only and are never served (provider
 * `remotive` is discovery-only and not redistributable, migration 007; the quality gate removes every
 * row with rule `source.not_redistributable`). The mapping still reads the payload truthfully, so a
 * withheld row says what the board said.
 *
 * | Remotive | SourcePosting |
 * |---|---|
 * | `id` | `sourcePostingId` |
 * | `title` | `title` |
 * | `company_name`, `company_logo` | `company` |
 * | `candidate_required_location` | `location`, `locations[0].text` |
 * | — (every Remotive job is a remote job: the board lists nothing else) | `remoteFlag` 'remote' |
 * | `job_type` (full_time, part_time, contract, freelance, internship) | `employmentType`, raw |
 * | `publication_date` (no offset: not read, the time zone would be a guess) | — |
 * | `description` | `descriptionHtml` |
 * | `url` | `applyUrl`, `postingUrl` (the board's own page) |
 * | `category` | `hints.department` |
 * The free-text `salary` is not structured data and is not read; the description may state pay.
 */
import type { SourcePosting } from '../../domain/posting.ts';
import { compact, identifiedItem, idString, isoInstant, jobBoardFeed, text } from './common.ts';

/** Map one Remotive job; null when it has no id or title. */
export function mapRemotiveJob(item: unknown): SourcePosting | null {
  const identified = identifiedItem(item, (r) => idString(r['id']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  const location = text(job['candidate_required_location']);
  const category = text(job['category']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: compact({ name: text(job['company_name']) ?? 'Unknown', logoUrl: text(job['company_logo']) }),
    location,
    locations: location ? [{ text: location }] : [],
    remoteFlag: 'remote',
    employmentType: text(job['job_type']),
    postedAt: isoInstant(job['publication_date']),
    descriptionHtml: text(job['description']),
    applyUrl: text(job['url']),
    postingUrl: text(job['url']),
    hints: category ? { department: category } : undefined,
  });
}

/** The Remotive connector's descriptor (connectors/registry.ts). */
export const descriptor = jobBoardFeed({
  id: 'remotive',
  label: 'Remotive',
  origin: 'https://remotive.com',
  path: '/api/remote-jobs',
  listKey: 'jobs',
  map: mapRemotiveJob,
  replay: { file: 'remote-jobs', notFound: { error: 'not found' } },
});
