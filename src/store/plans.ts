/**
 * The plans repository (table `plans`, migration 002): prices, allowances and entitlements are data,
 * so an operator changes a plan with an UPDATE, not a release.
 */
import type { Kysely } from 'kysely';
import type { DB, PlanRow } from './schema.ts';

/** Active, purchasable plans in price-list order (spec: GET /public/plans, "only active plans"). */
export async function listPurchasablePlans(db: Kysely<DB>): Promise<PlanRow[]> {
  return db.selectFrom('plans').selectAll().where('active', '=', true).where('purchasable', '=', true).orderBy('sort_order').orderBy('id').execute();
}

/** The plan `id`, or undefined when no plan has that id. */
export async function findPlan(db: Kysely<DB>, id: string): Promise<PlanRow | undefined> {
  return db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The free plan a key falls back to when its paid plan lapses: the first active plan priced 0 in
 * price-list order (`explore` with the spec's plans), or undefined when there is none.
 */
export async function findFreePlan(db: Kysely<DB>): Promise<PlanRow | undefined> {
  return db.selectFrom('plans').selectAll().where('active', '=', true).where('price_cents', '=', 0).orderBy('sort_order').orderBy('id').limit(1).executeTakeFirst();
}
