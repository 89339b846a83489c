/**
 * GET /public/plans: the purchasable price list (spec: Keyless endpoints, "Purchasable price list;
 * only active plans"; entries carry `plan`, `price_cents` and `records_per_month`, the other field
 * names are ours and documented in the contract).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { listPurchasablePlans } from '../../store/plans.ts';
import type { AppContext } from '../context.ts';
import { servePlainRoute } from '../route.ts';

export const PlanSchema = Type.Object({
  plan: Type.String({ description: 'Plan id, as keys and /v1/me name it: explore, growth, signal, scale.' }),
  label: Type.String({ description: 'Display name.' }),
  price_cents: Type.Integer({ minimum: 0, description: 'Price per month in cents of `currency`; 0 is free.' }),
  currency: Type.String({ description: 'ISO-4217 code of the price.' }),
  records_per_month: Type.Integer({ description: 'Record allowance per key and calendar month (UTC); resets on the 1st.' }),
  requests_per_day: Type.Integer({ description: 'Requests per key and UTC day; resets at 00:00 UTC.' }),
  requests_per_minute: Type.Integer({ description: 'Requests per key and minute.' }),
  max_page_size: Type.Integer({ description: 'Largest `limit` served; larger values are clamped.' }),
  entitlements: Type.Array(Type.String(), { description: 'Endpoints beyond listings this plan includes: delta_feed, bulk_export.' }),
});

const PlansResponse = Type.Object({ data: Type.Array(PlanSchema) });

export function planRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    servePlainRoute(
      app,
      {
        url: '/plans',
        operationId: 'listPlans',
        tags: ['public'],
        summary: 'Purchasable plans with their prices, allowances and entitlements',
        description: 'Every plan on sale: price per month, records per month, requests per day and minute, largest page and the entitlements (delta_feed, bulk_export) it includes. Plans are data: this is the live list.',
        surface: 'keyless',
        body: PlansResponse,
      },
      async (): Promise<Static<typeof PlansResponse>> => {
        const plans = await listPurchasablePlans(ctx.db);
        return {
          data: plans.map((p) => ({
            plan: p.id,
            label: p.label,
            price_cents: p.price_cents,
            currency: p.currency,
            records_per_month: Number(p.records_per_month),
            requests_per_day: p.requests_per_day,
            requests_per_minute: p.requests_per_minute,
            max_page_size: p.max_page_size,
            entitlements: p.entitlements,
          })),
        };
      },
    );
  };
}
