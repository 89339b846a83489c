/**
 * Authentication of the keyed surface (spec: Authentication). The key comes only from the
 * `Authorization` header (`Bearer <key>` in any case, or the bare key); a `key` query parameter or an
 * `X-Api-Key` header are never read. Missing, malformed, unknown, revoked and expired keys all get
 * the identical 401 body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateKey, KEY_USE_RESOLUTION_SECONDS, keyFromAuthorization, recordKeyUse, type AuthenticatedKey } from '../../access/api-keys.ts';
import { ApiError, FIXED_MESSAGES } from '../../domain/errors.ts';
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

/**
 * onRequest hook: authenticate or throw the identical 401. A key's `last_used_at` is stamped at most
 * once a minute per key and process (the stamp is remembered here, so a busy key costs no extra
 * statement per request); the stamp is written off the request path and a failure to write it is
 * logged, never answered.
 */
export function requireApiKey(ctx: AppContext) {
  const stampedAt = new Map<string, number>();
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const presented = keyFromAuthorization(request.headers.authorization);
    const authenticated = presented ? await authenticateKey(ctx.db, presented, new Date(), ctx.keyCache) : undefined;
    if (!authenticated) throw unauthorized();
    request.apiKey = authenticated;
    const now = Date.now();
    const keyId = authenticated.key.id;
    if (now - (stampedAt.get(keyId) ?? 0) >= KEY_USE_RESOLUTION_SECONDS * 1000) {
      stampedAt.set(keyId, now);
      recordKeyUse(ctx.db, keyId, new Date(now)).catch((error: unknown) => request.log.warn({ err: error, keyId }, 'could not record the key\'s last use'));
    }
  };
}
