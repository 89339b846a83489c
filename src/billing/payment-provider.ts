/**
 * The one small interface every payment provider implements (issue 14, checkout): start a hosted
 * checkout for a key and a paid plan, and turn the provider's signed notification into a subscription
 * state for a key. Stripe Checkout (`stripe-checkout.ts`) is the implementation; the service that
 * decides and records (`billing.ts`) knows only this interface, so another provider is one file.
 */

/** What a buyer asked to buy. */
export interface CheckoutRequest {
  /** `api_keys.id` of the key the plan is for (the caller checked it belongs to the buyer). */
  keyId: string;
  /** Plan id (`plans.id`) of a paid plan the provider has a price for. */
  planId: string;
  /** Absolute URL the provider sends the buyer to after paying. */
  successUrl: string;
  /** Absolute URL the provider sends the buyer to when they give up. */
  cancelUrl: string;
}

/** A started checkout: where to send the buyer. */
export interface StartedCheckout {
  /** The provider's hosted payment page for this purchase (absolute URL). */
  url: string;
  /** The provider's id of the checkout (Stripe: `cs_...`), for logs. */
  checkoutId: string;
}

/**
 * A subscription's state as the provider reports it, in the service's terms. Instants are the
 * provider's, converted to `Date`.
 */
export interface ProviderSubscription {
  subscriptionId: string;
  customerId: string | null;
  /** The key it pays for (recorded with the purchase), or null when the provider has none. */
  keyId: string | null;
  /** The plan its price buys, or null when the price maps to no plan of ours. */
  planId: string | null;
  /** The price the provider bills, for a log line when it maps to no plan. */
  priceId: string | null;
  /** The provider's status word (Stripe: active, trialing, past_due, canceled, unpaid, paused, ...). */
  status: string;
  /** End of the period paid for. */
  periodEnd: Date;
  /** Whether the subscription stops at the end of the current period. */
  cancelAtPeriodEnd: boolean;
  /** A scheduled end of the subscription, if any. */
  cancelAt: Date | null;
}

/** A notification whose signature verified: its id (for idempotency), its type and its parsed body. */
export interface VerifiedNotification {
  eventId: string;
  eventType: string;
  /** The provider's parsed event, for {@link PaymentProvider.interpretNotification}. */
  event: unknown;
}

/** What a verified notification means. */
export type Notification =
  | {
      eventId: string;
      eventType: string;
      /** A purchase completed: the subscription becomes the key's (`keyId` from the checkout). */
      kind: 'purchase';
      keyId: string | null;
      subscription: ProviderSubscription;
    }
  | {
      eventId: string;
      eventType: string;
      /** A subscription changed (renewed, cancelled, resumed, ended): its current state. */
      kind: 'subscription';
      subscription: ProviderSubscription;
    }
  | {
      eventId: string;
      eventType: string;
      /** Nothing to do; `reason` is logged and recorded. */
      kind: 'ignored';
      reason: string;
    };

/** A payment provider (issue 14: "Payment is done by a provider behind one small interface"). */
export interface PaymentProvider {
  /** Short provider id stored with its rows (`stripe`). */
  readonly id: string;
  /** Plan ids the provider has a price for: the plans a buyer can choose. */
  readonly planIds: readonly string[];
  /**
   * Origins (`https://host[:port]`) of the provider's hosted payment pages. The site's checkout form
   * answers 303 to one of them, and browsers apply the page's CSP `form-action` to that redirect, so
   * the site allows exactly these.
   */
  readonly paymentPageOrigins: readonly string[];
  /**
   * Start a hosted checkout.
   * @throws ProviderUnavailableError when the provider cannot be reached or refuses.
   */
  startCheckout(request: CheckoutRequest): Promise<StartedCheckout>;
  /**
   * Verify a notification's signature over the raw request body (before anything else reads it).
   * @throws BadSignatureError when the signature does not verify (nothing may change then).
   */
  verifyNotification(rawBody: Buffer, headers: Readonly<Record<string, string | string[] | undefined>>): VerifiedNotification;
  /**
   * What a verified notification means, reading the subscription's current state from the provider
   * (notifications may arrive out of order; the state read now is the truth).
   * @throws ProviderUnavailableError when the provider cannot be reached to read the subscription.
   */
  interpretNotification(notification: VerifiedNotification): Promise<Notification>;
}

/** The notification's signature is missing, malformed, stale or wrong. */
export class BadSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadSignatureError';
  }
}

/** The provider's API failed (network, 5xx, or it refused our request); the message is for the log only. */
export class ProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
  }
}
