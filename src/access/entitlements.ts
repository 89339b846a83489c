/**
 * What a key may use beyond listings (spec: Authentication items 7 to 9).
 *
 * - `delta_feed` and `bulk_export` come from the key's plan (`plans.entitlements`, migration 002).
 * - `single_country` comes from the key: a key created with `--country CC` (on any plan) is locked to
 *   that country and holds `single_country`; a plan may also list it, but the lock itself is always
 *   the key's `country_lock`. See docs/metering.md.
 *
 * A valid key on an endpoint outside its plan gets 403 `upgrade_required` with the header
 * `X-SVC-Required-Feature` naming the missing entitlement.
 */
import { ApiError } from '../domain/errors.ts';

/** Entitlement identifiers (spec names). */
const ENTITLEMENTS = ['delta_feed', 'bulk_export', 'single_country'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

/** The parts of an authenticated key this module reads (`AuthenticatedKey` from the key store). */
export interface EntitledKey {
  key: { country_lock: string | null };
  plan: { id: string; entitlements: readonly string[] };
}

/** Every entitlement the key holds, in the order of {@link ENTITLEMENTS}. */
export function keyEntitlements(apiKey: EntitledKey): Entitlement[] {
  const held = new Set(apiKey.plan.entitlements);
  if (apiKey.key.country_lock) held.add('single_country');
  return ENTITLEMENTS.filter((e) => held.has(e));
}

/**
 * Require `feature` of the key; use it first thing in a handler (or a preHandler) of an endpoint
 * outside some plans, e.g. `requireEntitlement(request.apiKey, 'delta_feed')` on `/v1/changes`.
 * @throws ApiError 403 `upgrade_required` with `X-SVC-Required-Feature: <feature>` when the key lacks it
 *   (or when there is no key, which the /v1 authentication hook already rules out).
 */
export function requireEntitlement(apiKey: EntitledKey | null | undefined, feature: Entitlement): void {
  if (apiKey && keyEntitlements(apiKey).includes(feature)) return;
  throw new ApiError(
    'upgrade_required',
    `This endpoint needs the ${feature} entitlement, which the ${apiKey?.plan.id ?? 'current'} plan does not include; see /public/plans.`,
    { headers: { 'X-SVC-Required-Feature': feature } },
  );
}
