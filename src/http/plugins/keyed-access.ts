/**
 * The keyed surface's budgets and their headers (spec: Limits › Metering rules; Authentication items
 * 9 and 10). Installed once on the `/v1` scope right after authentication, so every endpoint in that
 * scope, whoever adds it, is limited and reports its budgets without per-route work:
 *
 * - onRequest: charge the request against the key's per-minute and per-day limits (429 `rate_limited`
 *   with `Retry-After` when over) and install the key's record meter as `request.recordMeter`.
 * - onSend: give back records reserved but not served when the response is an error, refund the
 *   request when the record budget refused it (a request refused by one budget charges none), and set
 *   the rate-limit headers on every response — errors included — plus `X-SVC-Country-Lock` for a
 *   country-locked key.
 * - onResponse / onRequestAbort: release anything still reserved (a stream cut short).
 *
 * Header semantics (docs/metering.md): `X-RateLimit-Limit`, `-Remaining` and `-Reset` describe the
 * request window with the fewest requests left (the minute, or the day once fewer remain today than
 * this minute); `-Reset` is in seconds. `X-RateLimit-Records-*` describe the month's record allowance,
 * `unlimited` for a country-locked key.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../access/periods.ts';
import { RecordAllowance } from '../../access/record-allowance.ts';
import type { RecordBlocks } from '../../access/record-blocks.ts';
import type { RequestCharge, RequestLimiter, WindowState } from '../../access/request-limits.ts';
import { ApiError } from '../../domain/errors.ts';
import { isConnectionFailure } from '../../store/database.ts';
import { errorBody, toApiError } from '../errors.ts';
import { setRateLimitFields } from '../rate-limit-fields.ts';

/** The budgets of one keyed request. */
export interface KeyedAccess {
  charge: RequestCharge;
  records: RecordAllowance;
  /** ISO-3166 alpha-2 of a country-locked key, else null. */
  countryLock: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Budgets of the authenticated key on /v1 routes; null elsewhere and before authentication. */
    keyedAccess: KeyedAccess | null;
  }
}

export interface KeyedAccessOptions {
  requests: RequestLimiter;
  /** This process's blocks of records (access/record-blocks.ts): the record meter's hot path. */
  recordBlocks: RecordBlocks;
  clock: Clock;
  /** Base of the `docs` link of the 503 a response turns into when its budgets cannot be read. */
  docsUrl: string;
}

/** The window the generic headers describe: the one with the fewest requests left (ties: the minute). */
export function bindingWindow(charge: RequestCharge): WindowState {
  return charge.day.remaining < charge.minute.remaining ? charge.day : charge.minute;
}

function rateLimited(charge: RequestCharge): ApiError {
  const dayBreached = charge.day.used >= charge.day.limit;
  const message = dayBreached
    ? `This key has made its ${charge.day.limit} requests for today; the count resets at 00:00 UTC, in ${charge.retryAfterSeconds} seconds.`
    : `This key has made its ${charge.minute.limit} requests for this minute; retry after ${charge.retryAfterSeconds} seconds.`;
  return new ApiError('rate_limited', message, { headers: { 'Retry-After': String(charge.retryAfterSeconds) } });
}

function setBudgetHeaders(reply: FastifyReply, access: KeyedAccess, withRecords = true): void {
  const window = bindingWindow(access.charge);
  reply.header('X-RateLimit-Limit', String(window.limit));
  reply.header('X-RateLimit-Remaining', String(window.remaining));
  reply.header('X-RateLimit-Reset', String(window.resetSeconds));
  setRateLimitFields(reply, access.charge); // the IETF RateLimit fields, both windows (issue 19)
  if (!withRecords) return;
  const records = access.records.state();
  reply.header('X-RateLimit-Records-Limit', records.limit === null ? 'unlimited' : String(records.limit));
  reply.header('X-RateLimit-Records-Used', String(records.used));
  reply.header('X-RateLimit-Records-Remaining', records.remaining === null ? 'unlimited' : String(records.remaining));
  if (access.countryLock) reply.header('X-SVC-Country-Lock', access.countryLock);
}

async function releaseUnsettled(request: FastifyRequest): Promise<void> {
  const access = request.keyedAccess;
  if (access?.records.unsettled) {
    await access.records.release().catch((error: unknown) => request.log.error({ err: error }, 'could not release reserved records'));
  }
}

/** Add the budget hooks to `scope` (the /v1 scope, after the authentication hook). */
export function installKeyedAccess(scope: FastifyInstance, options: KeyedAccessOptions): void {
  scope.decorateRequest('keyedAccess', null);

  scope.addHook('onRequest', async (request) => {
    const authenticated = request.apiKey;
    if (!authenticated) return;
    const { key, plan } = authenticated;
    const records = new RecordAllowance(options.recordBlocks, key.id, key.country_lock ? null : Number(plan.records_per_month), options.clock());
    // The record meter is read lazily (onSend): a request that reserves learns the usage from its
    // reservation, so only requests that reserve nothing read it.
    const charge = await options.requests.charge(key.id, plan);
    request.keyedAccess = { charge, records, countryLock: key.country_lock };
    if (!charge.allowed) throw rateLimited(charge);
    // A HEAD request runs the GET handler but receives no rows: it costs a request, no records.
    if (request.method !== 'HEAD') request.recordMeter = records;
  });

  scope.addHook('onSend', async (request, reply, payload) => {
    const access = request.keyedAccess;
    if (!access) return payload;
    if (reply.statusCode >= 400) await releaseUnsettled(request);
    try {
      if (reply.statusCode === 402 && access.records.exhausted) access.charge = await options.requests.refund(access.charge);
      await access.records.ensureLoaded();
    } catch (error) {
      // The ledger (or the counters) failed after the handler answered, typically a session lost to
      // a database restart. A hook error here would bypass the error handler, so the answer is made
      // here: an error response keeps its body without the record headers; a success, which must
      // state the record budget (spec: Limits), becomes the 503 any database failure is.
      if (!isConnectionFailure(error)) request.log.error({ err: error }, 'could not read the record budget');
      setBudgetHeaders(reply, access, false);
      if (reply.statusCode >= 400) return payload;
      const unavailable = toApiError(error);
      reply.code(unavailable.status).type('application/json; charset=utf-8');
      for (const [name, value] of Object.entries(unavailable.headers)) reply.header(name, value);
      return JSON.stringify(errorBody(options.docsUrl, unavailable.code, unavailable.message, unavailable.extra));
    }
    setBudgetHeaders(reply, access);
    return payload;
  });

  scope.addHook('onResponse', releaseUnsettled);
  scope.addHook('onRequestAbort', releaseUnsettled);
}
