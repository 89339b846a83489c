/**
 * Rendering of every error the API answers with (spec: Errors): the body is always
 * `{error, message, docs}` plus the code's own fields. The database's own text, stack traces and
 * framework messages never reach a client; they are logged server-side instead.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { ApiError, ERROR_STATUS, FIXED_MESSAGES, type ErrorBody, type ErrorCode } from '../domain/errors.ts';
import { statementTimeouts } from '../observability/metrics.ts';
import { isConnectionFailure } from '../store/database.ts';

/** PostgreSQL SQLSTATE for a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';
/** Seconds a client should wait after a timeout (spec: 503 timeout, Retry-After: 5). */
export const TIMEOUT_RETRY_AFTER_SECONDS = 5;

/**
 * The error body: the spec's `{error, message, docs}` with RFC 9457 (Problem Details) members beside
 * them (issue 19): `type` (a URI naming the problem: the code's documentation, the same as `docs`),
 * `title` (the status's reason phrase, fixed per status) and `status` (the HTTP status as a number).
 * `detail` is not added: `message` carries it. The content type stays `application/json`, which the
 * spec's clients parse; a Problem Details client reads the members all the same.
 */
/**
 * The spec's error fields alone, for the export's final NDJSON line, which is no HTTP error (its
 * response is a 200, so an RFC 9457 `status` there would contradict it).
 */
export function errorFields(docsUrl: string, code: ErrorCode, message: string): { error: ErrorCode; message: string; docs: string } {
  return { error: code, message, docs: `${docsUrl}#${code}` };
}

export function errorBody(docsUrl: string, code: ErrorCode, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  const status = ERROR_STATUS[code];
  const docs = `${docsUrl}#${code}`;
  return { error: code, message, docs, type: docs, title: STATUS_CODES[status] ?? 'Error', status, ...extra };
}

/** Send an {@link ApiError}. */
export function sendApiError(reply: FastifyReply, docsUrl: string, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(docsUrl, error.code, error.message, error.extra));
}

/** Map anything thrown by a handler to the error catalogue. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === QUERY_CANCELED) {
    statementTimeouts.inc();
    return new ApiError('timeout', FIXED_MESSAGES.timeout, {
      headers: { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) },
      extra: { retry_after: TIMEOUT_RETRY_AFTER_SECONDS },
    });
  }
  if (isConnectionFailure(error)) {
    return new ApiError('unavailable', FIXED_MESSAGES.unavailable, { headers: { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) } });
  }
  const fastify = error as FastifyError;
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    if (fastify.statusCode === 404) return new ApiError('not_found', 'No such resource.');
    if (fastify.statusCode === 405) return new ApiError('method_not_allowed', 'This endpoint answers GET only.');
    return new ApiError('bad_request', FIXED_MESSAGES.bad_request);
  }
  return new ApiError('query_failed', FIXED_MESSAGES.query_failed);
}

/** The framework-level error handler: logs server faults, answers with the catalogue. */
export function errorHandler(docsUrl: string) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendApiError(reply, docsUrl, apiError);
  };
}

/** Largest request line plus headers Node.js reads (its `maxHeaderSize` default, set explicitly in app.ts), bytes. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Longest path parameter the router matches (Fastify `maxParamLength`); ids and slugs are far shorter. */
export const MAX_PARAM_LENGTH = 100;

/**
 * What the parser (llhttp) refused, for the message of a 400: the error codes Node.js reports on
 * `clientError` (llhttp's `HPE_*` names). Anything else reads as the fixed `bad_request` message.
 */
const PARSE_FAILURES: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: 'The request method is not an HTTP method token.',
  HPE_INVALID_URL: 'The request target is not a valid path.',
  HPE_INVALID_VERSION: 'The request line does not end in HTTP/1.0 or HTTP/1.1.',
  HPE_INVALID_CONSTANT: 'The request is not HTTP/1.x.',
  HPE_INVALID_HEADER_TOKEN: 'A header name or value holds characters HTTP does not allow.',
  HPE_LF_EXPECTED: 'A request line or header does not end in CRLF.',
  HPE_CR_EXPECTED: 'A request line or header does not end in CRLF.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'The request carries both Content-Length and Transfer-Encoding, or two Content-Lengths.',
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not a number.',
  HPE_INVALID_TRANSFER_ENCODING: 'The Transfer-Encoding header is not one HTTP allows here.',
  HPE_INVALID_CHUNK_SIZE: 'A chunk of the chunked request body has no valid size.',
  HPE_PAUSED_H2_UPGRADE: 'HTTP/2 is not served on this port; send HTTP/1.1.',
};

/**
 * Answer for a request Node.js's HTTP parser refused before Fastify saw it (the server's `clientError`:
 * a malformed request line or header, headers over {@link MAX_HEADER_BYTES}, a request that did not
 * arrive in time): the catalogue's JSON body written straight to the socket, which is then closed,
 * as Node.js itself does. Nothing of the input is echoed. A socket that is gone, or whose response
 * has begun, is only destroyed.
 */
export function clientErrorHandler(docsUrl: string) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy(error);
      return;
    }
    const code: 'request_timeout' | 'request_headers_too_large' | 'bad_request' =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? 'request_headers_too_large' : 'bad_request';
    const status = ERROR_STATUS[code];
    const message = (code === 'bad_request' && error.code !== undefined ? PARSE_FAILURES[error.code] : undefined) ?? FIXED_MESSAGES[code];
    const body = JSON.stringify(errorBody(docsUrl, code, message));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

/**
 * Fastify's `frameworkErrors`: errors the router raises before any route or hook runs. A path that is
 * not valid percent-encoding is a 400 `bad_request`; a path parameter over {@link MAX_PARAM_LENGTH}
 * characters names no row (ids are uuids, slugs at most 89 characters), so it is the 404 every unknown
 * id gets. Neither message echoes the path.
 */
export function frameworkErrorHandler(docsUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.code === 'FST_ERR_BAD_URL') {
      return sendApiError(reply, docsUrl, new ApiError('bad_request', 'The request path is not valid percent-encoding (RFC 3986): every % must start a %XX escape of UTF-8.'));
    }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return sendApiError(reply, docsUrl, new ApiError('not_found', `No row has an id or slug longer than ${MAX_PARAM_LENGTH} characters.`));
    }
    return errorHandler(docsUrl)(error, request, reply);
  };
}
