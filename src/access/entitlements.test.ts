import { describe, expect, it } from 'vitest';
import { hasEntitlement, isPaidPlan } from './entitlements.ts';

// The spec's plan table (Authentication item 8), as the plans table holds it.
const plans = {
  explore: { id: 'explore', price_cents: 0, entitlements: [] },
  growth: { id: 'growth', price_cents: 8000, entitlements: ['delta_feed'] },
  signal: { id: 'signal', price_cents: 29900, entitlements: ['delta_feed', 'bulk_export'] },
};

describe('plan entitlements', () => {
  it('follow the plan data', () => {
    expect(hasEntitlement(plans.explore, 'delta_feed')).toBe(false);
    expect(hasEntitlement(plans.growth, 'delta_feed')).toBe(true);
    expect(hasEntitlement(plans.growth, 'bulk_export')).toBe(false);
    expect(hasEntitlement(plans.signal, 'bulk_export')).toBe(true);
  });

  it('call a plan paid when its price is above zero', () => {
    expect(isPaidPlan(plans.explore)).toBe(false);
    expect(isPaidPlan(plans.growth)).toBe(true);
  });
});
