/** What a subscription's state means for its key's plan (billing.ts subscriptionTerm). */
import { describe, expect, it } from 'vitest';
import { subscriptionTerm } from './billing.ts';
import type { ProviderSubscription } from './payment-provider.ts';

const now = new Date('2026-11-25T05:00:00Z');
const periodEnd = new Date('2026-12-25T05:00:00Z');

function subscription(changes: Partial<ProviderSubscription>): ProviderSubscription {
  return { subscriptionId: 'sub_1', customerId: 'cus_1', keyId: null, planId: 'growth', priceId: 'price_1', status: 'active', periodEnd, cancelAtPeriodEnd: false, cancelAt: null, ...changes };
}

describe('subscriptionTerm', () => {
  it('keeps a paid subscription renewing at its period end', () => {
    for (const status of ['active', 'trialing', 'past_due']) {
      expect(subscriptionTerm(subscription({ status }), now), status).toEqual({ renewsAt: periodEnd, lapsesAt: null });
    }
  });

  it('downgrades a cancellation at the period end, or at a scheduled cancel_at', () => {
    expect(subscriptionTerm(subscription({ cancelAtPeriodEnd: true }), now)).toEqual({ renewsAt: periodEnd, lapsesAt: periodEnd });
    const cancelAt = new Date('2026-12-01T00:00:00Z');
    expect(subscriptionTerm(subscription({ cancelAt }), now)).toEqual({ renewsAt: periodEnd, lapsesAt: cancelAt });
    // Ended at once: the period paid for is still honoured.
    expect(subscriptionTerm(subscription({ status: 'canceled' }), now)).toEqual({ renewsAt: periodEnd, lapsesAt: periodEnd });
    expect(subscriptionTerm(subscription({ status: 'canceled', cancelAt }), now)).toEqual({ renewsAt: periodEnd, lapsesAt: cancelAt });
  });

  it('lapses a subscription that is not paid for at once', () => {
    for (const status of ['unpaid', 'incomplete', 'incomplete_expired', 'paused']) {
      expect(subscriptionTerm(subscription({ status }), now).lapsesAt, status).toEqual(now);
    }
  });
});
