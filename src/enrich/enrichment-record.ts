/**
 * What a re-crawl needs to skip enriching a posting it has already enriched (issue 22, re-crawl):
 * the digest of everything {@link enrichPosting} reads, and the record of what it made of them.
 *
 * Enrichment is a pure function of the connector's SourcePosting, the provider's profile, the FX rates,
 * the board's context (enrich.ts `boardContext`) and the enrichment's own code and tables. When the
 * digest of those inputs equals the one kept with a row, enriching again would give the record kept
 * with it, so the pipeline takes the record instead: on a re-crawl where 2% of the postings changed,
 * enrichment was most of the crawler's CPU (sanitizing, the remote, salary and poster-type readings of
 * every advert text).
 *
 * The record is the NormalizedJob as enrichPosting returned it (before the board's poster-type
 * judgement, which runs on every crawl), without `descriptionHtml` and `descriptionText`: the ledger
 * row holds those already, written in the same transaction as the record.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { EnrichmentRecord, NormalizedJob, SourcePosting } from '../domain/posting.ts';
import type { BoardContext, ProviderProfile } from './enrich.ts';
import type { FxRates } from './fx.ts';

const SRC = path.resolve(import.meta.dirname, '..');

let fingerprint: string | undefined;

/**
 * The identity of the enrichment's code and tables: sha-256 over every module of `src/enrich` (tests
 * aside), the domain vocabularies it maps into, and the versions of the libraries it parses with
 * (htmlparser2, i18n-iso-countries). Read once per process, at the first digest (a process that never
 * crawls never reads the files). A deploy that changes any rule changes it, so every posting is
 * enriched afresh at its next crawl rather than kept as the old rules made it; a file that cannot be
 * read counts as changed.
 */
export function enrichmentFingerprint(): string {
  fingerprint ??= readFingerprint();
  return fingerprint;
}

function readFingerprint(): string {
  const hash = createHash('sha256');
  const files = [
    ...readdirSync(path.join(SRC, 'enrich'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .sort()
      .map((f) => path.join(SRC, 'enrich', f)),
    ...['vocabulary.ts', 'posting.ts', 'field-sources.ts'].map((f) => path.join(SRC, 'domain', f)),
  ];
  const require = createRequire(import.meta.url);
  for (const library of ['htmlparser2', 'i18n-iso-countries']) {
    try {
      files.push(require.resolve(`${library}/package.json`));
    } catch {
      // An export map that hides package.json: the library's entry point identifies its version instead.
      files.push(require.resolve(library));
    }
  }
  for (const file of files) {
    hash.update(file.slice(path.dirname(SRC).length)).update('\0');
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update(`unreadable ${String(Date.now())} ${Math.random()}`);
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Digest of one FX rate set, per object (a crawl passes the same one for every posting). */
const fxDigests = new WeakMap<FxRates, string>();

function fxDigest(fx: FxRates): string {
  let digest = fxDigests.get(fx);
  if (digest === undefined) {
    digest = createHash('sha256').update(JSON.stringify([fx.asOf, fx.eurPerUnit])).digest('hex');
    fxDigests.set(fx, digest);
  }
  return digest;
}

/**
 * The digest of everything enrichPosting reads for `posting`: sha-256 (hex, 64 characters) over
 * {@link enrichmentFingerprint}, the provider's profile, the FX rates, the board context and the
 * posting as the connector made it. Equal digests mean equal enrichment. Key order counts (plain
 * `JSON.stringify`): a connector builds its postings in a fixed order, and a connector change that
 * reorders them only costs one re-enrichment.
 */
export function enrichmentDigest(posting: SourcePosting, provider: ProviderProfile, fx: FxRates, board: BoardContext): string {
  return createHash('sha256')
    .update(enrichmentFingerprint())
    .update(fxDigest(fx))
    .update(JSON.stringify([provider.id, provider.sourceType, provider.providerType, board.dollar ?? null]))
    .update(JSON.stringify(posting))
    .digest('hex');
}

/**
 * The record to keep for `job`, as enrichPosting returned it: call before the board's poster-type
 * judgement changes the job. A JSON text; every value of a NormalizedJob survives JSON unchanged.
 */
export function enrichmentRecord(job: NormalizedJob): string {
  const { descriptionHtml: _html, descriptionText: _text, ...record } = job;
  return JSON.stringify(record);
}

/**
 * The NormalizedJob a kept record and its row's descriptions stand for: equal (`contentHash` included)
 * to what enrichPosting returned when the record was made.
 */
export function restoreEnrichment(record: EnrichmentRecord, description: { html: string | null; text: string | null }): NormalizedJob {
  const job: NormalizedJob = { ...record };
  if (description.html !== null) job.descriptionHtml = description.html;
  if (description.text !== null) job.descriptionText = description.text;
  return job;
}
