/**
 * Arbeitnow connector: the job board's public API, `GET {base}/api/job-board-api` → `{"data": [...],
 * "links", "meta"}` (arbeitnow.com/api; shape as in the reference sample `ats-samples/arbeitnow.json`).
 * One page is read: the feed is discovery-only, its rows are never served (provider `arbeitnow`,
 * migration 007).
 *
 * | Arbeitnow | SourcePosting |
 * |---|---|
 * | `slug` | `sourcePostingId` |
 * | `title` | `title` |
 * | `company_name` | `company.name` |
 * | `location` | `location`, `locations[0].text` |
 * | `remote` true | `remoteFlag` 'remote' (false says only that the job is not flagged remote: absent) |
 * | `job_types[0]` | `employmentType`, raw |
 * | `created_at` (epoch seconds) | `postedAt` |
 * | `description` (HTML; the recorded sample escapes it once more, which is unescaped first) | `descriptionHtml` |
 * | `url` | `applyUrl`, `postingUrl` (the board's own page) |
 * | `tags[0]` | `hints.department` |
 */
import type { SourcePosting } from '../../domain/posting.ts';
import { compact, finite, identifiedItem, isoFromEpochMs, jobBoardFeed, text, textList } from './common.ts';

/** `&lt;p&gt;` → `<p>`: the feed's description is sometimes HTML escaped once more. */
function unescapeOnce(html: string): string {
  if (!/^\s*&lt;[a-z]/i.test(html)) return html;
  return html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#0?39;/g, "'").replace(/&amp;/g, '&');
}

/** Map one Arbeitnow job; null when it has no slug or title. */
export function mapArbeitnowJob(item: unknown): SourcePosting | null {
  const identified = identifiedItem(item, (r) => text(r['slug']), (r) => text(r['title']));
  if (!identified) return null;
  const { record: job, id, title } = identified;
  const location = text(job['location']);
  const created = finite(job['created_at']);
  const types = textList(job['job_types']);
  const tags = textList(job['tags']);
  const description = text(job['description']);
  return compact<SourcePosting>({
    sourcePostingId: id,
    title,
    company: { name: text(job['company_name']) ?? 'Unknown' },
    location,
    locations: location ? [{ text: location }] : [],
    remoteFlag: job['remote'] === true ? 'remote' : undefined,
    employmentType: types[0],
    postedAt: created === undefined ? undefined : isoFromEpochMs(created * 1000),
    descriptionHtml: description ? unescapeOnce(description) : undefined,
    applyUrl: text(job['url']),
    postingUrl: text(job['url']),
    hints: tags[0] ? { department: tags[0] } : undefined,
  });
}

/** The Arbeitnow connector's descriptor (connectors/registry.ts). */
export const descriptor = jobBoardFeed({
  id: 'arbeitnow',
  label: 'Arbeitnow',
  origin: 'https://www.arbeitnow.com',
  path: '/api/job-board-api',
  listKey: 'data',
  map: mapArbeitnowJob,
  replay: { file: 'job-board-api', notFound: { message: 'Not Found' } },
});
