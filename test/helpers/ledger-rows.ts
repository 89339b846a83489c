/**
 * Hand-built rows written through the real ledger write path (`applyCrawl`), for what the bundled
 * corpus has no example of (staffing and job-board posters, gated rows, parsed salaries, career-site
 * rows). Each row's `field_sources` must tell the truth about its values, as enrichment would.
 */
import type { Kysely } from 'kysely';
import type { FieldSources } from '../../src/domain/field-sources.ts';
import type { NormalizedJob } from '../../src/domain/posting.ts';
import type { QualityVerdict } from '../../src/domain/quality.ts';
import type { ConnectorId } from '../../src/ingest/connectors/registry.ts';
import type { CrawlCounts } from '../../src/domain/lifecycle.ts';
import { applyCrawl } from '../../src/store/ledger.ts';
import { upsertTarget } from '../../src/store/crawl-targets.ts';
import type { DB } from '../../src/store/schema.ts';

/** Provenance of a row that carries nothing but a title (category and source_type as enrichment says). */
export const BARE_FIELD_SOURCES: FieldSources = {
  remote: 'absent',
  employment_type: 'absent',
  category: 'absent',
  seniority: 'absent',
  salary: 'absent',
  location: 'absent',
  posted_at: 'absent',
  description: 'absent',
  source_type: 'inferred',
};

/** A NormalizedJob with nothing but an id, a title and an apply link, plus `overrides`. */
export function handBuiltJob(
  overrides: Omit<Partial<NormalizedJob>, 'fieldSources'> & Pick<NormalizedJob, 'sourcePostingId' | 'title'> & { fieldSources?: Partial<FieldSources> },
): NormalizedJob {
  return {
    companyName: 'Hand-built Test Employer',
    remoteInferred: false,
    categoryConfidence: null,
    hasDescription: false,
    applyUrl: `https://careers.example.org/apply/${encodeURIComponent(overrides.sourcePostingId)}`,
    sourceType: 'ats',
    providerType: 'employer_ats',
    ...overrides,
    fieldSources: { ...BARE_FIELD_SOURCES, ...overrides.fieldSources },
  };
}

/**
 * Write `postings` as one successful crawl of a dedicated board of `providerId`.
 * @returns the crawl's counts.
 */
export async function writeHandBuiltRows(
  db: Kysely<DB>,
  postings: Array<{ job: NormalizedJob; verdict?: QualityVerdict }>,
  options: { providerId?: ConnectorId; board?: string; now?: Date } = {},
): Promise<CrawlCounts> {
  const providerId = options.providerId ?? 'greenhouse';
  const targetId = await upsertTarget(db, { providerId, board: options.board ?? 'hand-built-test-rows' });
  return applyCrawl(db, {
    targetId,
    providerId,
    postings: postings.map((p) => ({ job: p.job, verdict: p.verdict ?? { verdict: 'live' } })),
    now: options.now ?? new Date(),
  });
}
