/**
 * The billing service (issue 14, checkout): what the site and the webhook route call. It decides what
 * a purchase or a subscription's state means for a key and records it through the billing repository
 * (`store/key-subscriptions.ts`), which sets the key's plan with the key repository's own
 * `setKeyPlan`. The payment provider sits behind `payment-provider.ts`; with none configured (the
 * default) nothing is on sale: {@link Billing.offersUpgrades} is false and starting a checkout or
 * posting a notification answers 501 `payments_not_configured`.
 *
 * Decisions (docs/website.md "Billing"):
 * - A subscription that renews keeps the bought plan; `renews_or_expires` is the end of the period
 *   paid for. Stripe's `past_due` (a renewal payment being retried) keeps the plan too.
 * - Cancellation downgrades at the period end: `cancel_at_period_end`, a scheduled `cancel_at`, and a
 *   subscription already `canceled` all keep the plan until the end of the period paid for (or the
 *   earlier `cancel_at`), then the key holds the free plan. The switch is a check at read time
 *   (`store/api-keys.ts findKeyWithPlan`), exact to the instant, with no chore to run; the provider's
 *   final notification then writes it into the key row.
 * - A subscription that is not paid for (`unpaid`, `incomplete`, `incomplete_expired`, `paused`)
 *   lapses at once.
 * - The plan a lapsed key falls back to is the free plan (`findFreePlan`: `explore`).
 * - A key holds one subscription: a key whose subscription renews cannot start a second checkout
 *   (409 `key_not_purchasable`); changing between paid plans is done on the provider's side (a price
 *   change arrives as a subscription update and changes the key's plan).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors.ts';
import { findKeyWithSubscription, listKeySubscriptions, billingEventSeen, recordBillingEvent, findSubscriptionKey, type BillingEvent } from '../store/key-subscriptions.ts';
import { findFreePlan, findPlan, listPurchasablePlans } from '../store/plans.ts';
import type { DB, PlanRow } from '../store/schema.ts';
import { BadSignatureError, ProviderUnavailableError, type PaymentProvider, type ProviderSubscription } from './payment-provider.ts';

/** Seconds a client should wait after the provider could not be reached. */
const PROVIDER_RETRY_AFTER_SECONDS = 30;

/** Input of {@link Billing.startCheckout}. */
export interface StartCheckoutInput {
  /** `api_keys.id` of the key to upgrade. Ownership is the caller's check (the site's session). */
  keyId: string;
  /** Plan id to buy (`growth`, `signal`, `scale`). */
  plan: string;
  /** Absolute URL the buyer returns to after paying. */
  successUrl: string;
  /** Absolute URL the buyer returns to when they give up. */
  cancelUrl: string;
  /**
   * The signed-in account, when the caller wants the ownership check done here: a key of another
   * account is then answered exactly like a key that does not exist (404), so ids cannot be probed.
   */
  accountId?: string;
}

/** What a notification did (the webhook's answer). */
export interface NotificationReceipt {
  /** True when this event id was acted on before: nothing changed now. */
  duplicate: boolean;
}

/** The term of a subscription in the service's terms. */
export interface SubscriptionTerm {
  /** End of the period paid for. */
  renewsAt: Date;
  /** The instant the plan lapses, or null while the subscription renews. */
  lapsesAt: Date | null;
}

/** A key's paid plan as its account page shows it. */
export interface KeyTerm {
  /** The plan the subscription buys. */
  planId: string;
  /** End of the period paid for. */
  renewsAt: Date;
  /** When the plan lapses (the subscription will not renew), or null while it renews. */
  lapsesAt: Date | null;
}

/** Statuses under which a subscription is paid for and keeps its plan (Stripe's words). */
const PAID_STATUSES = new Set(['active', 'trialing', 'past_due']);

/**
 * What a subscription's state means for its key's plan (the decisions in this module's header).
 * Pure: `now` is the instant an unpaid subscription lapses.
 */
export function subscriptionTerm(subscription: ProviderSubscription, now: Date): SubscriptionTerm {
  const renewsAt = subscription.periodEnd;
  const scheduledEnd = subscription.cancelAt && subscription.cancelAt.getTime() < renewsAt.getTime() ? subscription.cancelAt : renewsAt;
  if (PAID_STATUSES.has(subscription.status)) {
    if (subscription.cancelAt) return { renewsAt, lapsesAt: subscription.cancelAt };
    return { renewsAt, lapsesAt: subscription.cancelAtPeriodEnd ? renewsAt : null };
  }
  if (subscription.status === 'canceled') return { renewsAt, lapsesAt: scheduledEnd };
  return { renewsAt, lapsesAt: now };
}

/** The billing service over one database and (optionally) one payment provider. */
export class Billing {
  private readonly db: Kysely<DB>;
  private readonly provider: PaymentProvider | undefined;
  private readonly log: Logger;

  /** `provider` undefined: no payments (the default); see {@link offersUpgrades}. */
  constructor(options: { db: Kysely<DB>; provider?: PaymentProvider; log: Logger }) {
    this.db = options.db;
    this.provider = options.provider;
    this.log = options.log.child({ component: 'billing' });
  }

  /** Whether plans can be bought here: false without a payment provider, and the site then offers no upgrade. */
  offersUpgrades(): boolean {
    return this.provider !== undefined;
  }

  /** Origins of the provider's payment pages, which the site's CSP `form-action` must allow; none without a provider. */
  paymentPageOrigins(): readonly string[] {
    return this.provider?.paymentPageOrigins ?? [];
  }

  /**
   * The subscriptions still paying for any of `keyIds` at `now`, by key id: renewing ones, and cancelled
   * ones until they lapse. A key that is absent has none (it can be bought a plan; see startCheckout).
   */
  async keyTerms(keyIds: readonly string[], now: Date = new Date()): Promise<Map<string, KeyTerm>> {
    const terms = new Map<string, KeyTerm>();
    for (const row of await listKeySubscriptions(this.db, keyIds)) {
      const current = row.lapses_at === null ? PAID_STATUSES.has(row.status) : row.lapses_at.getTime() > now.getTime();
      if (current) terms.set(row.api_key_id, { planId: row.plan_id, renewsAt: row.renews_at, lapsesAt: row.lapses_at });
    }
    return terms;
  }

  /**
   * The plans a buyer can choose, in price-list order: active, purchasable, paid plans the provider
   * has a price for. Empty without a provider.
   */
  async plansOnSale(): Promise<PlanRow[]> {
    const provider = this.provider;
    if (!provider) return [];
    return (await listPurchasablePlans(this.db)).filter((plan) => plan.price_cents > 0 && provider.planIds.includes(plan.id));
  }

  /**
   * Start a checkout for `keyId` buying `plan`; returns the provider's payment page to redirect to.
   * The caller has checked that the key belongs to the signed-in account.
   * @throws ApiError 501 `payments_not_configured` (no provider), 422 `bad_plan` (not a paid plan on
   *   sale here), 404 `not_found` (no such key), 409 `key_not_purchasable` (revoked, expired, or
   *   already paid by a renewing subscription), 503 `unavailable` (the provider failed; retry).
   */
  async startCheckout(input: StartCheckoutInput): Promise<{ url: string; checkoutId: string }> {
    const provider = this.requireProvider();
    const onSale = await this.plansOnSale();
    if (!onSale.some((plan) => plan.id === input.plan)) {
      const known = await findPlan(this.db, input.plan);
      const why = known ? `plan "${input.plan}" is not on sale here` : `there is no plan "${input.plan}"`;
      throw new ApiError('bad_plan', `${why}; the plans on sale are ${onSale.map((p) => p.id).join(', ') || 'none'} (see /public/plans).`);
    }
    const found = await findKeyWithSubscription(this.db, input.keyId);
    if (!found || (input.accountId !== undefined && found.key.account_id !== input.accountId)) throw new ApiError('not_found', 'None of your keys has this id.');
    const { key, subscription } = found;
    if (key.status === 'revoked') throw new ApiError('key_not_purchasable', `Key ${key.key_prefix} is revoked; buy the plan for an active key.`);
    if (key.expires_at && key.expires_at.getTime() <= Date.now()) throw new ApiError('key_not_purchasable', `Key ${key.key_prefix} has expired; buy the plan for an active key.`);
    if (subscription && subscription.lapses_at === null && PAID_STATUSES.has(subscription.status)) {
      throw new ApiError(
        'key_not_purchasable',
        `Key ${key.key_prefix} already has a ${subscription.plan_id} subscription that renews on ${subscription.renews_at.toISOString().slice(0, 10)}; cancel it first, or buy the plan for another key.`,
      );
    }
    try {
      const started = await provider.startCheckout({ keyId: key.id, planId: input.plan, successUrl: input.successUrl, cancelUrl: input.cancelUrl });
      this.log.info({ keyId: key.id, plan: input.plan, checkoutId: started.checkoutId }, 'checkout started');
      return started;
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw this.unavailable(error);
      throw error;
    }
  }

  /**
   * Act on a payment-provider notification (the webhook): verify its signature over the raw body,
   * skip an event id acted on before, read the subscription's current state from the provider and
   * record the event with the plan change in one transaction.
   * @throws ApiError 501 `payments_not_configured`, 400 `bad_signature` (nothing changes), 503
   *   `unavailable` (the provider could not be read: nothing is recorded, so its retry is acted on).
   */
  async handleNotification(rawBody: Buffer, headers: Readonly<Record<string, string | string[] | undefined>>, now: () => Date = () => new Date()): Promise<NotificationReceipt> {
    const provider = this.requireProvider();
    let verified;
    try {
      verified = provider.verifyNotification(rawBody, headers);
    } catch (error) {
      if (error instanceof BadSignatureError) {
        this.log.warn({ reason: error.message }, 'payment notification refused: bad signature');
        throw new ApiError('bad_signature', 'The notification\'s signature does not verify for this body and the configured signing secret; nothing was changed.');
      }
      throw error;
    }
    if (await billingEventSeen(this.db, provider.id, verified.eventId)) {
      this.log.info({ eventId: verified.eventId, type: verified.eventType }, 'payment notification already acted on');
      return { duplicate: true };
    }
    let notification;
    try {
      notification = await provider.interpretNotification(verified);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw this.unavailable(error);
      throw error;
    }
    const event = await this.billingEvent(provider, notification, now());
    const recorded = await recordBillingEvent(this.db, event, now());
    if (recorded.kind === 'duplicate') return { duplicate: true };
    this.log.info({ eventId: event.eventId, type: event.eventType, outcome: recorded.outcome }, 'payment notification acted on');
    return { duplicate: false };
  }

  /** The record (and change) a notification makes. */
  private async billingEvent(provider: PaymentProvider, notification: Awaited<ReturnType<PaymentProvider['interpretNotification']>>, now: Date): Promise<BillingEvent> {
    const base = { provider: provider.id, eventId: notification.eventId, eventType: notification.eventType };
    if (notification.kind === 'ignored') return { ...base, outcome: `ignored: ${notification.reason}` };
    const sub = notification.subscription;
    if (!sub.planId) {
      this.log.warn({ subscriptionId: sub.subscriptionId, priceId: sub.priceId }, 'subscription price maps to no plan: check the price settings');
      return { ...base, outcome: `ignored: price ${sub.priceId ?? '(none)'} of ${sub.subscriptionId} maps to no plan` };
    }
    const term = subscriptionTerm(sub, now);
    if (notification.kind === 'purchase') {
      const keyId = notification.keyId ?? sub.keyId;
      if (!keyId) return { ...base, outcome: `ignored: purchase ${sub.subscriptionId} names no key` };
      const free = await findFreePlan(this.db);
      if (!free) throw new Error('no active free plan to fall back to at the end of a subscription');
      const state = { keyId, subscriptionId: sub.subscriptionId, customerId: sub.customerId, planId: sub.planId, status: sub.status, ...term, planAfter: free.id };
      return { ...base, change: { state, replace: true } };
    }
    const owner = await findSubscriptionKey(this.db, provider.id, sub.subscriptionId);
    if (!owner) return { ...base, outcome: `ignored: ${sub.subscriptionId} pays for no key` };
    const state = { keyId: owner.api_key_id, subscriptionId: sub.subscriptionId, customerId: sub.customerId, planId: sub.planId, status: sub.status, ...term, planAfter: owner.plan_after };
    return { ...base, change: { state, replace: false } };
  }

  private requireProvider(): PaymentProvider {
    if (!this.provider) {
      throw new ApiError('payments_not_configured', 'This server sells no plans: no payment provider is configured. The operator can change a key\'s plan.');
    }
    return this.provider;
  }

  private unavailable(error: ProviderUnavailableError): ApiError {
    this.log.error({ err: error }, 'payment provider failed');
    return new ApiError('unavailable', `The payment provider could not be reached; retry after ${PROVIDER_RETRY_AFTER_SECONDS} seconds.`, {
      headers: { 'Retry-After': String(PROVIDER_RETRY_AFTER_SECONDS) },
    });
  }
}
