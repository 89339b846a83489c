/**
 * Rendering of every error the API answers with (spec: Errors): the body is always
 * `{error, message, docs}` plus the code's own fields. The database's own text, stack traces and
 * framework messages never reach a client; they are logged server-side instead.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, FIXED_MESSAGES, type ErrorBody, type ErrorCode } from '../domain/errors.ts';

/** PostgreSQL SQLSTATE for a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';
/** SQLSTATE classes meaning the server is unreachable or shutting down. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
/** Seconds a client should wait after a timeout (spec: 503 timeout, Retry-After: 5). */
export const TIMEOUT_RETRY_AFTER_SECONDS = 5;

export function errorBody(docsUrl: string, code: ErrorCode, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { error: code, message, docs: `${docsUrl}#${code}`, ...extra };
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
    return new ApiError('timeout', FIXED_MESSAGES.timeout, {
      headers: { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) },
      extra: { retry_after: TIMEOUT_RETRY_AFTER_SECONDS },
    });
  }
  if (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || code === 'ECONNREFUSED' || code === 'ECONNRESET')) {
    return new ApiError('unavailable', FIXED_MESSAGES.unavailable, { headers: { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) } });
  }
  const fastify = error as FastifyError;
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    if (fastify.statusCode === 404) return new ApiError('not_found', 'No such resource.');
    if (fastify.statusCode === 405) return new ApiError('method_not_allowed', 'This endpoint answers GET only.');
    return new ApiError('bad_request', 'The request could not be parsed.');
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
