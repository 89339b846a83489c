/**
 * Stripe Checkout as the {@link PaymentProvider} (issue 14), on the `stripe` package: a purchase is a
 * Checkout Session in `subscription` mode for the plan's recurring price; its notifications are Stripe
 * webhook events, verified by the package's own `stripe.webhooks.constructEvent` (HMAC-SHA256 over the
 * raw body, with a 300 s timestamp tolerance against replays of old deliveries).
 *
 * Which key a purchase is for travels with Stripe: the session's `client_reference_id` and, on the
 * subscription it creates, `metadata.key_id` (Checkout's `subscription_data.metadata`). Every event
 * that concerns a subscription is answered by reading the subscription again
 * (`GET /v1/subscriptions/{id}`): Stripe does not deliver events in order, so the state read now, not
 * the event's snapshot, decides (Stripe's guidance for webhooks: "retrieve the latest object").
 *
 * Events acted on (enable these on the Stripe webhook endpoint): `checkout.session.completed` and
 * `checkout.session.async_payment_succeeded` (a purchase), `customer.subscription.updated` (renewal,
 * cancellation at the period end, resumption, a price changed by the operator) and
 * `customer.subscription.deleted` (the end). Any other event is acknowledged and ignored.
 */
import Stripe from 'stripe';
import {
  BadSignatureError,
  ProviderUnavailableError,
  type CheckoutRequest,
  type Notification,
  type PaymentProvider,
  type ProviderSubscription,
  type StartedCheckout,
  type VerifiedNotification,
} from './payment-provider.ts';

/** Stripe settings (docs/website.md "Billing"). */
export interface StripeSettings {
  /** Secret API key (`sk_live_...`, `sk_test_...`). Never logged. */
  secretKey: string;
  /** Signing secret of the webhook endpoint (`whsec_...`). Never logged. */
  webhookSecret: string;
  /** Base URL of Stripe's API (scheme, host and port; no path): `https://api.stripe.com` unless testing. */
  apiUrl: string;
  /** The recurring Stripe price id (`price_...`) of each purchasable plan id. */
  prices: Readonly<Record<string, string>>;
}

/** Where Stripe serves its hosted Checkout pages (a session's `url`). */
export const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/** Milliseconds one Stripe API call may take (the package's default is 80 s, far longer than a page load should wait). */
const STRIPE_TIMEOUT_MS = 20_000;

/** The `stripe` client options that point it at `apiUrl` (the package's host/port/protocol options). */
export function stripeClientOptions(apiUrl: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : value.id;
}

/** Unix seconds (Stripe's timestamps) to a Date. */
function fromUnix(seconds: number): Date {
  return new Date(seconds * 1000);
}

/** Events whose object is a Checkout Session that, when paid, is a purchase. */
const PURCHASE_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
/** Events whose object is a subscription. */
const SUBSCRIPTION_EVENTS = new Set(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted', 'customer.subscription.paused', 'customer.subscription.resumed']);

/** Stripe Checkout behind the provider interface. */
export class StripeCheckout implements PaymentProvider {
  readonly id = 'stripe';
  readonly planIds: readonly string[];
  /**
   * Stripe's Checkout origin and, when the API base is not Stripe's own (a stand-in such as the test
   * loopback or stripe-mock), that base's origin too: a stand-in serves its payment pages there.
   */
  readonly paymentPageOrigins: readonly string[];
  private readonly stripe: Stripe;
  private readonly settings: StripeSettings;
  private readonly planOfPrice: ReadonlyMap<string, string>;

  constructor(settings: StripeSettings) {
    this.settings = settings;
    this.planIds = Object.keys(settings.prices);
    const apiOrigin = new URL(settings.apiUrl).origin;
    this.paymentPageOrigins = apiOrigin === 'https://api.stripe.com' ? [STRIPE_CHECKOUT_ORIGIN] : [STRIPE_CHECKOUT_ORIGIN, apiOrigin];
    this.planOfPrice = new Map(Object.entries(settings.prices).map(([plan, price]) => [price, plan]));
    this.stripe = new Stripe(settings.secretKey, {
      ...stripeClientOptions(settings.apiUrl),
      timeout: STRIPE_TIMEOUT_MS,
      maxNetworkRetries: 2,
      telemetry: false,
      appInfo: { name: 'jobledger' },
    });
  }

  async startCheckout(request: CheckoutRequest): Promise<StartedCheckout> {
    const price = this.settings.prices[request.planId];
    if (!price) throw new ProviderUnavailableError(`no Stripe price is configured for plan ${request.planId}`);
    try {
      const session = await this.stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price, quantity: 1 }],
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        client_reference_id: request.keyId,
        metadata: { key_id: request.keyId, plan: request.planId },
        subscription_data: { metadata: { key_id: request.keyId, plan: request.planId } },
      });
      if (!session.url) throw new ProviderUnavailableError(`Stripe returned checkout session ${session.id} without a url`);
      return { url: session.url, checkoutId: session.id };
    } catch (error) {
      throw asUnavailable(error, 'creating a Stripe Checkout Session');
    }
  }

  verifyNotification(rawBody: Buffer, headers: Readonly<Record<string, string | string[] | undefined>>): VerifiedNotification {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string' || signature === '') throw new BadSignatureError('the Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.settings.webhookSecret);
    } catch (error) {
      throw new BadSignatureError(error instanceof Error ? error.message : 'the signature does not verify');
    }
    return { eventId: event.id, eventType: event.type, event };
  }

  async interpretNotification(verified: VerifiedNotification): Promise<Notification> {
    const event = verified.event as Stripe.Event;
    const base = { eventId: event.id, eventType: event.type };
    if (PURCHASE_EVENTS.has(event.type)) {
      const session = event.data.object as Stripe.Checkout.Session;
      if (session.mode !== 'subscription') return { ...base, kind: 'ignored', reason: `checkout session ${session.id} is not a subscription` };
      // `unpaid`: an asynchronous payment method; `checkout.session.async_payment_succeeded` follows.
      if (session.payment_status === 'unpaid') return { ...base, kind: 'ignored', reason: `checkout session ${session.id} is not paid yet` };
      const subscriptionId = idOf(session.subscription);
      if (!subscriptionId) return { ...base, kind: 'ignored', reason: `checkout session ${session.id} has no subscription` };
      const keyId = session.client_reference_id ?? session.metadata?.key_id ?? null;
      return { ...base, kind: 'purchase', keyId, subscription: await this.subscription(subscriptionId) };
    }
    if (SUBSCRIPTION_EVENTS.has(event.type)) {
      const object = event.data.object as Stripe.Subscription;
      return { ...base, kind: 'subscription', subscription: await this.subscription(object.id) };
    }
    return { ...base, kind: 'ignored', reason: `event type ${event.type} is not acted on` };
  }

  /** The subscription's current state, read from Stripe. */
  private async subscription(id: string): Promise<ProviderSubscription> {
    let subscription: Stripe.Subscription;
    try {
      subscription = await this.stripe.subscriptions.retrieve(id);
    } catch (error) {
      throw asUnavailable(error, `reading Stripe subscription ${id}`);
    }
    // One item per subscription: Checkout sessions are created with one line item.
    const item = subscription.items.data[0];
    const priceId = item?.price.id ?? null;
    // Since API version 2025-03-31 the billing period is per item; older versions carried it on the subscription.
    const periodEnd = item?.current_period_end ?? (subscription as unknown as { current_period_end?: number }).current_period_end;
    if (typeof periodEnd !== 'number') throw new ProviderUnavailableError(`Stripe subscription ${id} has no current_period_end`);
    return {
      subscriptionId: subscription.id,
      customerId: idOf(subscription.customer),
      keyId: subscription.metadata?.key_id ?? null,
      planId: priceId ? (this.planOfPrice.get(priceId) ?? null) : null,
      priceId,
      status: subscription.status,
      periodEnd: fromUnix(periodEnd),
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      cancelAt: subscription.cancel_at ? fromUnix(subscription.cancel_at) : null,
    };
  }
}

/** Any failure of a Stripe call, as the error the service answers 503 for; the cause is kept for the log. */
function asUnavailable(error: unknown, doing: string): ProviderUnavailableError {
  if (error instanceof ProviderUnavailableError) return error;
  const detail = error instanceof Stripe.errors.StripeError ? `${error.type}${error.statusCode ? ` ${error.statusCode}` : ''}: ${error.message}` : String(error);
  return new ProviderUnavailableError(`${doing} failed: ${detail}`, { cause: error });
}
