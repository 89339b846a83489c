/**
 * The website's form routes over real HTTP (issue 14): sign-in by e-mailed link through a real SMTP
 * server on loopback, key self-service, subscriptions and the contact form, and every refusal: no
 * enumeration, single-use and expiring links, another account's key, an API key on the key routes,
 * missing CSRF and ALTCHA, forged sessions, malformed and oversized input — each changing nothing.
 * (The real-browser walk-through is test/browser/website.test.ts.)
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Billing } from '../src/billing/billing.ts';
import { StripeCheckout } from '../src/billing/stripe-checkout.ts';
import { buildTestApp, TEST_DOCS_URL } from './helpers/app.ts';
import { linkIn, listenSite, SiteClient, useSite, type ListeningSite } from './helpers/site.ts';
import { StripeLoopback } from './helpers/stripe.ts';
import { tampered } from './helpers/tamper.ts';

const ctx = useSite();
// The same site with links that live one second: expiry on a real clock.
let short: ListeningSite;
beforeAll(async () => {
  short = await listenSite(ctx.t, ctx.sink, { site: { linkTtlSeconds: 1 } });
});
afterAll(async () => {
  await short?.app.close();
});

const count = async (table: 'accounts' | 'api_keys' | 'email_tokens' | 'web_sessions' | 'subscriptions' | 'contact_messages') =>
  Number((await ctx.t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

/** The `error` code of an error body. */
async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

/** Ask for a sign-in link as an API caller and return the token from the delivered e-mail. */
async function requestLink(client: SiteClient, email: string): Promise<string> {
  const before = ctx.sink.messages.length;
  const res = await client.request('POST', '/public/auth/request', { json: { email, altcha: await client.altcha() }, headers: { 'csrf-token': await client.csrf() } });
  expect(res.status).toBe(202);
  const mail = await ctx.sink.waitFor(email, /sign-in link/);
  expect(ctx.sink.messages.length).toBe(before + 1);
  ctx.sink.messages.splice(ctx.sink.messages.indexOf(mail), 1);
  return new URL(linkIn(mail, '/signin/verify')).searchParams.get('token')!;
}

/** A signed-in client for `email`. */
async function signedIn(email: string, on = ctx.base): Promise<SiteClient> {
  const client = new SiteClient(on);
  const token = await requestLink(client, email);
  const res = await client.request('POST', '/public/auth/verify', { json: { token }, headers: { 'csrf-token': await client.csrf() } });
  expect(res.status).toBe(200);
  return client;
}

describe('sign-in by e-mailed link', () => {
  it('answers the same whether or not the address has an account, and creates none before the link is used', async () => {
    await signedIn('known@example.org');
    const accounts = await count('accounts');
    const answers = [];
    for (const email of ['known@example.org', 'nobody-here@example.org']) {
      const client = new SiteClient(ctx.base);
      const res = await client.request('POST', '/public/auth/request', { json: { email, altcha: await client.altcha() }, headers: { 'csrf-token': await client.csrf() } });
      answers.push({ status: res.status, body: await res.text(), type: res.headers.get('content-type') });
      await ctx.sink.waitFor(email, /sign-in link/);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(202);
    expect(await count('accounts')).toBe(accounts);
  });

  it('sends a link that works once: the session cookie is signed, HttpOnly, SameSite=Lax and bounded; a reuse is refused', async () => {
    const client = new SiteClient(ctx.base);
    const token = await requestLink(client, 'once@example.org');
    const stored = await ctx.t.db.selectFrom('email_tokens').select(['token_hash']).where('email', '=', 'once@example.org').execute();
    expect(stored.every((r) => !r.token_hash.toString('utf8').includes(token))).toBe(true);
    const csrf = await client.csrf();
    const first = await client.request('POST', '/public/auth/verify', { json: { token }, headers: { 'csrf-token': csrf } });
    expect(first.status).toBe(200);
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith('jl_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Expires=/i);
    expect(cookie).not.toMatch(/Secure/i); // plain HTTP site URL
    const sessionBefore = client.cookies.get('jl_session');
    const again = await client.request('POST', '/public/auth/verify', { json: { token }, headers: { 'csrf-token': csrf } });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'link_invalid', message: expect.stringContaining('already used or expired'), docs: `${TEST_DOCS_URL}#link_invalid` });
    expect(client.cookies.get('jl_session')).toBe(sessionBefore);
  });

  it('rotates the session id at sign-in', async () => {
    const client = await signedIn('rotate-session@example.org');
    const first = client.cookies.get('jl_session');
    const token = await requestLink(client, 'rotate-session@example.org');
    await client.request('POST', '/public/auth/verify', { json: { token }, headers: { 'csrf-token': await client.csrf() } });
    expect(client.cookies.get('jl_session')).not.toBe(first);
  });

  it('refuses a link after its lifetime (a real one-second expiry)', async () => {
    const client = new SiteClient(short.base);
    const token = await requestLink(client, 'late@example.org');
    await new Promise((r) => setTimeout(r, 1500));
    const res = await client.request('POST', '/public/auth/verify', { json: { token }, headers: { 'csrf-token': await client.csrf() } });
    expect(res.status).toBe(400);
    expect((await codeOf(res))).toBe('link_invalid');
    expect(client.cookies.has('jl_session')).toBe(false);
  });

  it('refuses a missing or reused ALTCHA, a missing CSRF token and a malformed address, sending nothing', async () => {
    const client = new SiteClient(ctx.base);
    const csrf = await client.csrf();
    const sent = ctx.sink.messages.length;
    const tokens = await count('email_tokens');
    const noAltcha = await client.request('POST', '/public/auth/request', { json: { email: 'x@example.org' }, headers: { 'csrf-token': csrf } });
    expect(noAltcha.status).toBe(403);
    expect((await codeOf(noAltcha))).toBe('verification_failed');
    const altcha = await client.altcha();
    const noCsrf = await client.request('POST', '/public/auth/request', { json: { email: 'x@example.org', altcha } });
    expect(noCsrf.status).toBe(403);
    expect((await codeOf(noCsrf))).toBe('csrf_failed');
    const badEmail = await client.request('POST', '/public/auth/request', { json: { email: 'not an address', altcha }, headers: { 'csrf-token': csrf } });
    expect(badEmail.status).toBe(422);
    expect((await codeOf(badEmail))).toBe('bad_email');
    // The payload was spent by the request above (verified before the address was read).
    const reused = await client.request('POST', '/public/auth/request', { json: { email: 'x@example.org', altcha }, headers: { 'csrf-token': csrf } });
    expect(reused.status).toBe(403);
    expect((await codeOf(reused))).toBe('verification_failed');
    expect(ctx.sink.messages.length).toBe(sent);
    expect(await count('email_tokens')).toBe(tokens);
  });

  it('limits the e-mails to one address (5 an hour), answering the same for every address', async () => {
    const client = new SiteClient(ctx.base);
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const res = await client.request('POST', '/public/auth/request', { json: { email: 'flood@example.org', altcha: await client.altcha() }, headers: { 'csrf-token': await client.csrf() } });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
  });

  it('signs out: the session row is deleted, so a copied cookie is dead too', async () => {
    const client = await signedIn('signout@example.org');
    const copied = client.cookies.get('jl_session')!;
    const out = await client.request('POST', '/public/auth/signout', { json: {}, headers: { 'csrf-token': await client.csrf() } });
    expect(out.status).toBe(200);
    const thief = new SiteClient(ctx.base);
    thief.cookies.set('jl_session', copied);
    const res = await thief.request('POST', '/public/auth/keys', { json: {}, headers: { 'csrf-token': await thief.csrf() } });
    expect(res.status).toBe(401);
    expect((await codeOf(res))).toBe('session_required');
  });
});

describe('key self-service', () => {
  it('creates one free explore key with its secret shown once, which /v1/me accepts', async () => {
    const client = await signedIn('keys@example.org');
    const csrf = await client.csrf();
    const res = await client.request('POST', '/public/auth/keys', { json: { name: 'my board' }, headers: { 'csrf-token': csrf } });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; key_prefix: string; plan: string; secret: string };
    expect(created.plan).toBe('explore');
    const me = await fetch(`${ctx.base}/v1/me`, { headers: { authorization: `Bearer ${created.secret}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ plan: 'explore', key_prefix: created.key_prefix, name: 'my board' });
    const second = await client.request('POST', '/public/auth/keys', { json: {}, headers: { 'csrf-token': csrf } });
    expect(second.status).toBe(409);
    expect((await codeOf(second))).toBe('free_key_taken');
    const row = await ctx.t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.secret_hash.toString('hex')).not.toContain(Buffer.from(created.secret).toString('hex'));
  });

  it('never lets one account touch another account\'s key, nor an API key or a forged session manage keys', async () => {
    const owner = await signedIn('owner@example.org');
    const created = (await (await owner.request('POST', '/public/auth/keys', { json: {}, headers: { 'csrf-token': await owner.csrf() } })).json()) as { id: string; secret: string };
    const before = await ctx.t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const other = await signedIn('intruder@example.org');
    const csrf = await other.csrf();
    for (const action of ['rotate', 'revoke', 'name']) {
      const res = await other.request('POST', `/public/auth/keys/${created.id}/${action}`, { json: { name: 'mine now' }, headers: { 'csrf-token': csrf } });
      expect(res.status, action).toBe(404);
      expect((await codeOf(res))).toBe('not_found');
    }
    // An API key (even the key's own) is never read by the key routes.
    const apiCaller = new SiteClient(ctx.base);
    const apiCsrf = await apiCaller.csrf();
    for (const path of ['/public/auth/keys', `/public/auth/keys/${created.id}/rotate`, `/public/auth/keys/${created.id}/revoke`]) {
      const res = await apiCaller.request('POST', path, { json: {}, headers: { authorization: `Bearer ${created.secret}`, 'csrf-token': apiCsrf } });
      expect(res.status, path).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'session_required', message: expect.stringContaining('an API key cannot manage keys'), docs: `${TEST_DOCS_URL}#session_required` });
    }
    // A forged session cookie (an id with a made-up signature) is no session.
    const forger = new SiteClient(ctx.base);
    const forgedCsrf = await forger.csrf();
    forger.cookies.set('jl_session', `${owner.cookies.get('jl_session')!.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    const forged = await forger.request('POST', `/public/auth/keys/${created.id}/revoke`, { json: {}, headers: { 'csrf-token': forgedCsrf } });
    expect(forged.status).toBe(401);
    // The owner's session without the CSRF token is refused too.
    const noCsrf = await owner.request('POST', `/public/auth/keys/${created.id}/revoke`, { json: {} });
    expect(noCsrf.status).toBe(403);
    expect((await codeOf(noCsrf))).toBe('csrf_failed');
    expect(await ctx.t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()).toEqual(before);
    expect((await fetch(`${ctx.base}/v1/me`, { headers: { authorization: `Bearer ${created.secret}` } })).status).toBe(200);
  });

  it('rotates (old secret 401, new works, usage kept), renames, and revokes for good with the row kept', async () => {
    const client = await signedIn('lifecycle@example.org');
    const csrf = await client.csrf();
    const created = (await (await client.request('POST', '/public/auth/keys', { json: {}, headers: { 'csrf-token': csrf } })).json()) as { id: string; secret: string };
    await fetch(`${ctx.base}/v1/jobs?limit=1`, { headers: { authorization: `Bearer ${created.secret}` } });
    const usedBefore = ((await (await fetch(`${ctx.base}/v1/me`, { headers: { authorization: `Bearer ${created.secret}` } })).json()) as { usage_today: number }).usage_today;
    const rotated = (await (await client.request('POST', `/public/auth/keys/${created.id}/rotate`, { json: {}, headers: { 'csrf-token': csrf } })).json()) as { id: string; secret: string };
    expect(rotated.id).toBe(created.id);
    expect((await fetch(`${ctx.base}/v1/me`, { headers: { authorization: `Bearer ${created.secret}` } })).status).toBe(401);
    const me = (await (await fetch(`${ctx.base}/v1/me`, { headers: { authorization: `Bearer ${rotated.secret}` } })).json()) as { usage_today: number; plan: string };
    expect(me.plan).toBe('explore');
    expect(me.usage_today).toBe(usedBefore + 1);
    const renamed = await client.request('POST', `/public/auth/keys/${created.id}/name`, { json: { name: 'x'.repeat(81) }, headers: { 'csrf-token': csrf } });
    expect(renamed.status).toBe(422);
    expect((await codeOf(renamed))).toBe('bad_input');
    const revoked = await client.request('POST', `/public/auth/keys/${created.id}/revoke`, { json: {}, headers: { 'csrf-token': csrf } });
    expect(revoked.status).toBe(200);
    expect((await fetch(`${ctx.base}/v1/me`, { headers: { authorization: `Bearer ${rotated.secret}` } })).status).toBe(401);
    const row = await ctx.t.db.selectFrom('api_keys').select(['status', 'revoked_at']).where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('revoked');
    const again = await client.request('POST', `/public/auth/keys/${created.id}/rotate`, { json: {}, headers: { 'csrf-token': csrf } });
    expect(again.status).toBe(409);
    expect((await codeOf(again))).toBe('key_not_active');
  });

  it('refuses an oversized body and an unsupported media type, changing nothing', async () => {
    const client = await signedIn('big@example.org');
    const keys = await count('api_keys');
    const big = await client.request('POST', '/public/auth/keys', { json: { name: 'x'.repeat(20_000) }, headers: { 'csrf-token': await client.csrf() } });
    expect(big.status).toBe(413);
    expect((await codeOf(big))).toBe('payload_too_large');
    const text = await client.request('POST', '/public/auth/keys', { headers: { 'content-type': 'text/plain', 'csrf-token': await client.csrf() }, body: 'name=plain' });
    expect(text.status).toBe(415);
    expect(await count('api_keys')).toBe(keys);
  });

  it('answers a browser\'s form post with a readable page, errors included', async () => {
    const client = await signedIn('browser@example.org');
    const res = await client.request('POST', '/public/auth/keys', { form: { _csrf: 'wrong' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('security token is missing or wrong');
    const page = await client.request('POST', '/public/auth/keys', { form: { _csrf: await client.csrf(), name: 'from a form' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/jl_[a-z0-9]{8}_[A-Za-z0-9_-]{43}/);
    expect(html).toContain('it is shown once');
    const account = await (await client.request('GET', '/account')).text();
    expect(account).not.toMatch(/jl_[a-z0-9]{8}_[A-Za-z0-9_-]{43}/);
    expect(account).toContain('from a form');
  });
});

describe('subscriptions and the contact form', () => {
  it('subscribes only after the e-mailed confirmation, and unsubscribes with the signed link without signing in', async () => {
    const client = new SiteClient(ctx.base);
    const res = await client.request('POST', '/public/subscribe', { json: { email: 'news@example.org', altcha: await client.altcha() }, headers: { 'csrf-token': await client.csrf() } });
    expect(res.status).toBe(202);
    const status = async () => (await ctx.t.db.selectFrom('subscriptions').select('status').where('email', '=', 'news@example.org').executeTakeFirst())?.status;
    expect(await status()).toBe('pending');
    const mail = await ctx.sink.waitFor('news@example.org', /Confirm your subscription/);
    expect(JSON.stringify(mail.headers.get('list'))).toContain('/unsubscribe?token=');
    const confirm = new URL(linkIn(mail, '/subscribe/confirm')).searchParams.get('token')!;
    const csrf = await client.csrf();
    expect((await client.request('POST', '/public/subscribe/confirm', { json: { token: confirm }, headers: { 'csrf-token': csrf } })).status).toBe(200);
    expect(await status()).toBe('confirmed');
    const unsubscribe = new URL(linkIn(mail, '/unsubscribe')).searchParams.get('token')!;
    expect((await client.request('POST', '/public/unsubscribe', { json: { token: tampered(unsubscribe) }, headers: { 'csrf-token': csrf } })).status).toBe(400);
    expect(await status()).toBe('confirmed');
    const stranger = new SiteClient(ctx.base);
    expect((await stranger.request('POST', '/public/unsubscribe', { json: { token: unsubscribe }, headers: { 'csrf-token': await stranger.csrf() } })).status).toBe(200);
    expect(await status()).toBe('unsubscribed');
  });

  it('stores a contact message and e-mails it to the operator, with the visitor as Reply-To', async () => {
    const client = new SiteClient(ctx.base);
    const res = await client.request('POST', '/public/contact', {
      json: { email: 'visitor@example.org', name: 'Ada', message: 'Your feed is missing Acme.', altcha: await client.altcha() },
      headers: { 'csrf-token': await client.csrf() },
    });
    expect(res.status).toBe(201);
    const mail = await ctx.sink.waitFor('operator@jobledger.test', /contact/);
    expect(mail.text).toContain('Your feed is missing Acme.');
    expect(JSON.stringify(mail.headers.get('reply-to'))).toContain('visitor@example.org');
    const row = await ctx.t.db.selectFrom('contact_messages').selectAll().where('email', '=', 'visitor@example.org').executeTakeFirstOrThrow();
    expect(row.mailed_at).not.toBeNull();
    const empty = await client.request('POST', '/public/contact', { json: { email: 'visitor@example.org', message: ' ', altcha: await client.altcha() }, headers: { 'csrf-token': await client.csrf() } });
    expect(empty.status).toBe(422);
    expect(await count('contact_messages')).toBe(1);
  });
});

describe('every state-changing form and the https cookie rules', () => {
  let stripe: StripeLoopback;
  let https: ListeningSite;

  // A site whose public URL is https (behind a TLS proxy) and that sells plans through the Stripe loopback.
  beforeAll(async () => {
    stripe = await StripeLoopback.start();
    https = await listenSite(ctx.t, ctx.sink, {
      site: { siteUrl: 'https://jobs.example.test' },
      app: { billing: (db) => new Billing({ db: db.db, log: pino({ level: 'silent' }), provider: new StripeCheckout(stripe.settings()) }) },
    });
  });
  afterAll(async () => {
    await https?.app.close();
    await stripe?.close();
  });

  it('marks the session and CSRF cookies Secure and sends HSTS when JOBLEDGER_SITE_URL is https (and neither over plain HTTP)', async () => {
    const plain = new SiteClient(ctx.base);
    const plainCsrf = await plain.request('GET', '/site/csrf-token');
    expect(plainCsrf.headers.getSetCookie().find((c) => c.startsWith('jl_csrf='))).not.toMatch(/;\s*Secure/i);
    expect(plainCsrf.headers.get('strict-transport-security')).toBeNull();

    const client = new SiteClient(https.base);
    const csrfRes = await client.request('GET', '/site/csrf-token');
    expect(csrfRes.headers.getSetCookie().find((c) => c.startsWith('jl_csrf='))).toMatch(/;\s*Secure/i);
    expect(csrfRes.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    const token = await requestLink(client, 'secure@example.org');
    const res = await client.request('POST', '/public/auth/verify', { json: { token }, headers: { 'csrf-token': await client.csrf() } });
    expect(res.status).toBe(200);
    const session = res.headers.getSetCookie().find((c) => c.startsWith('jl_session='));
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
  });

  it('refuses every state-changing form without its CSRF token, even signed in, changing nothing', async () => {
    const client = await signedIn('csrf-everywhere@example.org', https.base);
    const created = (await (await client.request('POST', '/public/auth/keys', { json: {}, headers: { 'csrf-token': await client.csrf() } })).json()) as { id: string };
    const keyRow = () => ctx.t.db.selectFrom('api_keys').select(['secret_hash', 'status', 'name', 'plan_id']).where('id', '=', created.id).executeTakeFirstOrThrow();
    const before = await keyRow();
    const tables = async () => Promise.all([count('accounts'), count('api_keys'), count('email_tokens'), count('subscriptions'), count('contact_messages')]);
    const counted = await tables();
    const sent = ctx.sink.messages.length;
    const altcha = await client.altcha();
    const forms: Array<[string, Record<string, string>]> = [
      ['/public/auth/request', { email: 'x@example.org', altcha }],
      ['/public/auth/verify', { token: 'x' }],
      ['/public/auth/signout', {}],
      ['/public/auth/keys', {}],
      [`/public/auth/keys/${created.id}/rotate`, {}],
      [`/public/auth/keys/${created.id}/revoke`, {}],
      [`/public/auth/keys/${created.id}/name`, { name: 'forged' }],
      ['/public/optout/request', { domain: 'example.org', email: 'hr@example.org', altcha }],
      ['/public/optout/verify', { token: 'x' }],
      ['/public/subscribe', { email: 'x@example.org', altcha }],
      ['/public/subscribe/confirm', { token: 'x' }],
      ['/public/unsubscribe', { token: 'x' }],
      ['/public/contact', { email: 'x@example.org', message: 'hello', altcha }],
      ['/public/checkout', { key_id: created.id, plan: 'growth' }],
    ];
    for (const [path, form] of forms) {
      // A browser's form post (answered with a page) and an API caller's JSON, both without the token.
      const page = await client.request('POST', path, { form });
      expect(page.status, path).toBe(403);
      expect(await page.text(), path).toContain('security token');
      const json = await client.request('POST', path, { json: form });
      expect(json.status, path).toBe(403);
      expect(await codeOf(json), path).toBe('csrf_failed');
    }
    expect(await keyRow()).toEqual(before);
    expect(await tables()).toEqual(counted);
    expect(ctx.sink.messages.length).toBe(sent);
    expect(stripe.requests).toEqual([]);
    // Still signed in (sign-out was refused), and with the token the checkout goes to Stripe.
    const checkout = await client.request('POST', '/public/checkout', { json: { key_id: created.id, plan: 'growth' }, headers: { 'csrf-token': await client.csrf() } });
    expect(checkout.status).toBe(303);
    expect(checkout.headers.get('location')).toMatch(new RegExp(`^${stripe.url}/c/pay/`));
  });

  it('documents POST /public/checkout in the OpenAPI document the same with or without the website, and none of the site\'s own routes', async () => {
    const plain = await buildTestApp(ctx.t, { contract: false });
    try {
      const paths = async (on: FastifyInstance) => ((await on.inject({ url: '/public/openapi.json' })).json() as { paths: Record<string, unknown> }).paths;
      const [withSite, withoutSite] = [await paths(ctx.app), await paths(plain)];
      expect(withSite['/public/checkout']).toBeDefined();
      expect(withSite['/public/checkout']).toEqual(withoutSite['/public/checkout']);
      expect(withSite['/public/checkout/webhook']).toEqual(withoutSite['/public/checkout/webhook']);
      expect(Object.keys(withSite).sort()).toEqual(Object.keys(withoutSite).sort());
      expect(Object.keys(withSite).filter((p) => /auth|optout|subscribe|contact|signin|account/.test(p))).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
