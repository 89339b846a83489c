/**
 * The website in a real browser (issue 14 acceptance): Debian's Chromium driven by playwright-core
 * against the real app on loopback, e-mail through a real SMTP server on loopback, over a clone of the
 * imported real corpus. A person signs up (the ALTCHA widget solves its proof of work in the page),
 * follows the e-mailed link, creates an `explore` key, rotates it (old secret 401, new one works, usage
 * kept), revokes it (401), and confirms an employer opt-out whose live rows leave `/v1/jobs` and show as
 * `withdrawn` on `/v1/changes`.
 *
 * A second walk-through buys `growth` for the new key: the account page's upgrade form (a payment
 * provider configured), the loopback Stripe's hosted payment page, its signed webhook delivered to the
 * app; the page, `/v1/me`, the budget headers and `/v1/changes` then show the paid plan.
 *
 * With SITE_SCREENSHOTS=<dir>, the walk-throughs also save every page they see as PNGs at a desktop
 * and a narrow mobile width (for a person to look at; nothing is compared).
 *
 * Without /usr/bin/chromium the file skips with a message, except in CI (CI=true), where it fails:
 * `.ci/run` installs Chromium first.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Billing } from '../../src/billing/billing.ts';
import { StripeCheckout } from '../../src/billing/stripe-checkout.ts';
import { createUnlimitedKey, bearer } from '../helpers/app.ts';
import { chromiumFor, passHumanCheck, useChromium } from '../helpers/browser.ts';
import { linkIn, useSite, type MailSink } from '../helpers/site.ts';
import { StripeLoopback } from '../helpers/stripe.ts';

const haveChromium = chromiumFor('test/browser/website.test.ts');

/** Where screenshots go (SITE_SCREENSHOTS), or undefined: none are taken. */
const SHOTS = process.env.SITE_SCREENSHOTS;
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, mobile: { width: 390, height: 844 } } as const;

/** Save the page as `<name>-desktop.png` and `<name>-mobile.png` under SITE_SCREENSHOTS (full page). */
async function screenshot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Sign in as `email` the way a person does: the form, the human check, the e-mailed link, its button. */
async function signIn(page: Page, base: string, sink: MailSink, email: string, shots?: string): Promise<void> {
  await page.goto(`${base}/signin`);
  await page.getByLabel('E-mail address').fill(email);
  await passHumanCheck(page);
  if (shots) await screenshot(page, `${shots}-signin-verified`);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await expect.poll(() => page.locator('h1').textContent()).toMatch(/check your e-mail/i);
  if (shots) await screenshot(page, `${shots}-check-email`);

  const mail = await sink.waitFor(email, /sign-in link/);
  await page.goto(linkIn(mail, '/signin/verify'));
  if (shots) await screenshot(page, `${shots}-signin-link`);
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL(`${base}/account`);
  await expect.poll(() => page.locator('main').textContent()).toContain(email);
}

/** An employer of the corpus with live rows; its domain is what the opt-out names. */
const EMPLOYER = { company: 'ramp', domain: 'ramp.com', email: 'people@ramp.com' };

describe.skipIf(!haveChromium)('the website in a real browser', () => {
  const ctx = useSite({ corpus: true });
  const ui = useChromium();

  const api = (path: string, secret: string) => fetch(`${ctx.base}${path}`, { headers: { authorization: `Bearer ${secret}` } });

  /** The secret shown once on the account page. */
  const shownSecret = () => ui.page.locator('#secret').inputValue();

  it('signs up by e-mailed link, creates, rotates and revokes a key', async () => {
    const email = 'browser-user@example.org';
    await signIn(ui.page, ctx.base, ctx.sink, email, 'free');

    await ui.page.getByLabel('Name (optional)').fill('browser board');
    await ui.page.getByRole('button', { name: 'Create an explore key' }).click();
    const first = await shownSecret();
    expect(first).not.toBe('');
    await screenshot(ui.page, 'free-account-secret');
    const me = await api('/v1/me', first);
    expect(me.status).toBe(200);
    const meBody = (await me.json()) as { plan: string; name: string; usage_today: number };
    expect(meBody).toMatchObject({ plan: 'explore', name: 'browser board' });
    const jobs = await api('/v1/jobs?limit=1', first);
    expect(jobs.status).toBe(200);
    const usageBefore = ((await (await api('/v1/me', first)).json()) as { usage_today: number }).usage_today;
    expect(usageBefore).toBeGreaterThan(0);

    await ui.page.getByRole('button', { name: /^Rotate/ }).click();
    const second = await shownSecret();
    expect(second).not.toBe(first);
    expect((await api('/v1/me', first)).status).toBe(401);
    const rotated = await api('/v1/me', second);
    expect(rotated.status).toBe(200);
    const rotatedBody = (await rotated.json()) as { plan: string; usage_today: number };
    expect(rotatedBody.plan).toBe('explore');
    expect(rotatedBody.usage_today).toBeGreaterThanOrEqual(usageBefore);

    await ui.page.getByRole('button', { name: /^Revoke/ }).click();
    await expect.poll(() => ui.page.locator('table .status').first().textContent()).toBe('revoked');
    await screenshot(ui.page, 'free-account-revoked');
    expect((await api('/v1/me', second)).status).toBe(401);
  });

  it('records an employer opt-out confirmed from an address at the domain: its rows leave /v1/jobs and are withdrawn on /v1/changes', async () => {
    // A key whose plan has the delta feed, made by the key service the way an operator would.
    const feedKey = await createUnlimitedKey(ctx.t);
    const since = new Date().toISOString();
    const served = async () => {
      const res = await fetch(`${ctx.base}/v1/jobs?company=${EMPLOYER.company}&limit=200`, { headers: bearer(feedKey) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { id: string }[] }).data.map((j) => j.id);
    };
    const before = await served();
    expect(before.length).toBeGreaterThan(0);

    await ui.page.goto(`${ctx.base}/optout`);
    await screenshot(ui.page, 'optout');
    await ui.page.getByLabel("Employer's domain").fill(EMPLOYER.domain);
    await ui.page.getByLabel('Your e-mail address at that domain').fill(EMPLOYER.email);
    await passHumanCheck(ui.page);
    await ui.page.getByRole('button', { name: 'Send the confirmation link' }).click();
    await expect.poll(() => ui.page.locator('h1').textContent()).toMatch(/check your e-mail/i);

    const mail = await ctx.sink.waitFor(EMPLOYER.email, /opt-out/i);
    await ui.page.goto(linkIn(mail, '/optout/verify'));
    await ui.page.getByRole('button', { name: 'Confirm the opt-out' }).click();
    await expect.poll(() => ui.page.locator('h1').textContent()).toBe('Opt-out recorded');
    await expect.poll(() => ui.page.locator('main').textContent()).toContain(`${before.length} published postings were withdrawn`);
    await screenshot(ui.page, 'optout-recorded');

    expect(await served()).toEqual([]);
    const changes = new Map<string, string>();
    let cursor = since;
    for (;;) {
      const res = await fetch(`${ctx.base}/v1/changes?since=${encodeURIComponent(cursor)}&limit=200`, { headers: bearer(feedKey) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { count: number; data: { change: string; id: string }[]; next_since: string };
      if (body.count === 0) break;
      for (const c of body.data) changes.set(c.id, c.change);
      cursor = body.next_since;
    }
    for (const id of before) expect(changes.get(id), id).toBe('withdrawn');
  });
});

describe.skipIf(!haveChromium)('buying a plan in a real browser (a payment provider configured)', () => {
  let stripe: StripeLoopback;

  // Registered before useSite's hook, so the loopback runs before the app is built (hooks run in order).
  beforeAll(async () => {
    // Stripe's hosted page delivers its signed event to the app's webhook, as Stripe does, before it
    // sends the buyer back to the success page.
    stripe = await StripeLoopback.start({
      deliver: async (event) => {
        const res = await fetch(`${ctx.base}/public/checkout/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.payload });
        if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
      },
    });
  });
  afterAll(async () => {
    await stripe?.close();
  });
  const ctx = useSite({
    app: { billing: (db) => new Billing({ db: db.db, log: pino({ level: 'silent' }), provider: new StripeCheckout(stripe.settings()) }) },
  });
  const ui = useChromium(VIEWPORTS.desktop);

  const api = (path: string, secret: string) => fetch(`${ctx.base}${path}`, { headers: { authorization: `Bearer ${secret}` } });
  const planCell = () => ui.page.locator('table tbody tr').first().locator('td').nth(1);

  it('the pages a visitor sees before signing in', async () => {
    for (const [name, url, heading] of [
      ['home', '/', /Employer-direct job vacancies/],
      ['plans-signed-out', '/plans', /^Plans$/],
      ['optout-form', '/optout', /Employer opt-out/],
      ['contact', '/contact', /^Contact$/],
      ['signin', '/signin', /^Sign in$/],
    ] as const) {
      await ui.page.goto(`${ctx.base}${url}`);
      await expect.poll(() => ui.page.locator('h1').textContent()).toMatch(heading);
      await screenshot(ui.page, name);
    }
    await ui.page.goto(`${ctx.base}/plans`);
    await expect.poll(() => ui.page.locator('main').textContent()).toContain('buy a paid plan for your key');
    // A dead link: a readable page that says what happened and what to do.
    await ui.page.goto(`${ctx.base}/signin/verify?token=not-a-real-token`);
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => ui.page.getByRole('alert').textContent()).toContain('already used or expired');
    await screenshot(ui.page, 'error-link');
  });

  it('buys growth for a new key: upgrade form, Stripe\'s payment page, signed webhook; the page, /v1/me, the budget headers and /v1/changes show growth', async () => {
    const email = 'buyer@example.org';
    await signIn(ui.page, ctx.base, ctx.sink, email, 'buyer');
    await screenshot(ui.page, 'account-new');
    await ui.page.getByRole('button', { name: 'Create an explore key' }).click();
    const secret = await ui.page.locator('#secret').inputValue();
    expect(secret).not.toBe('');
    expect(((await (await api('/v1/me', secret)).json()) as { plan: string }).plan).toBe('explore');
    expect((await api('/v1/changes?since=2026-01-01T00:00:00Z', secret)).status).toBe(403);

    await ui.page.goto(`${ctx.base}/account`);
    await expect.poll(() => planCell().textContent()).toBe('explore');
    const form = ui.page.locator('form[action="/public/checkout"]');
    await expect.poll(() => form.count()).toBe(1);
    // The key to upgrade and the plan, chosen by label, as a keyboard or screen-reader user does.
    await screenshot(ui.page, 'account-key-created');
    expect(await ui.page.getByLabel('Key', { exact: true }).locator('option').count()).toBe(1);
    await ui.page.getByRole('radio', { name: /Growth/ }).check();
    await screenshot(ui.page, 'account-upgrade');
    await ui.page.goto(`${ctx.base}/plans`);
    await expect.poll(() => ui.page.locator('main').textContent()).toContain('your account page');
    await screenshot(ui.page, 'plans-signed-in');

    // Without JavaScript and by keyboard alone, the upgrade form still reaches the payment page: Tab
    // from the key to the plan group, an arrow key to the next plan, Tab to the button, Enter.
    const noScript = await ui.browser.newContext({ javaScriptEnabled: false, viewport: VIEWPORTS.desktop });
    try {
      await noScript.addCookies(await ui.page.context().cookies());
      const plain = await noScript.newPage();
      await plain.goto(`${ctx.base}/account`);
      await plain.getByLabel('Key', { exact: true }).focus();
      await plain.keyboard.press('Tab');
      await plain.keyboard.press('ArrowDown');
      expect(await plain.getByRole('radio', { name: /Signal/ }).isChecked()).toBe(true);
      await plain.keyboard.press('Tab');
      await plain.keyboard.press('Enter');
      await plain.waitForURL(new RegExp(`^${stripe.url}/c/pay/`));
      expect(await plain.locator('h1').textContent()).toBe('Subscribe: €299.00 per month');
    } finally {
      await noScript.close();
    }

    await ui.page.goto(`${ctx.base}/account`);
    await ui.page.getByRole('radio', { name: /Growth/ }).check();
    await ui.page.getByRole('button', { name: 'Continue to payment' }).click();
    await ui.page.waitForURL(new RegExp(`^${stripe.url}/c/pay/`));
    await expect.poll(() => ui.page.locator('h1').textContent()).toBe('Subscribe: €80.00 per month');
    await screenshot(ui.page, 'stripe-payment-page');
    await ui.page.getByRole('button', { name: /^Pay/ }).click();
    await ui.page.waitForURL(`${ctx.base}/account?checkout=success`);
    await expect.poll(() => planCell().textContent()).toMatch(/^growth renews \d{4}-\d{2}-\d{2}$/);
    await expect.poll(() => ui.page.locator('.notice').textContent()).toMatch(/payment/i);
    // The key's subscription renews: no second purchase is offered for it.
    expect(await ui.page.locator('form[action="/public/checkout"]').count()).toBe(0);
    await screenshot(ui.page, 'account-paid');

    const growth = await ctx.t.db.selectFrom('plans').select(['records_per_month', 'requests_per_minute']).where('id', '=', 'growth').executeTakeFirstOrThrow();
    const me = await api('/v1/me', secret);
    expect(me.status).toBe(200);
    const meBody = (await me.json()) as { plan: string; renews_or_expires: string | null };
    expect(meBody.plan).toBe('growth');
    expect(meBody.renews_or_expires).not.toBeNull();
    expect(me.headers.get('x-ratelimit-records-limit')).toBe(String(growth.records_per_month));
    expect(me.headers.get('x-ratelimit-limit')).toBe(String(growth.requests_per_minute));
    expect((await api('/v1/changes?since=2026-01-01T00:00:00Z', secret)).status).toBe(200);
  });
});
