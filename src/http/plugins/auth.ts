/**
 * Authentication of the keyed surface (spec: Authentication). The key comes only from the
 * `Authorization` header (`Bearer <key>` in any case, or the bare key); a `key` query parameter or an
 * `X-Api-Key` header are never read. Missing, malformed, unknown, revoked and expired keys all get
 * the identical 401 body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { keyFromAuthorization } from '../../access/api-keys.ts';
import { ApiError, FIXED_MESSAGES } from '../../domain/errors.ts';
import { authenticateKey, type AuthenticatedKey } from '../../store/api-keys.ts';
import type { AppContext } from '../context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key on /v1 routes; null elsewhere. */
    apiKey: AuthenticatedKey | null;
  }
}

/** The one 401 every bad credential gets. */
export function unauthorized(): ApiError {
  return new ApiError('unauthorized', FIXED_MESSAGES.unauthorized, { headers: { 'WWW-Authenticate': 'Bearer' } });
}

/** onRequest hook: authenticate or throw the identical 401. */
export function requireApiKey(ctx: AppContext) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const presented = keyFromAuthorization(request.headers.authorization);
    const authenticated = presented ? await authenticateKey(ctx.db, presented) : undefined;
    if (!authenticated) throw unauthorized();
    request.apiKey = authenticated;
  };
}
