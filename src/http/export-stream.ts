/**
 * The NDJSON body of GET /v1/export as a pull-driven stream (spec: GET /v1/export; ARCHITECTURE
 * "Exports stream with backpressure").
 *
 * Batches are read from the ledger only as the consumer asks for more data, one batch ahead:
 * `Readable.from` pulls the next chunk from the generator only while the stream's buffer is below its
 * high-water mark, and the HTTP layer stops reading the stream while the socket refuses writes. Memory
 * therefore holds at most two batches plus the socket and stream buffers, however many rows the export
 * has, and a slow client slows the export down instead of filling the server's memory.
 *
 * Records are charged per line (spec: Metering rules 2): each batch reserves its rows before it is
 * served (never more rows than granted, whatever was read ahead) and settles what was written. When a
 * reservation is refused (402 `record_quota_exhausted`) the stream ends with the final error line and
 * the `after` cursor; see `src/domain/export.ts` for the line shapes.
 */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors.ts';
import type { ExportComplete, ExportErrorLine, ExportStatus } from '../domain/export.ts';
import type { JobFilter } from '../domain/listing-filter.ts';
import { exportLineBatch, type ExportLine } from '../store/export-queries.ts';
import { changeFeedWatermark } from '../store/retention.ts';
import type { DB } from '../store/schema.ts';
import { errorFields, toApiError } from './errors.ts';
import type { RecordMeter } from './record-meter.ts';

/**
 * Rows read and charged per batch. With the next batch read ahead, the export of the 1,000,000-row
 * bench ledger took 18.8 s with 500, 17.2 s with 1,000 and 16.1 s with 2,000 (21.3 s with 500 and no
 * read-ahead; bench/README.md). Since the lines are stored (migration 033) each batch costs
 * PostgreSQL little, and its round trips and statement are a larger share: on the 200,000-row bench
 * ledger, read by curl, 2,000 gave 39,900-41,300 rows/s and 2.6-2.8 s of Node.js CPU, 4,000
 * 48,300-48,700 rows/s and 2.05 s, 5,000 and 8,000 no better beyond noise (issue 22, fifth session).
 * What the 100,000-row export with descriptions retains (test/export.test.ts, bound 64 MB): about
 * 13 MB with 2,000 rows per batch, 31 MB with 5,000.
 */
export const EXPORT_BATCH_SIZE = 4_000;

/** Characters of lines gathered before they are handed to the stream (a few lines with descriptions, a dozen without). */
const CHUNK_BYTES = 16 * 1024;

export interface ExportStreamOptions {
  db: Kysely<DB>;
  filter: JobFilter;
  status: ExportStatus;
  includeDescription: boolean;
  /** Resume after this id (exclusive). */
  after?: string;
  meter: RecordMeter;
  /** Records already granted by a reservation made before the response started (the first batch). */
  firstGrant: number;
  docsUrl: string;
  batchSize?: number;
  /** Called after each batch is read from the ledger (rows in it); for operators' metrics and tests. */
  onBatch?: (rows: number) => void;
  /** Called when the stream fails for a server fault (logged by the caller). */
  onError?: (error: unknown) => void;
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

async function* exportLines(o: ExportStreamOptions): AsyncGenerator<string> {
  const batchSize = o.batchSize ?? EXPORT_BATCH_SIZE;
  let after = o.after ?? null;
  let count = 0;
  let granted = o.firstGrant;
  let reserved = true;
  let writtenInBatch = 0;
  // Until the first line is out nothing has been sent: a failure then is thrown, so the request
  // answers with a plain error status instead of a 200 whose stream carries an error line.
  let started = false;
  // Taken before the first row is read: every change that commits later is stamped after it, so
  // /v1/changes from it replays whatever the batches below did not see (docs/sync.md, Retention).
  let since: string | undefined;
  // The following batch, read while this one is written (PostgreSQL builds its lines meanwhile), and
  // the row count it was read for. Reading never reserves records: a batch read ahead is served only
  // up to what the meter then grants.
  let ahead: { rows: Promise<ExportLine[]>; limit: number } | undefined;
  const read = (from: string | null, limit: number): Promise<ExportLine[]> => {
    const rows = exportLineBatch(o.db, o.filter, o.status, { after: from ?? undefined, limit, includeDescription: o.includeDescription });
    // Awaited in the next round, or dropped when the client leaves: never an unhandled rejection.
    rows.catch(() => undefined);
    return rows;
  };
  try {
    since = await changeFeedWatermark(o.db);
    for (;;) {
      if (!reserved) {
        try {
          granted = await o.meter.reserve(batchSize);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'record_quota_exhausted') {
            const end: ExportErrorLine = { ...errorFields(o.docsUrl, error.code, `${error.message} Resume with after=${after ?? ''} once records are available.`), count, after, since: since! };
            yield line(end);
            return;
          }
          throw error;
        }
        reserved = true;
      }
      // One row more than granted tells whether another batch follows, so a reservation is never
      // made (nor a quota line written) when nothing is left.
      // The lines come as PostgreSQL built them (store/job-lines.ts: the presenter's JSON, byte for
      // byte) and leave in chunks of about CHUNK_BYTES: per row, Node.js only decodes one string. A
      // chunk's lines count as written once the stream asks for more, so a client that leaves is
      // charged at most one chunk less than it was handed, never more.
      const rows = await (ahead && ahead.limit > granted ? ahead.rows : read(after, granted + 1));
      ahead = undefined;
      o.onBatch?.(Math.min(rows.length, granted));
      const more = rows.length > granted;
      const batch = more ? rows.slice(0, granted) : rows;
      if (more) ahead = { rows: read(batch[batch.length - 1]!.id, batchSize + 1), limit: batchSize + 1 };
      writtenInBatch = 0;
      let chunk = '';
      let inChunk = 0;
      for (let i = 0; i < batch.length; i++) {
        chunk += `${batch[i]!.line}\n`;
        inChunk++;
        if (chunk.length < CHUNK_BYTES && i < batch.length - 1) continue;
        started = true;
        yield chunk;
        writtenInBatch += inChunk;
        count += inChunk;
        after = batch[i]!.id;
        chunk = '';
        inChunk = 0;
      }
      reserved = false;
      await o.meter.settle(writtenInBatch);
      writtenInBatch = 0;
      if (!more) {
        const end: ExportComplete = { complete: true, count, after, since: since! };
        started = true;
        yield line(end);
        return;
      }
    }
  } catch (error) {
    if (reserved) await o.meter.settle(writtenInBatch).catch(() => undefined);
    reserved = false;
    if (!started) throw error;
    o.onError?.(error);
    const apiError = toApiError(error);
    const end: ExportErrorLine = { ...errorFields(o.docsUrl, apiError.code, apiError.message), count, after, since: since! };
    yield line(end);
  } finally {
    // The client went away mid-batch: charge the lines handed to the socket, release the rest.
    if (reserved) await o.meter.settle(writtenInBatch).catch(() => undefined);
  }
}

/**
 * The export body as a byte stream (UTF-8 NDJSON), opened only once its first line is in hand: the
 * first batch is read (its query planned and run against the input) before the caller sends a status,
 * so an input the database cannot serve is a plain error answer, never a 200 that ends in an error
 * line (issue 13, defect 5; the spec allows only the quota line in-stream).
 * @throws whatever reading the first batch threw (the caller's error handler maps it to the catalogue).
 */
export async function openExportStream(options: ExportStreamOptions): Promise<Readable> {
  const lines = exportLines(options);
  const first = await lines.next();
  async function* body(): AsyncGenerator<string> {
    try {
      if (!first.done) yield first.value;
      yield* lines;
    } finally {
      // Ends the inner generator (settling its reservation) when the client left before the delegation began.
      await lines.return(undefined);
    }
  }
  return Readable.from(body(), { objectMode: false, highWaterMark: 64 * 1024 });
}
