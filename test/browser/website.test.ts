/**
 * The website in a real browser (issue 14 acceptance): Debian's Chromium driven by playwright-core
 * against the real app on loopback, e-mail through a real SMTP server on loopback, over a clone of the
 * imported real corpus. A person signs up (the ALTCHA widget solves its proof of work in the page),
 * follows the e-mailed link, creates an `explore` key, rotates it (old secret 401, new one works, usage
 * kept), revokes it (401), and confirms an employer opt-out whose live rows leave `/v1/jobs` and show as
 * `withdrawn` on `/v1/changes`.
 *
 * Without /usr/bin/chromium the file skips with a message, except in CI (CI=true), where it fails:
 * `.ci/run` installs Chromium first.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUnlimitedKey, bearer } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/ports.ts';
import { linkIn, startMailSink, testSiteOptions, type MailSink } from '../helpers/site.ts';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true') {
  throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium with apt-get).`);
}
if (!haveChromium) console.warn(`test/browser/website.test.ts skipped: ${CHROMIUM} is not installed (apt-get install chromium).`);

/** An employer of the corpus with live rows; its domain is what the opt-out names. */
const EMPLOYER = { company: 'ramp', domain: 'ramp.com', email: 'people@ramp.com' };

describe.skipIf(!haveChromium)('the website in a real browser', () => {
  let t: TestDatabase;
  let sink: MailSink;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    sink = await startMailSink();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp(t, { contract: false, site: testSiteOptions(sink, { siteUrl: base }) });
    await app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
    await t?.drop();
  });

  const api = (path: string, secret: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${secret}` } });

  /** Tick the ALTCHA box as a person would and wait until the widget's proof of work is done. */
  async function passHumanCheck(): Promise<void> {
    // The widget draws its own tick over the checkbox; a person clicks the label next to it.
    await page.locator('altcha-widget').getByText(/not a robot/i).click();
    await expect.poll(() => page.locator('altcha-widget input[type="hidden"][name="altcha"]').inputValue(), { timeout: 20_000 }).not.toBe('');
  }

  /** The secret shown once on the account page. */
  const shownSecret = () => page.locator('#secret').inputValue();

  it('signs up by e-mailed link, creates, rotates and revokes a key', async () => {
    const email = 'browser-user@example.org';
    await page.goto(`${base}/signin`);
    await page.getByLabel('E-mail address').fill(email);
    await passHumanCheck();
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/check your e-mail/i);

    const mail = await sink.waitFor(email, /sign-in link/);
    await page.goto(linkIn(mail, '/signin/verify'));
    await page.locator('form button[type="submit"]').click();
    await page.waitForURL(`${base}/account`);
    await expect.poll(() => page.locator('main').textContent()).toContain(email);

    await page.getByLabel('Name (optional)').fill('browser board');
    await page.getByRole('button', { name: 'Create an explore key' }).click();
    const first = await shownSecret();
    expect(first).not.toBe('');
    const me = await api('/v1/me', first);
    expect(me.status).toBe(200);
    const meBody = (await me.json()) as { plan: string; name: string; usage_today: number };
    expect(meBody).toMatchObject({ plan: 'explore', name: 'browser board' });
    const jobs = await api('/v1/jobs?limit=1', first);
    expect(jobs.status).toBe(200);
    const usageBefore = ((await (await api('/v1/me', first)).json()) as { usage_today: number }).usage_today;
    expect(usageBefore).toBeGreaterThan(0);

    await page.getByRole('button', { name: /^Rotate/ }).click();
    const second = await shownSecret();
    expect(second).not.toBe(first);
    expect((await api('/v1/me', first)).status).toBe(401);
    const rotated = await api('/v1/me', second);
    expect(rotated.status).toBe(200);
    const rotatedBody = (await rotated.json()) as { plan: string; usage_today: number };
    expect(rotatedBody.plan).toBe('explore');
    expect(rotatedBody.usage_today).toBeGreaterThanOrEqual(usageBefore);

    await page.getByRole('button', { name: /^Revoke/ }).click();
    await expect.poll(() => page.locator('table .status').first().textContent()).toBe('revoked');
    expect((await api('/v1/me', second)).status).toBe(401);
  });

  it('records an employer opt-out confirmed from an address at the domain: its rows leave /v1/jobs and are withdrawn on /v1/changes', async () => {
    // A key whose plan has the delta feed, made by the key service the way an operator would.
    const feedKey = await createUnlimitedKey(t);
    const since = new Date().toISOString();
    const served = async () => {
      const res = await fetch(`${base}/v1/jobs?company=${EMPLOYER.company}&limit=200`, { headers: bearer(feedKey) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { id: string }[] }).data.map((j) => j.id);
    };
    const before = await served();
    expect(before.length).toBeGreaterThan(0);

    await page.goto(`${base}/optout`);
    await page.getByLabel("Employer's domain").fill(EMPLOYER.domain);
    await page.getByLabel('Your e-mail address at that domain').fill(EMPLOYER.email);
    await passHumanCheck();
    await page.getByRole('button', { name: 'Send the confirmation link' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/check your e-mail/i);

    const mail = await sink.waitFor(EMPLOYER.email, /opt-out/i);
    await page.goto(linkIn(mail, '/optout/verify'));
    await page.getByRole('button', { name: 'Confirm the opt-out' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Opt-out recorded');
    await expect.poll(() => page.locator('main').textContent()).toContain(`${before.length} published postings were withdrawn`);

    expect(await served()).toEqual([]);
    const changes = new Map<string, string>();
    let cursor = since;
    for (;;) {
      const res = await fetch(`${base}/v1/changes?since=${encodeURIComponent(cursor)}&limit=200`, { headers: bearer(feedKey) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { count: number; data: { change: string; id: string }[]; next_since: string };
      if (body.count === 0) break;
      for (const c of body.data) changes.set(c.id, c.change);
      cursor = body.next_since;
    }
    for (const id of before) expect(changes.get(id), id).toBe('withdrawn');
  });
});
