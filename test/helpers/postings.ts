/**
 * Rows written through the real ledger path, for tests that drive the ledger's write side directly:
 * - `posting` + `writeCrawl`: SourcePosting → enrichPosting → judgePosting → applyCrawl, exactly as the
 *   pipeline does after a connector parsed a payload, for shapes the recorded feeds lack (a
 *   discovery-only source, a rename, a collision);
 * - `ashbyPayload` + `ashbyLedgerPostings`: real recorded Ashby postings turned into ledger postings
 *   through the production mapping, enrichment and quality gate, without HTTP.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import type { SourcePosting } from '../../src/domain/posting.ts';
import { enrichPosting } from '../../src/enrich/enrich.ts';
import { loadFxRates } from '../../src/enrich/fx.ts';
import { FIXTURES_DIR } from '../../src/ingest/bundled-feeds.ts';
import { mapAshbyJob } from '../../src/ingest/connectors/ashby.ts';
import { loadProviders } from '../../src/ingest/pipeline.ts';
import { judgePosting } from '../../src/ingest/quality-gate.ts';
import type { CrawlCounts, LedgerPosting } from '../../src/domain/lifecycle.ts';
import { applyCrawl } from '../../src/store/ledger.ts';
import type { DB } from '../../src/store/schema.ts';

/** Add a provider that is fetched for discovery only (its rows are withheld as quality_removed). */
export async function addDiscoveryProvider(db: Kysely<DB>, id: string, label: string): Promise<void> {
  await db
    .insertInto('providers')
    .values({ id, label, provider_class: 'direct', source_type: 'career_site', redistributable: false, discovery_only: true })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** A minimal posting of `company` with a title and an apply link on the company's own site. */
export function posting(id: string, title: string, company: { name: string; domain?: string }, extra: Partial<SourcePosting> = {}): SourcePosting {
  const host = company.domain ?? 'careers.example.org';
  return {
    sourcePostingId: id,
    title,
    company,
    locations: [{ country: 'Germany', city: 'Berlin' }],
    location: 'Berlin, Germany',
    postedAt: '2026-10-01T00:00:00Z',
    applyUrl: `https://${host}/jobs/${id}`,
    postingUrl: `https://${host}/jobs/${id}`,
    ...extra,
  };
}

/**
 * Write `postings` as one successful crawl of board `board` of provider `providerId` at `now`
 * (a crawl_targets row is created for it).
 */
export async function writeCrawl(
  db: Kysely<DB>,
  input: { providerId: string; board: string; postings: SourcePosting[]; companyDomain?: string; now?: Date },
): Promise<CrawlCounts> {
  const now = input.now ?? new Date();
  const targetId = `${input.providerId}:${input.board}`;
  await db
    .insertInto('crawl_targets')
    .values({ id: targetId, provider_id: input.providerId, board: input.board, company_domain: input.companyDomain ?? null })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const provider = (await loadProviders(db)).get(input.providerId);
  if (!provider) throw new Error(`no provider ${input.providerId}`);
  const fx = loadFxRates();
  const postings = input.postings.map((p) => {
    const job = enrichPosting(p, provider, fx);
    const verdict = judgePosting(job, {
      providerId: provider.id,
      redistributable: provider.redistributable,
      discoveryOnly: provider.discoveryOnly,
      board: input.board,
      companyDomain: input.companyDomain,
      now,
    });
    return { job, verdict };
  });
  return applyCrawl(db, { targetId, providerId: input.providerId, postings, now });
}

/** The recorded payload of an Ashby board, parsed. */
export function ashbyPayload(board: string): { jobs: Record<string, unknown>[]; apiVersion?: string } {
  return JSON.parse(zlib.gunzipSync(readFileSync(path.join(FIXTURES_DIR, 'ashby', `${board}.json.gz`))).toString('utf8'));
}

/** Every listed posting of a recorded Ashby board, enriched and judged as the pipeline would. */
export function ashbyLedgerPostings(board: string, now = new Date()): LedgerPosting[] {
  const target = { id: `ashby:${board}`, providerId: 'ashby' as const, board, companyName: board };
  const fx = loadFxRates();
  const out: LedgerPosting[] = [];
  for (const item of ashbyPayload(board).jobs) {
    const posting = mapAshbyJob(item, target);
    if (!posting) continue;
    const job = enrichPosting(posting, { id: 'ashby', sourceType: 'ats', providerType: 'employer_ats' }, fx);
    out.push({ job, verdict: judgePosting(job, { providerId: 'ashby', redistributable: true, discoveryOnly: false, board, now }) });
  }
  return out;
}
