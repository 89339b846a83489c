/**
 * The enrichment records kept beside crawled rows (migration 031; src/enrich/enrichment-record.ts):
 * read before a crawl's enrichment, for the postings whose inputs did not change, and written by the
 * crawl's ledger transaction for the postings it enriched afresh.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { KeptEnrichmentRecord } from '../domain/lifecycle.ts';
import type { EnrichmentRecord } from '../domain/posting.ts';
import type { DB } from './schema.ts';

/** A kept record whose digest matched, with the descriptions of its row. */
export interface KeptEnrichment {
  record: EnrichmentRecord;
  /** `contentHash` of the record with the descriptions. */
  contentHash: string;
  /** The posting's board signals, as kept (src/enrich/intermediary.ts BoardSignals). */
  boardSignals: unknown;
  descriptionHtml: string | null;
  descriptionText: string | null;
}

/**
 * The kept records of `providerId`'s rows among `wanted` whose digest is still the one given, keyed
 * by `sourcePostingId`; postings without a row, without a record or with another digest are absent.
 * One query over the (provider_id, source_posting_id) key.
 * @throws the database's error.
 */
export async function keptEnrichments(
  db: Kysely<DB>,
  providerId: string,
  wanted: readonly { sourcePostingId: string; digest: string }[],
): Promise<Map<string, KeptEnrichment>> {
  const kept = new Map<string, KeptEnrichment>();
  if (wanted.length === 0) return kept;
  const { rows } = await sql<{
    source_posting_id: string;
    record: EnrichmentRecord;
    content_hash: string;
    board_signals: unknown;
    description_html: string | null;
    description_text: string | null;
  }>`
    SELECT j.source_posting_id, e.record, e.content_hash, e.board_signals, j.description_html, j.description_text
      FROM unnest(${wanted.map((w) => w.sourcePostingId)}::text[], ${wanted.map((w) => w.digest)}::text[]) AS w(source_posting_id, digest)
      JOIN jobs j ON j.provider_id = ${providerId} AND j.source_posting_id = w.source_posting_id
      JOIN job_enrichments e ON e.job_id = j.id AND e.source_digest = w.digest`.execute(db);
  for (const r of rows) {
    kept.set(r.source_posting_id, { record: r.record, contentHash: r.content_hash, boardSignals: r.board_signals, descriptionHtml: r.description_html, descriptionText: r.description_text });
  }
  return kept;
}

const KEEP_CHUNK = 500;

/**
 * Keep (insert or replace) the enrichment record of each row, inside the crawl's transaction. The
 * foreign key to `jobs` is checked at commit, so records of rows the transaction inserts later may
 * come first.
 * @param records `record` and `boardSignals` are JSON text.
 * @throws the database's error.
 */
export async function keepEnrichments(trx: Transaction<DB>, records: readonly (KeptEnrichmentRecord & { jobId: string })[]): Promise<void> {
  for (let i = 0; i < records.length; i += KEEP_CHUNK) {
    const chunk = records.slice(i, i + KEEP_CHUNK);
    await sql`
      INSERT INTO job_enrichments (job_id, source_digest, record, content_hash, board_signals)
      SELECT * FROM unnest(
        ${chunk.map((r) => r.jobId)}::uuid[], ${chunk.map((r) => r.digest)}::text[], ${chunk.map((r) => r.record)}::json[],
        ${chunk.map((r) => r.contentHash)}::text[], ${chunk.map((r) => r.boardSignals)}::json[])
      ON CONFLICT (job_id) DO UPDATE
        SET source_digest = excluded.source_digest, record = excluded.record, content_hash = excluded.content_hash, board_signals = excluded.board_signals`.execute(trx);
  }
}
