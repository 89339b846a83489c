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
