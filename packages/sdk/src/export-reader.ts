/**
 * The bulk export reader (spec: GET /v1/export; Errors, "Export exception"): Job rows streamed as
 * NDJSON in `id` order, resumed with `after` when the connection is cut or the server stops early for
 * a retryable reason, and stopped on the quota line.
 *
 * Line shapes (jobledger's docs/api.md, src/domain/export.ts): one Job per line (always has `id`), then
 * exactly one control line: `{complete: true, count, after}` or `{error, message, docs, count, after}`.
 * A body without a control line was cut in transit: resume after the last Job's `id`.
 */
import { JobledgerError } from './errors.ts';
import { sleep, type FetchLike } from './retry.ts';
import type { ExportQuery, Job } from './types.ts';

/** Options of {@link readExport}. */
export interface ExportOptions {
  /** Shared filters and `status` of the export. */
  query?: ExportQuery;
  /** Resume after this id (exclusive): the `after` of an earlier {@link ExportResult}. */
  after?: string;
  /**
   * Requests to resume a cut or stopped stream (`timeout`, `unavailable`) before giving up, in all
   * (default 4). A fresh response resets nothing: the cap is per export.
   */
  maxResumes?: number;
  /** Wait before a resume, in milliseconds (default 1 000, plus up to 1 000 of jitter). */
  resumeDelayMs?: number;
  signal?: AbortSignal;
}

/** How an export ended. */
export interface ExportResult {
  /** `complete`: every matching row was read. `record_quota_exhausted`: the monthly records ran out; resume with `after` when they are back. */
  status: 'complete' | 'record_quota_exhausted';
  /** Resume cursor: the id of the last row read (or the `after` given), null when neither. */
  after: string | null;
  /** Rows read by this reader, over every resume. */
  count: number;
  /** Requests made (1 plus the resumes). */
  requests: number;
  /** The server's message on the quota line. */
  message?: string;
}

/** Async-iterable Job rows; `result` is set once the iteration has ended normally. */
export interface ExportReader extends AsyncIterable<Job> {
  readonly result: ExportResult | undefined;
}

/** How the client hands its connection settings to the reader. */
export interface ExportConnection {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: FetchLike;
  querySerializer: { style: 'form'; explode: false };
}

/** The export's resumable failures (spec: 503 `timeout` is retryable; `unavailable` is a lost database, also 503). */
const RESUMABLE_ERRORS = new Set(['timeout', 'unavailable']);

type ControlLine = { complete: true; count: number; after: string | null } | { error: string; message: string; docs: string; count: number; after: string | null };

function exportUrl(c: ExportConnection, query: ExportQuery, after: string | null): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  if (after) params.set('after', after);
  const qs = params.toString();
  return `${c.baseUrl}/v1/export${qs ? `?${qs}` : ''}`;
}

/**
 * The lines of an NDJSON body; `cut` is true when the connection broke before the body ended.
 * Releases the body when the consumer stops early.
 */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string, { cut: boolean }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let done = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        return { cut: true };
      }
      if (chunk.done) break;
      buffered += decoder.decode(chunk.value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) yield line;
      }
    }
    done = true;
    const rest = (buffered + decoder.decode()).trim();
    if (rest) yield rest;
    return { cut: false };
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/**
 * Read `/v1/export` from `options.after` on. Yields each Job once, in id order. When the stream is cut
 * or ends on a `timeout`/`unavailable` line it requests again with `after` = the last id read, at most
 * `maxResumes` times. It stops on the `record_quota_exhausted` line: `result.status` says so and
 * `result.after` is where to resume.
 * @throws JobledgerError for an error answer before the stream began (401, 402, 403 `bulk_export`,
 *   422; 429/503 after the retry rules), or a `query_failed` line (500: never retried).
 * @throws Error when the resumes are used up.
 */
export function readExport(connection: ExportConnection, options: ExportOptions): ExportReader {
  let result: ExportResult | undefined;
  const maxResumes = options.maxResumes ?? 4;
  async function* rows(): AsyncGenerator<Job> {
    let after = options.after ?? null;
    let count = 0;
    let requests = 0;
    for (;;) {
      requests++;
      const response = await connection.fetch(
        new Request(exportUrl(connection, options.query ?? {}, after), { headers: { ...connection.headers, accept: 'application/x-ndjson' }, signal: options.signal }),
      );
      if (!response.ok || !response.body) {
        const body = await response.json().catch(() => undefined);
        throw new JobledgerError(response.status, body, response.headers);
      }
      let control: ControlLine | undefined;
      const lines = ndjsonLines(response.body);
      let next = await lines.next();
      try {
        for (; !next.done; next = await lines.next()) {
          const line = JSON.parse(next.value) as Job | ControlLine;
          if ('id' in line && typeof line.id === 'string') {
            after = line.id;
            count++;
            yield line;
          } else {
            control = line as ControlLine;
            break;
          }
        }
      } finally {
        if (!next.done) await lines.return({ cut: false });
      }
      if (control && 'complete' in control) {
        result = { status: 'complete', after: control.after ?? after, count, requests };
        return;
      }
      if (control && control.error === 'record_quota_exhausted') {
        result = { status: 'record_quota_exhausted', after: control.after ?? after, count, requests, message: control.message };
        return;
      }
      if (control && !RESUMABLE_ERRORS.has(control.error)) throw new JobledgerError(500, control, new Headers());
      if (control?.after) after = control.after;
      if (requests > maxResumes) {
        throw new Error(`jobledger export: ${control ? `stopped with ${control.error}` : 'the connection was cut'} after ${count} rows and ${requests} requests; resume later with after=${after ?? ''}`);
      }
      const delay = options.resumeDelayMs ?? 1_000;
      await sleep(delay + Math.random() * delay, options.signal);
    }
  }
  return {
    get result() {
      return result;
    },
    [Symbol.asyncIterator]: rows,
  };
}
