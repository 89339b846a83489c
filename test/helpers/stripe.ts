/**
 * A loopback stand-in for Stripe: a real HTTP server on 127.0.0.1 answering on Stripe's API paths
 * with payloads in the shapes of Stripe's API reference (API version 2026-10-28, the one the `stripe`
 * package pins), and Stripe's side of a purchase: its hosted payment page, the subscription a paid
 * Checkout Session creates, and the webhook events it sends, signed with the package's own
 * `stripe.webhooks.generateTestHeaderString`.
 *
 * Answered paths: `POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/{id}`,
 * `GET /v1/subscriptions/{id}` (others: Stripe's 404 error body). `GET /c/pay/{session}` is the hosted
 * payment page (a form), and posting it pays the session the way {@link StripeLoopback.pay} does, hands
 * the signed `checkout.session.completed` to `deliver`, and redirects to the session's `success_url`:
 * what a browser test needs.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { StripeSettings } from '../../src/billing/stripe-checkout.ts';

/** The API version of the payloads (the `stripe` package's pinned version). */
export const STRIPE_API_VERSION = '2026-10-28.endive';
/** Secret key the loopback accepts. */
export const LOOPBACK_SECRET_KEY = 'sk_test_loopback_0123456789';
/** Webhook signing secret of the loopback's events. */
export const LOOPBACK_WEBHOOK_SECRET = 'whsec_loopback_0123456789';
/** Price id of each paid plan on the loopback, with its monthly amount in cents (spec: Authentication item 8). */
export const LOOPBACK_PRICES: Readonly<Record<string, { id: string; cents: number }>> = {
  growth: { id: 'price_1QgrowthMonthlyEUR', cents: 8000 },
  signal: { id: 'price_1QsignalMonthlyEUR', cents: 29900 },
  scale: { id: 'price_1QscaleMonthlyEUR', cents: 89900 },
};
/** Seconds of one billing period on the loopback (a month of 30 days). */
const PERIOD_SECONDS = 30 * 86_400;

type Json = Record<string, unknown>;

/** A webhook delivery: the exact body and its `Stripe-Signature` header. */
export interface SignedEvent {
  id: string;
  type: string;
  payload: string;
  signature: string;
}

export interface StripeLoopbackOptions {
  /** Where the hosted payment page delivers its event (a browser test posts it to the running app). */
  deliver?: (event: SignedEvent) => Promise<void>;
}

function id(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A loopback Stripe (see the module header). */
export class StripeLoopback {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every API request received, in order: method, path and form body. */
  readonly requests: Array<{ method: string; path: string; form: URLSearchParams }> = [];
  readonly sessions = new Map<string, Json>();
  readonly subscriptions = new Map<string, Json>();
  /** When set, the API answers every request with this status and Stripe's `api_error` body. */
  failWith: number | undefined;
  private readonly server: ReturnType<typeof createServer>;
  private readonly options: StripeLoopbackOptions;

  private constructor(server: ReturnType<typeof createServer>, options: StripeLoopbackOptions) {
    this.server = server;
    this.options = options;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Start a loopback Stripe on a free port. */
  static async start(options: StripeLoopbackOptions = {}): Promise<StripeLoopback> {
    const holder: { loopback?: StripeLoopback } = {};
    const server = createServer((request, response) => {
      holder.loopback!.handle(request, response).catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.loopback = new StripeLoopback(server, options);
    return holder.loopback;
  }

  /** Settings that point the service at this loopback, with every paid plan on sale unless `prices` says otherwise. */
  settings(prices: Record<string, string> = Object.fromEntries(Object.entries(LOOPBACK_PRICES).map(([plan, p]) => [plan, p.id]))): StripeSettings {
    return { secretKey: LOOPBACK_SECRET_KEY, webhookSecret: LOOPBACK_WEBHOOK_SECRET, apiUrl: this.url, prices };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sign an event payload as Stripe does (`t=<unix>,v1=<hmac>`), with the package's own helper. */
  sign(payload: string, secret: string = LOOPBACK_WEBHOOK_SECRET): string {
    return Stripe.webhooks.generateTestHeaderString({ payload, secret });
  }

  /** A webhook event of `type` about `object`, signed. */
  event(type: string, object: Json, previousAttributes?: Json): SignedEvent {
    const event = {
      id: id('evt'),
      object: 'event',
      api_version: STRIPE_API_VERSION,
      created: nowSeconds(),
      data: previousAttributes ? { object, previous_attributes: previousAttributes } : { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const payload = JSON.stringify(event, null, 2);
    return { id: event.id, type, payload, signature: this.sign(payload) };
  }

  /**
   * Pay an open Checkout Session as Stripe does on a successful card payment: a customer and an active
   * subscription (one item, the session's price, a 30-day period from now, the session's
   * `subscription_data.metadata`) are created, the session becomes `complete`/`paid`, and the signed
   * `checkout.session.completed` event is returned.
   */
  pay(sessionId: string): SignedEvent {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    const priceId = String(session.__price);
    const plan = Object.entries(LOOPBACK_PRICES).find(([, p]) => p.id === priceId);
    const created = nowSeconds();
    const customer = id('cus');
    const subscriptionId = id('sub');
    const subscription: Json = {
      id: subscriptionId,
      object: 'subscription',
      application: null,
      automatic_tax: { enabled: false, liability: null },
      billing_cycle_anchor: created,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, reason: null },
      collection_method: 'charge_automatically',
      created,
      currency: 'eur',
      customer,
      default_payment_method: id('pm'),
      description: null,
      discounts: [],
      ended_at: null,
      items: {
        object: 'list',
        data: [
          {
            id: id('si'),
            object: 'subscription_item',
            created,
            current_period_end: created + PERIOD_SECONDS,
            current_period_start: created,
            discounts: [],
            metadata: {},
            price: {
              id: priceId,
              object: 'price',
              active: true,
              billing_scheme: 'per_unit',
              created: created - 86_400,
              currency: 'eur',
              livemode: false,
              lookup_key: null,
              metadata: {},
              nickname: plan ? plan[0] : null,
              product: id('prod'),
              recurring: { interval: 'month', interval_count: 1, meter: null, usage_type: 'licensed' },
              tax_behavior: 'unspecified',
              type: 'recurring',
              unit_amount: plan ? plan[1].cents : 1000,
              unit_amount_decimal: String(plan ? plan[1].cents : 1000),
            },
            quantity: 1,
            subscription: subscriptionId,
            tax_rates: [],
          },
        ],
        has_more: false,
        total_count: 1,
        url: `/v1/subscription_items?subscription=${subscriptionId}`,
      },
      latest_invoice: id('in'),
      livemode: false,
      metadata: session.__subscription_metadata ?? {},
      start_date: created,
      status: 'active',
      trial_end: null,
      trial_start: null,
    };
    this.subscriptions.set(subscriptionId, subscription);
    Object.assign(session, { status: 'complete', payment_status: 'paid', customer, subscription: subscriptionId, url: null });
    return this.event('checkout.session.completed', this.publicSession(session));
  }

  /**
   * Change a subscription as Stripe would and return the signed `customer.subscription.updated`:
   * top-level fields (`cancel_at_period_end`, `status`, ...) and, with `periodEnd` (unix seconds), the
   * item's `current_period_end` (a renewal moves it on; tests move it close to now).
   */
  updateSubscription(subscriptionId: string, changes: Json & { periodEnd?: number }): SignedEvent {
    const subscription = this.requireSubscription(subscriptionId);
    const { periodEnd, ...fields } = changes;
    const previous: Json = {};
    for (const name of Object.keys(fields)) previous[name] = subscription[name];
    Object.assign(subscription, fields);
    if (periodEnd !== undefined) {
      const item = (subscription.items as { data: Json[] }).data[0]!;
      previous.items = structuredClone(subscription.items);
      item.current_period_start = item.current_period_end;
      item.current_period_end = periodEnd;
    }
    return this.event('customer.subscription.updated', structuredClone(subscription), previous);
  }

  /** End a subscription now (Stripe: `DELETE /v1/subscriptions/{id}`, or the end of a cancelled period) and return the signed `customer.subscription.deleted`. */
  deleteSubscription(subscriptionId: string): SignedEvent {
    const subscription = this.requireSubscription(subscriptionId);
    const now = nowSeconds();
    Object.assign(subscription, { status: 'canceled', canceled_at: subscription.canceled_at ?? now, ended_at: now });
    return this.event('customer.subscription.deleted', structuredClone(subscription));
  }

  /** The subscription a paid session created. */
  subscriptionOf(sessionId: string): string {
    const subscription = this.sessions.get(sessionId)?.subscription;
    if (typeof subscription !== 'string') throw new Error(`checkout session ${sessionId} is not paid`);
    return subscription;
  }

  private requireSubscription(subscriptionId: string): Json {
    const subscription = this.subscriptions.get(subscriptionId);
    if (!subscription) throw new Error(`no subscription ${subscriptionId}`);
    return subscription;
  }

  /** A session as the API shows it (without the loopback's own bookkeeping fields). */
  private publicSession(session: Json): Json {
    return Object.fromEntries(Object.entries(session).filter(([k]) => !k.startsWith('__')));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const url = new URL(request.url ?? '/', this.url);
    const path = url.pathname;
    const json = (status: number, body: unknown): void => void response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
    const notFound = (message: string, param?: string): void => json(404, { error: { code: 'resource_missing', doc_url: 'https://stripe.com/docs/error-codes/resource-missing', message, param, type: 'invalid_request_error' } });

    const payPage = /^\/c\/pay\/([A-Za-z0-9_]+)$/.exec(path);
    if (payPage) return this.payPage(payPage[1]!, request.method ?? 'GET', response);

    this.requests.push({ method: request.method ?? 'GET', path, form });
    if (request.headers.authorization !== `Bearer ${LOOPBACK_SECRET_KEY}`) {
      return json(401, { error: { message: 'Invalid API Key provided: sk_test_****', type: 'invalid_request_error' } });
    }
    if (this.failWith !== undefined) return json(this.failWith, { error: { message: 'An unknown error occurred', type: 'api_error' } });

    if (request.method === 'POST' && path === '/v1/checkout/sessions') {
      const priceId = form.get('line_items[0][price]');
      if (form.get('mode') !== 'subscription' || !priceId || !form.get('success_url')) {
        return json(400, { error: { message: 'Missing required param: line_items[0][price].', param: 'line_items', type: 'invalid_request_error' } });
      }
      const known = Object.values(LOOPBACK_PRICES).find((p) => p.id === priceId);
      if (!known) return notFound(`No such price: '${priceId}'`, 'line_items[0][price]');
      const sessionId = id('cs_test');
      const created = nowSeconds();
      const metadata = prefixed(form, 'metadata');
      const session: Json = {
        id: sessionId,
        object: 'checkout.session',
        after_expiration: null,
        allow_promotion_codes: null,
        amount_subtotal: known.cents,
        amount_total: known.cents,
        automatic_tax: { enabled: false, liability: null, status: null },
        billing_address_collection: null,
        cancel_url: form.get('cancel_url'),
        client_reference_id: form.get('client_reference_id'),
        created,
        currency: 'eur',
        customer: null,
        customer_creation: null,
        customer_email: null,
        expires_at: created + 86_400,
        invoice: null,
        livemode: false,
        locale: null,
        metadata,
        mode: 'subscription',
        payment_intent: null,
        payment_method_types: ['card'],
        payment_status: 'unpaid',
        status: 'open',
        submit_type: null,
        subscription: null,
        success_url: form.get('success_url'),
        total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
        ui_mode: 'hosted',
        url: `${this.url}/c/pay/${sessionId}`,
        __price: priceId,
        __subscription_metadata: prefixed(form, 'subscription_data[metadata]'),
      };
      this.sessions.set(sessionId, session);
      return json(200, this.publicSession(session));
    }
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && session) {
      const found = this.sessions.get(session[1]!);
      return found ? json(200, this.publicSession(found)) : notFound(`No such checkout.session: '${session[1]}'`, 'session');
    }
    const subscription = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && subscription) {
      const found = this.subscriptions.get(subscription[1]!);
      return found ? json(200, found) : notFound(`No such subscription: '${subscription[1]}'`, 'id');
    }
    return notFound(`Unrecognized request URL (${request.method}: ${path}).`);
  }

  /** The hosted payment page: GET shows a form, POST pays, delivers the event and redirects to `success_url`. */
  private async payPage(sessionId: string, method: string, response: ServerResponse): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session || session.status !== 'open') {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Expired</title><p>This checkout session is no longer open.</p>');
      return;
    }
    if (method === 'POST') {
      const event = this.pay(sessionId);
      await this.options.deliver?.(event);
      response.writeHead(303, { location: String(session.success_url) }).end();
      return;
    }
    const amount = `€${(Number(session.amount_total) / 100).toFixed(2)}`;
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay ${amount} (loopback Stripe)</title></head>` +
          `<body><main><h1>Subscribe: ${amount} per month</h1><p>Loopback stand-in for Stripe Checkout (tests only).</p>` +
          `<form method="post"><button type="submit">Pay ${amount}</button></form></main></body></html>`,
      );
  }
}

/** The `name[...]` entries of a form-encoded body as an object (`metadata[key_id]=x` → `{key_id: 'x'}`). */
function prefixed(form: URLSearchParams, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of form) {
    if (key.startsWith(`${name}[`) && key.endsWith(']') && !key.slice(name.length + 1, -1).includes('[')) out[key.slice(name.length + 1, -1)] = value;
  }
  return out;
}
