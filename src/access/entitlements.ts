/**
 * Plan entitlements (spec: Authentication, items 7 and 8): `delta_feed`, `bulk_export` and
 * `single_country` are identifiers stored on the plan (`plans.entitlements`).
 */
import { ApiError } from '../domain/errors.ts';

/** Entitlements an endpoint can require. */
export type Entitlement = 'delta_feed' | 'bulk_export';

/**
 * Refuse a key whose plan lacks `feature`: 403 `upgrade_required` with the header
 * `X-SVC-Required-Feature: <feature>` (spec: Authentication item 7; Errors, 403).
 * @throws ApiError 403 `upgrade_required`.
 */
export function requireEntitlement(plan: { id: string; entitlements: readonly string[] }, feature: Entitlement): void {
  if (plan.entitlements.includes(feature)) return;
  throw new ApiError('upgrade_required', `This endpoint needs the ${feature} entitlement, which the ${plan.id} plan does not include; see /public/plans.`, {
    headers: { 'X-SVC-Required-Feature': feature },
  });
}
