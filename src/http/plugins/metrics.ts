/**
 * Request observability: the `X-Request-Id` a request carries (or one made here) is its log id and is
 * returned on the response; the key prefix (never the secret) is bound to the request's log lines once
 * the key is known; every answer is counted and timed for `/metrics` (main/metrics.ts) by route
 * pattern, status and plan.
 *
 * Installed on the root instance by one call in app.ts, before any route; it restructures no other hook.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { httpDuration, httpRequests, limitRefusals } from '../../observability/metrics.ts';

/** A client's request id is kept when it is 1 to 128 visible ASCII characters; else one is made. */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Fastify's `genReqId`: the request's `X-Request-Id` when it is well formed (so a proxy's or client's
 * id follows the request through our logs), otherwise a random UUID.
 */
export function requestId(req: IncomingMessage): string {
  const presented = req.headers['x-request-id'];
  return typeof presented === 'string' && CLIENT_REQUEST_ID.test(presented) ? presented : randomUUID();
}

/** Add the request-id, key-prefix and metrics hooks to `app` (the root instance). */
export function installRequestObservability(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    const key = request.apiKey?.key;
    // The prefix identifies the key in logs and support requests; the secret never reaches a log.
    if (key) (request.log as FastifyBaseLogger & { setBindings?: (b: object) => void }).setBindings?.({ keyPrefix: key.key_prefix });
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const plan = request.apiKey?.plan.id ?? 'keyless';
    const status = reply.statusCode;
    httpRequests.inc({ route, method: request.method, status: String(status), plan });
    httpDuration.observe({ route, method: request.method, plan }, reply.elapsedTime / 1000);
    if (status === 429 || status === 402) limitRefusals.inc({ status: String(status), plan });
  });
}
