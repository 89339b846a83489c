/**
 * The budget headers in the machine contract (spec: Limits › Metering rules item 3; Authentication
 * item 9). They are set by hooks, not by routes (`plugins/keyed-access.ts`, `plugins/keyless-access.ts`),
 * so they are added to the rendered OpenAPI document here, once, for every operation: the six
 * `X-RateLimit-*` headers and `X-SVC-Country-Lock` on every keyed response but the 401, `Retry-After`
 * on every 429; `X-Ignored-Params` and its did-you-mean on every data API response (issue 19,
 * `plugins/ignored-params.ts`); the keyless `RateLimit` and `RateLimit-Policy` (the per-address
 * window, `plugins/keyless-access.ts`) on every `/public` response but those of routes exempt from
 * the keyless limit.
 */

import { KEYLESS_RATE_LIMIT_FIELD_HEADERS, RATE_LIMIT_FIELD_HEADERS } from './rate-limit-fields.ts';

type Json = Record<string, unknown>;

const integer = { type: 'integer', minimum: 0 };
const countOrUnlimited = { oneOf: [integer, { type: 'string', const: 'unlimited' }] };

/** `components.headers` entries, by header name. */
export const BUDGET_HEADERS: Readonly<Record<string, Json>> = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the window that is closest to running out: this minute, or today (UTC) once fewer remain today.', schema: integer },
  'X-RateLimit-Remaining': { description: 'Requests left in that window.', schema: integer },
  'X-RateLimit-Reset': { description: 'Seconds until that window resets.', schema: integer },
  'X-RateLimit-Records-Limit': { description: 'Records per calendar month (UTC) of this key; `unlimited` for a country-locked key.', schema: countOrUnlimited },
  'X-RateLimit-Records-Used': { description: 'Records used this month, including those of requests still in flight.', schema: integer },
  'X-RateLimit-Records-Remaining': { description: 'Records left this month; `unlimited` for a country-locked key. 0 announces the next metered request will be a 402.', schema: countOrUnlimited },
  'X-SVC-Country-Lock': { description: 'Only on a country-locked key: the one country it sees.', schema: { type: 'string', pattern: '^[A-Z]{2}$' } },
  ...RATE_LIMIT_FIELD_HEADERS,
};

/** Set by `plugins/ignored-params.ts` on any data API response whose query held undeclared names. */
const IGNORED_HEADERS: Readonly<Record<string, Json>> = {
  'X-Ignored-Params': { description: 'Query parameter names this operation does not declare and ignored, comma-separated, in the order sent (percent-encoded when not plain ASCII). Never an error.', schema: { type: 'string' }, example: 'contry' },
  'X-Ignored-Params-Did-You-Mean': { description: 'For an ignored name that nearly spells a declared one: `sent=declared`, comma-separated.', schema: { type: 'string' }, example: 'contry=country' },
};

const RETRY_AFTER: Json = { description: 'Seconds to wait before retrying; on a daily breach, the seconds until 00:00 UTC.', schema: integer };

function ref(name: string): Json {
  return { $ref: `#/components/headers/${name}` };
}

/**
 * Add the budget headers to an OpenAPI document (a `transformObject` of @fastify/swagger).
 * @param keylessLimitExempt "METHOD /path" (OpenAPI path template) of the /public operations the
 *   keyless limit skips (`config: { keylessLimit: false }`): they get no keyless RateLimit fields.
 */
export function documentBudgetHeaders<T>(document: T, keylessLimitExempt: ReadonlySet<string> = new Set()): T {
  const doc = document as Json;
  const components = ((doc.components ??= {}) as Json);
  const keylessComponents = Object.fromEntries(Object.entries(KEYLESS_RATE_LIMIT_FIELD_HEADERS).map(([name, h]) => [name, h.object]));
  components.headers = { ...(components.headers as Json | undefined), ...BUDGET_HEADERS, ...keylessComponents, ...IGNORED_HEADERS, 'Retry-After': RETRY_AFTER };
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item) as Array<[string, Json]>) {
      const responses = operation?.responses as Record<string, Json> | undefined;
      const keylessLimited = path.startsWith('/public/') && !keylessLimitExempt.has(`${method.toUpperCase()} ${path}`);
      if (!responses) continue;
      for (const [status, response] of Object.entries(responses)) {
        const headers = ((response.headers ??= {}) as Json);
        if (status === '429') headers['Retry-After'] = ref('Retry-After');
        if (path.startsWith('/v1/') && Array.isArray(operation.security) && status !== '401') {
          for (const name of Object.keys(BUDGET_HEADERS)) headers[name] = ref(name);
        }
        if (keylessLimited) {
          for (const [name, h] of Object.entries(KEYLESS_RATE_LIMIT_FIELD_HEADERS)) headers[h.header] = ref(name);
        }
        if (path.startsWith('/v1/') || path.startsWith('/public/')) {
          for (const name of Object.keys(IGNORED_HEADERS)) headers[name] = ref(name);
        }
        if (Object.keys(headers).length === 0) delete response.headers;
      }
    }
  }
  return document;
}
