/**
 * GET /v1/me: the calling key, its plan's limits and today's requests (spec: GET /v1/me). Costs no
 * records; it is a request like any other for the per-minute and per-day limits.
 *
 * Decisions (docs/metering.md): `created` is the key's creation date (UTC); `renews_or_expires` is the
 * key's expiry instant when it has one, else the end of the period its subscription paid for (or the
 * instant a cancelled subscription's plan lapses), else for a paid plan without a subscription the 1st
 * of next month, 00:00 UTC, when the record allowance resets, else null (access/api-keys.ts
 * renewsOrExpires).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { renewsOrExpires } from '../../access/api-keys.ts';
import { keyEntitlements } from '../../access/entitlements.ts';
import { utcDay, type Clock } from '../../access/periods.ts';
import { servePlainRoute } from '../route.ts';

const MeResponse = Type.Object({
  created: Type.String({ format: 'date', description: 'Day the key was created (UTC).' }),
  key_prefix: Type.String({ description: 'Short non-secret label of the key; stays the same across rotation.' }),
  name: Type.Optional(Type.String({ description: "The key's label, when it has one." })),
  plan: Type.String({ description: 'Plan id; see /public/plans.' }),
  status: Type.Literal('active', { description: 'Only active keys are answered; revoked and expired keys get 401.' }),
  limits: Type.Object({
    per_day: Type.Integer({ description: 'Requests per UTC day.' }),
    per_minute: Type.Integer({ description: 'Requests per minute.' }),
    max_page_size: Type.Integer({ description: 'Largest `limit` served.' }),
    records_per_month: Type.Union([Type.Integer(), Type.Null()], { description: 'Record allowance per calendar month; null = unlimited (a country-locked key).' }),
  }),
  entitlements: Type.Array(Type.String(), { description: 'delta_feed, bulk_export, single_country as held by this key.' }),
  country_lock: Type.Optional(Type.String({ description: 'The only country a country-locked key sees.' })),
  renews_or_expires: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: "The key's expiry when it has one, else the next renewal of a paid plan (or the instant a cancelled plan lapses), else null.",
  }),
  usage_today: Type.Integer({ description: 'Requests made with this key today (UTC), this one included; resets at 00:00 UTC.' }),
});

export function meRoutes(clock: Clock) {
  return async (app: FastifyInstance) => {
    servePlainRoute(
      app,
      {
        url: '/me',
        operationId: 'getMe',
        tags: ['account'],
        summary: 'The calling key: plan, limits and requests today; costs no records',
        description: "The calling key's plan, its request and record limits with what is used of them, its entitlements and when it renews or expires. Costs a request, no records.",
        surface: 'keyed',
        body: MeResponse,
      },
      async (request): Promise<Static<typeof MeResponse>> => {
        const { key, plan } = request.apiKey!;
        const access = request.keyedAccess!;
        const renews = renewsOrExpires(request.apiKey!, clock());
        return {
          created: utcDay(key.created_at),
          key_prefix: key.key_prefix,
          ...(key.name ? { name: key.name } : {}),
          plan: plan.id,
          status: 'active',
          limits: {
            per_day: plan.requests_per_day,
            per_minute: plan.requests_per_minute,
            max_page_size: plan.max_page_size,
            records_per_month: key.country_lock ? null : Number(plan.records_per_month),
          },
          entitlements: keyEntitlements(request.apiKey!),
          ...(key.country_lock ? { country_lock: key.country_lock } : {}),
          renews_or_expires: renews ? renews.toISOString() : null,
          usage_today: access.charge.day.used,
        };
      },
    );
  };
}
