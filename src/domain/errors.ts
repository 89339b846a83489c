/**
 * The one error catalogue of the API (spec: Errors). Every error body is `{error, message, docs}`;
 * some add fields (`retry_after`, `after`). Routes throw {@link ApiError}; the HTTP layer renders it.
 */

/** HTTP status of every stable machine code. The 422 codes are the spec's "422 codes" table. */
export const ERROR_STATUS = {
  bad_request: 400,
  bad_signature: 400,
  unauthorized: 401,
  record_quota_exhausted: 402,
  key_required_to_page: 402,
  upgrade_required: 403,
  paid_feature: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  /** A change-feed `since` before the oldest kept change event (issue 20, retention). */
  since_expired: 410,
  key_not_purchasable: 409,
  request_headers_too_large: 431,
  bad_provider: 422,
  bad_source_type: 422,
  bad_category: 422,
  bad_seniority: 422,
  bad_remote: 422,
  bad_employment_type: 422,
  bad_state: 422,
  bad_status: 422,
  bad_closed_reason: 422,
  bad_poster_type: 422,
  bad_quality: 422,
  bad_salary: 422,
  bad_boolean: 422,
  bad_field: 422,
  field_never_published: 422,
  bad_cursor: 422,
  bad_timestamp: 422,
  bad_offset: 422,
  bad_query: 422,
  limit_too_large: 422,
  bad_plan: 422,
  rate_limited: 429,
  // The website's routes (docs/website.md).
  session_required: 401,
  csrf_failed: 403,
  verification_failed: 403,
  link_invalid: 400,
  bad_email: 422,
  bad_domain: 422,
  bad_input: 422,
  email_not_at_domain: 422,
  bad_apply_url: 422,
  submission_closed: 409,
  free_key_taken: 409,
  key_not_active: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  query_failed: 500,
  payments_not_configured: 501,
  timeout: 503,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Fixed client-facing messages for failures whose real cause must never leak (spec: Errors). */
export const FIXED_MESSAGES = {
  unauthorized: 'A valid API key is required: send it as "Authorization: Bearer <API_KEY>".',
  query_failed: 'The query could not be completed.',
  timeout: 'The query exceeded its time limit; retry after the number of seconds in Retry-After.',
  unavailable: 'A dependency is briefly unreachable; retry after the number of seconds in Retry-After.',
  bad_request: 'The request could not be parsed.',
  request_timeout: 'The request did not arrive completely in time.',
  request_headers_too_large: 'The request line and headers together exceed 16 KiB; shorten the URL or the headers.',
} as const;

/**
 * An error the API answers with. `extra` adds top-level body fields (for example `retry_after`),
 * `headers` adds response headers (for example `Retry-After`, `X-SVC-Required-Feature`).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly extra: Readonly<Record<string, unknown>>;
  /**
   * The request field the error is about (a form's `name`, e.g. `apply_url`), so a page can mark that
   * field; not part of the JSON body, whose message already names it.
   */
  readonly field: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { headers?: Record<string, string>; extra?: Record<string, unknown>; field?: string } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
    this.field = options.field;
  }
}

/** Longest offending value quoted back in an error message, characters. */
export const QUOTE_MAX = 80;

/**
 * A value as an error message quotes it: JSON-escaped and cut to {@link QUOTE_MAX} characters, so a
 * message names the offending value without echoing a long input (issue 13: no echo beyond the value).
 */
export function quoteValue(value: string): string {
  const cut = value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX)}…` : value;
  return JSON.stringify(cut);
}

/** Body shape of every error response. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  docs: string;
  [extra: string]: unknown;
}
