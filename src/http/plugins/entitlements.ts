/**
 * Entitlement checks of the keyed surface (spec: Authentication item 7: "A valid key on an endpoint
 * outside its plan gets 403. The response header X-SVC-Required-Feature names the missing
 * entitlement"). Route handlers call these first, after authentication and before reading any
 * parameter, so an ineligible key learns about the plan before anything else.
 */
import type { FastifyRequest } from 'fastify';
import { hasEntitlement, isPaidPlan, PAID_PLAN_FEATURE, type Entitlement } from '../../access/entitlements.ts';
import { ApiError } from '../../domain/errors.ts';

/** The response header naming the missing entitlement. */
export const REQUIRED_FEATURE_HEADER = 'X-SVC-Required-Feature';

function upgradeRequired(feature: string, message: string): ApiError {
  return new ApiError('upgrade_required', message, { headers: { [REQUIRED_FEATURE_HEADER]: feature } });
}

/**
 * Require an entitlement of the authenticated key's plan.
 * @throws ApiError 403 `upgrade_required` with `X-SVC-Required-Feature: <feature>`.
 */
export function requireEntitlement(request: FastifyRequest, feature: Entitlement): void {
  const plan = request.apiKey?.plan;
  if (plan && hasEntitlement(plan, feature)) return;
  throw upgradeRequired(
    feature,
    `${request.url.split('?')[0]} needs the ${feature} entitlement, which the plan "${plan?.id ?? 'none'}" does not include; see /public/plans.`,
  );
}

/**
 * Require a paid plan (price above zero).
 * @throws ApiError 403 `upgrade_required` with `X-SVC-Required-Feature: paid_plan`.
 */
export function requirePaidPlan(request: FastifyRequest): void {
  const plan = request.apiKey?.plan;
  if (plan && isPaidPlan(plan)) return;
  throw upgradeRequired(
    PAID_PLAN_FEATURE,
    `${request.url.split('?')[0]} is available on paid plans; the plan "${plan?.id ?? 'none'}" is free. See /public/plans.`,
  );
}
