/**
 * What a plan entitles a key to (spec: Authentication items 7 and 8). Plans are data (`plans` table):
 * `entitlements` lists identifiers such as `delta_feed` and `bulk_export`; a plan is paid when its
 * price is above zero.
 */

/** Entitlement identifiers named by the spec's plan table. */
export type Entitlement = 'delta_feed' | 'bulk_export' | 'single_country';

/**
 * The value `X-SVC-Required-Feature` carries when an endpoint needs a paid plan rather than a named
 * entitlement (spec: GET /v1/jobs/closed, "Paid keys only"; the spec names only `delta_feed` and
 * `bulk_export` for this header, and enumerations are open, so a new value is compatible).
 */
export const PAID_PLAN_FEATURE = 'paid_plan';

/** The parts of a plan these checks read. */
export interface PlanEntitlements {
  id: string;
  price_cents: number;
  entitlements: readonly string[];
}

/** Does `plan` carry `feature`? */
export function hasEntitlement(plan: PlanEntitlements, feature: Entitlement): boolean {
  return plan.entitlements.includes(feature);
}

/** Is `plan` a paid plan (price above zero)? */
export function isPaidPlan(plan: PlanEntitlements): boolean {
  return plan.price_cents > 0;
}
