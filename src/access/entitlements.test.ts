import { describe, expect, it } from 'vitest';
import { ApiError } from '../domain/errors.ts';
import { keyEntitlements, requireEntitlement } from './entitlements.ts';

const key = (plan: string, entitlements: string[], countryLock: string | null = null) => ({
  key: { country_lock: countryLock },
  plan: { id: plan, entitlements },
});

describe('entitlements', () => {
  it('come from the plan, and single_country from a country-locked key', () => {
    expect(keyEntitlements(key('explore', []))).toEqual([]);
    expect(keyEntitlements(key('signal', ['bulk_export', 'delta_feed']))).toEqual(['delta_feed', 'bulk_export']);
    expect(keyEntitlements(key('explore', [], 'DE'))).toEqual(['single_country']);
  });

  it('refuse a feature outside the plan with 403 upgrade_required naming it in X-SVC-Required-Feature', () => {
    expect(() => requireEntitlement(key('growth', ['delta_feed']), 'delta_feed')).not.toThrow();
    let thrown: unknown;
    try {
      requireEntitlement(key('growth', ['delta_feed']), 'bulk_export');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect(error.status).toBe(403);
    expect(error.code).toBe('upgrade_required');
    expect(error.headers).toEqual({ 'X-SVC-Required-Feature': 'bulk_export' });
    expect(error.message).toContain('bulk_export');
  });
});
