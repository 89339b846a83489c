/**
 * The error a helper of this package throws for an answer that is not a success: the spec's error
 * body (`{error, message, docs}`, spec: Errors) with the HTTP status and headers that came with it.
 */

/** The error body every jobledger error answer carries. */
export interface ErrorBody {
  /** Machine-readable code, e.g. `rate_limited`, `record_quota_exhausted`, `bad_cursor`. */
  error: string;
  message: string;
  /** Link to the code's documentation. */
  docs: string;
  [extra: string]: unknown;
}

/** An answer other than 2xx, after the retry rules gave up (or did not apply). */
export class JobledgerError extends Error {
  override readonly name = 'JobledgerError';
  /** HTTP status. */
  readonly status: number;
  /** The error code (`error` of the body), or `http_<status>` when the body was not the catalogue's. */
  readonly code: string;
  readonly body: ErrorBody | undefined;
  /** `Retry-After` in seconds when the answer had one (429, 503). */
  readonly retryAfterSeconds: number | undefined;
  /** The feature a 403 names (`X-SVC-Required-Feature`: delta_feed or bulk_export). */
  readonly requiredFeature: string | undefined;

  constructor(status: number, body: unknown, headers: Headers) {
    const parsed = isErrorBody(body) ? body : undefined;
    super(parsed ? `${status} ${parsed.error}: ${parsed.message}` : `HTTP ${status}`);
    this.status = status;
    this.body = parsed;
    this.code = parsed?.error ?? `http_${status}`;
    const retryAfter = headers.get('retry-after');
    this.retryAfterSeconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    this.requiredFeature = headers.get('x-svc-required-feature') ?? undefined;
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as ErrorBody).error === 'string' && typeof (value as ErrorBody).message === 'string';
}
