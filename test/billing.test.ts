/**
 * Buying a plan (issue 14, checkout), end to end over HTTP: the real app, the real `stripe` package
 * talking to a loopback server on Stripe's API paths (test/helpers/stripe.ts), webhook events signed
 * with the package's own helper. What a buyer sees: `/v1/me` and `/v1/changes` with their key.
 *
 * The site's session check is the one seam stood in for (`signedInAccount`): here the account id comes
 * from a test header, as the site's session will provide it.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Billing } from '../src/billing/billing.ts';
import { StripeCheckout } from '../src/billing/stripe-checkout.ts';
import { ApiError } from '../src/domain/errors.ts';
import { revokeApiKey } from '../src/access/api-keys.ts';
import { bearer, createKey, TEST_DOCS_URL, useTestApp } from './helpers/app.ts';
import { StripeLoopback, type SignedEvent } from './helpers/stripe.ts';
import type { FastifyInstance } from 'fastify';
import type { CreatedKey } from '../src/access/api-keys.ts';

const SINCE = '2026-01-01T00:00:00Z';

function webhook(app: FastifyInstance, event: Pick<SignedEvent, 'payload' | 'signature'>) {
  return app.inject({ method: 'POST', url: '/public/checkout/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, payload: event.payload });
}

function checkout(app: FastifyInstance, key: CreatedKey, body: Record<string, string>, account = key.accountId) {
  return app.inject({ method: 'POST', url: '/public/checkout', headers: { 'x-test-account': account }, payload: body });
}

async function me(app: FastifyInstance, key: CreatedKey) {
  const res = await app.inject({ url: '/v1/me', headers: bearer(key) });
  expect(res.statusCode).toBe(200);
  return res.json() as { plan: string; renews_or_expires: string | null; entitlements: string[] };
}

async function changesStatus(app: FastifyInstance, key: CreatedKey): Promise<number> {
  return (await app.inject({ url: `/v1/changes?since=${SINCE}`, headers: bearer(key) })).statusCode;
}

/** The session id of a 303 to the loopback's payment page. */
function sessionOf(location: string | undefined): string {
  const match = /\/c\/pay\/(cs_test_[A-Za-z0-9]+)$/.exec(location ?? '');
  if (!match) throw new Error(`not a loopback payment page: ${location}`);
  return match[1]!;
}

describe('checkout with no payment provider (the default)', () => {
  const ctx = useTestApp({ key: 'explore' });

  it('answers 501 payments_not_configured to checkout and webhook, and offers no upgrade', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/public/checkout', payload: { key_id: ctx.key.id, plan: 'growth' } });
    expect(res.statusCode).toBe(501);
    expect(res.json()).toEqual({
      error: 'payments_not_configured',
      message: "This server sells no plans: no payment provider is configured. The operator can change a key's plan.",
      docs: `${TEST_DOCS_URL}#payments_not_configured`,
      type: `${TEST_DOCS_URL}#payments_not_configured`,
      title: 'Not Implemented',
      status: 501,
    });
    const hook = await ctx.app.inject({ method: 'POST', url: '/public/checkout/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, payload: '{}' });
    expect(hook.statusCode).toBe(501);
    expect(hook.json().error).toBe('payments_not_configured');
    const billing = new Billing({ db: ctx.t.db, log: pino({ level: 'silent' }) });
    expect(billing.offersUpgrades()).toBe(false);
    expect(await billing.plansOnSale()).toEqual([]);
    await expect(billing.startCheckout({ keyId: ctx.key.id, plan: 'growth', successUrl: 'http://x.test/ok', cancelUrl: 'http://x.test/no' })).rejects.toMatchObject({
      code: 'payments_not_configured',
      status: 501,
    });
    expect((await me(ctx.app, ctx.key)).plan).toBe('explore');
  });
});

describe('checkout through Stripe', () => {
  let stripe: StripeLoopback;
  // Registered before useTestApp's hook, so the loopback runs before the app is built (hooks run in order).
  beforeAll(async () => {
    stripe = await StripeLoopback.start();
  });
  const ctx = useTestApp({
    key: 'explore',
    app: {
      billing: (t) => new Billing({ db: t.db, log: pino({ level: 'silent' }), provider: new StripeCheckout(stripe.settings()) }),
      signedInAccount: async (request) => {
        const account = request.headers['x-test-account'];
        if (typeof account !== 'string') throw new ApiError('session_required', 'Sign in on the website to buy a plan for one of your keys.');
        return account;
      },
    },
  });
  afterAll(async () => {
    await stripe?.close();
  });

  /** Buy `plan` for `key` through the route and Stripe's payment: returns the purchase event and subscription id. */
  async function buy(key: CreatedKey, plan = 'growth'): Promise<{ event: SignedEvent; subscriptionId: string }> {
    const started = await checkout(ctx.app, key, { key_id: key.id, plan });
    expect(started.statusCode, started.body).toBe(303);
    const session = sessionOf(started.headers.location);
    const event = stripe.pay(session);
    const res = await webhook(ctx.app, event);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true, duplicate: false });
    return { event, subscriptionId: stripe.subscriptionOf(session) };
  }

  async function storedPlan(keyId: string): Promise<string> {
    return (await ctx.t.db.selectFrom('api_keys').select('plan_id').where('id', '=', keyId).executeTakeFirstOrThrow()).plan_id;
  }

  async function eventCount(): Promise<number> {
    return Number((await ctx.t.db.selectFrom('billing_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  }

  it('buying growth upgrades the key: /v1/me shows growth with the period end, and /v1/changes stops answering 403', async () => {
    const key = ctx.key;
    expect((await me(ctx.app, key)).plan).toBe('explore');
    expect(await changesStatus(ctx.app, key)).toBe(403);

    const started = await checkout(ctx.app, key, { key_id: key.id, plan: 'growth' });
    expect(started.statusCode).toBe(303);
    expect(started.headers.location).toBe(started.json().checkout_url);
    const created = stripe.requests.find((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions')!;
    expect(created.form.get('mode')).toBe('subscription');
    expect(created.form.get('line_items[0][price]')).toBe('price_1QgrowthMonthlyEUR');
    expect(created.form.get('client_reference_id')).toBe(key.id);
    expect(created.form.get('subscription_data[metadata][key_id]')).toBe(key.id);
    // Nothing changes until Stripe says the payment went through.
    expect((await me(ctx.app, key)).plan).toBe('explore');

    const session = sessionOf(started.headers.location);
    const res = await webhook(ctx.app, stripe.pay(session));
    expect(res.json()).toEqual({ received: true, duplicate: false });

    const after = await me(ctx.app, key);
    expect(after.plan).toBe('growth');
    expect(after.entitlements).toContain('delta_feed');
    const subscription = stripe.subscriptions.get(stripe.subscriptionOf(session))!;
    const periodEnd = (subscription.items as { data: Array<{ current_period_end: number }> }).data[0]!.current_period_end;
    expect(after.renews_or_expires).toBe(new Date(periodEnd * 1000).toISOString());
    expect(await changesStatus(ctx.app, key)).toBe(200);
    expect(await storedPlan(key.id)).toBe('growth');
  });

  it('a bad signature answers 400 bad_signature and changes nothing', async () => {
    const key = await createKey(ctx.t, 'explore');
    const started = await checkout(ctx.app, key, { key_id: key.id, plan: 'growth' });
    const genuine = stripe.pay(sessionOf(started.headers.location));
    const before = await eventCount();
    const requestsBefore = stripe.requests.length;
    const forged = [
      { payload: genuine.payload, signature: stripe.sign(genuine.payload, 'whsec_someone_else') },
      { payload: genuine.payload.replace(key.id, ctx.key.id), signature: genuine.signature },
      { payload: genuine.payload, signature: 't=1700000000,v1=' + '0'.repeat(64) },
      { payload: genuine.payload, signature: '' },
    ];
    for (const attempt of forged) {
      const res = await webhook(ctx.app, attempt);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'bad_signature',
        message: "The notification's signature does not verify for this body and the configured signing secret; nothing was changed.",
        docs: `${TEST_DOCS_URL}#bad_signature`,
        type: `${TEST_DOCS_URL}#bad_signature`,
        title: 'Bad Request',
        status: 400,
      });
    }
    expect(await eventCount()).toBe(before);
    expect(stripe.requests.length).toBe(requestsBefore);
    expect((await me(ctx.app, key)).plan).toBe('explore');
    expect(await changesStatus(ctx.app, key)).toBe(403);
    // The genuine delivery still works afterwards.
    expect((await webhook(ctx.app, genuine)).json()).toEqual({ received: true, duplicate: false });
    expect((await me(ctx.app, key)).plan).toBe('growth');
  });

  it('a replayed event changes nothing a second time', async () => {
    const key = await createKey(ctx.t, 'explore');
    const { event, subscriptionId } = await buy(key);
    const requestsBefore = stripe.requests.length;
    const replay = await webhook(ctx.app, event);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    // Recognised before Stripe is even asked again.
    expect(stripe.requests.length).toBe(requestsBefore);

    // The subscription ends; a replay of the purchase must not bring the plan back.
    const ended = stripe.deleteSubscription(subscriptionId);
    stripe.updateSubscription(subscriptionId, { periodEnd: Math.floor(Date.now() / 1000) - 1 });
    expect((await webhook(ctx.app, ended)).json().duplicate).toBe(false);
    expect((await me(ctx.app, key)).plan).toBe('explore');
    const replayed = await webhook(ctx.app, { payload: event.payload, signature: stripe.sign(event.payload) });
    expect(replayed.json()).toEqual({ received: true, duplicate: true });
    expect((await me(ctx.app, key)).plan).toBe('explore');
    expect(await storedPlan(key.id)).toBe('explore');
    const rows = await ctx.t.db.selectFrom('billing_events').select(['event_id', 'event_type']).where('event_id', 'in', [event.id, ended.id]).execute();
    expect(rows).toHaveLength(2);
  });

  it('a renewal moves renews_or_expires on and keeps the plan', async () => {
    const key = await createKey(ctx.t, 'explore');
    const { subscriptionId } = await buy(key);
    const nextEnd = Math.floor(Date.now() / 1000) + 61 * 86_400;
    const renewal = stripe.updateSubscription(subscriptionId, { periodEnd: nextEnd });
    expect((await webhook(ctx.app, renewal)).statusCode).toBe(200);
    const after = await me(ctx.app, key);
    expect(after.plan).toBe('growth');
    expect(after.renews_or_expires).toBe(new Date(nextEnd * 1000).toISOString());
  });

  it('cancellation downgrades at the period end: paid until then, explore from then, without waiting for Stripe', async () => {
    const key = await createKey(ctx.t, 'explore');
    const { subscriptionId } = await buy(key);
    const periodEnd = Math.floor(Date.now() / 1000) + 3;
    const cancelled = stripe.updateSubscription(subscriptionId, { cancel_at_period_end: true, periodEnd });
    expect((await webhook(ctx.app, cancelled)).statusCode).toBe(200);
    const during = await me(ctx.app, key);
    expect(during.plan).toBe('growth');
    expect(during.renews_or_expires).toBe(new Date(periodEnd * 1000).toISOString());
    expect(await changesStatus(ctx.app, key)).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, periodEnd * 1000 + 100 - Date.now()));
    const after = await me(ctx.app, key);
    expect(after.plan).toBe('explore');
    expect(after.renews_or_expires).toBeNull();
    expect(await changesStatus(ctx.app, key)).toBe(403);

    // Stripe's final event at the period end writes the downgrade into the key row.
    expect(await storedPlan(key.id)).toBe('growth');
    expect((await webhook(ctx.app, stripe.deleteSubscription(subscriptionId))).statusCode).toBe(200);
    expect(await storedPlan(key.id)).toBe('explore');
    expect((await me(ctx.app, key)).plan).toBe('explore');
  });

  it('refuses checkouts that cannot be sold, with the catalogue\'s errors, and Stripe is never asked', async () => {
    const key = await createKey(ctx.t, 'explore');
    const other = await createKey(ctx.t, 'explore');
    const revoked = await createKey(ctx.t, 'explore');
    await revokeApiKey(ctx.t.db, revoked.id);
    const before = stripe.requests.length;
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [{ key_id: key.id, plan: 'explore' }, key.accountId, 422, 'bad_plan'],
      [{ key_id: key.id, plan: 'platinum' }, key.accountId, 422, 'bad_plan'],
      [{ key_id: key.id }, key.accountId, 400, 'bad_request'],
      [{ key_id: 'not-a-uuid', plan: 'growth' }, key.accountId, 404, 'not_found'],
      [{ key_id: other.id, plan: 'growth' }, key.accountId, 404, 'not_found'],
      [{ key_id: revoked.id, plan: 'growth' }, revoked.accountId, 409, 'key_not_purchasable'],
    ];
    for (const [body, account, status, code] of cases) {
      const res = await checkout(ctx.app, key, body, account);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().error).toBe(code);
    }
    const bad = await checkout(ctx.app, key, { key_id: key.id, plan: 'platinum' });
    expect(bad.json().message).toBe('there is no plan "platinum"; the plans on sale are growth, signal, scale (see /public/plans).');
    const anonymous = await ctx.app.inject({ method: 'POST', url: '/public/checkout', payload: { key_id: key.id, plan: 'growth' } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toBe('session_required');
    expect(stripe.requests.length).toBe(before);

    // A key a renewing subscription pays for cannot be sold a second one.
    await buy(key);
    const again = await checkout(ctx.app, key, { key_id: key.id, plan: 'signal' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/^Key jl_[a-z0-9]{8} already has a growth subscription that renews on \d{4}-\d{2}-\d{2}; cancel it first/);
  });

  it('takes an HTML form, and answers 503 with nothing changed when Stripe fails', async () => {
    const key = await createKey(ctx.t, 'explore');
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/public/checkout',
      headers: { 'x-test-account': key.accountId, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ key_id: key.id, plan: 'signal' }).toString(),
    });
    expect(form.statusCode).toBe(303);
    const event = stripe.pay(sessionOf(form.headers.location));
    stripe.failWith = 500;
    try {
      const failed = await checkout(ctx.app, key, { key_id: key.id, plan: 'growth' });
      expect(failed.statusCode).toBe(503);
      expect(failed.headers['retry-after']).toBe('30');
      expect(failed.json().error).toBe('unavailable');
      // The webhook cannot read the subscription back: 503, nothing recorded, so Stripe's retry counts.
      const hook = await webhook(ctx.app, event);
      expect(hook.statusCode).toBe(503);
      expect((await me(ctx.app, key)).plan).toBe('explore');
    } finally {
      stripe.failWith = undefined;
    }
    expect((await webhook(ctx.app, event)).json()).toEqual({ received: true, duplicate: false });
    expect((await me(ctx.app, key)).plan).toBe('signal');
  });
});
