/**
 * Direct submissions in a real browser (issue 17): Debian's Chromium driven by playwright-core against
 * the real app on loopback, e-mail through a real SMTP server on loopback. An employer fills the form
 * at /submit (the ALTCHA widget solves its proof of work in the page), sees "check your e-mail", opens
 * the e-mailed link, publishes, and the vacancy is served on /public/jobs with provider class `direct`;
 * the edit-or-close link from the second e-mail closes it. A bad apply URL gives the form back with
 * the message and the typed values, and marks the refused field: `aria-invalid`, `aria-describedby`
 * to its own copy of the message, focused (`autofocus`), drawn in the error colour, linked from an
 * error summary; the edit form does the same with JavaScript off. Screenshots of each page (1280 and
 * 390 px wide) go to `$SCREENSHOT_DIR` when it is set.
 *
 * Without /usr/bin/chromium the file skips with a message, except in CI (CI=true), where it fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubmissionDesk } from '../../src/ingest/submissions.ts';
import { buildTestApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/ports.ts';
import { linkIn, startMailSink, testSiteOptions, type MailSink } from '../helpers/site.ts';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true') {
  throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium with apt-get).`);
}
if (!haveChromium) console.warn(`test/browser/submissions.test.ts skipped: ${CHROMIUM} is not installed (apt-get install chromium).`);

const SHOTS = process.env.SCREENSHOT_DIR;

describe.skipIf(!haveChromium)('direct submissions in a real browser', () => {
  let t: TestDatabase;
  let sink: MailSink;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    sink = await startMailSink();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const site = testSiteOptions(sink, { siteUrl: base });
    const desk = new SubmissionDesk({ db: t.db, log: pino({ level: 'silent' }), mailer: site.mailer, siteUrl: base, linkTtlSeconds: site.linkTtlSeconds });
    app = await buildTestApp(t, { contract: false, site: { ...site, submissions: desk } });
    await app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
    await t?.drop();
  });

  /** Screenshots of the current page, desktop and narrow, when SCREENSHOT_DIR is set. */
  async function shoot(name: string): Promise<void> {
    if (!SHOTS) return;
    await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 800 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-narrow.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** Tick the ALTCHA box as a person would and wait until the widget's proof of work is done. */
  async function passHumanCheck(): Promise<void> {
    await page.locator('altcha-widget').getByText(/not a robot/i).click();
    await expect.poll(() => page.locator('altcha-widget input[type="hidden"][name="altcha"]').inputValue(), { timeout: 20_000 }).not.toBe('');
  }

  /**
   * The refused field `id` is marked as the only invalid one: `aria-invalid`, described by its own
   * copy of the message, focused, bordered in the error colour (var(--danger)) unlike a valid field,
   * and the error summary links to it.
   */
  async function expectMarked(on: Page, id: string, message: RegExp): Promise<void> {
    const field = on.locator(`#${id}`);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await field.getAttribute('aria-describedby')).toBe(`${id}-error`);
    expect(await on.locator(`#${id}-error`).textContent()).toMatch(message);
    expect(await on.locator('[aria-invalid]').count()).toBe(1);
    // The page has no DOM types here (Node's lib): the browser-side code is given as text.
    await expect.poll(() => on.evaluate<string>('document.activeElement ? document.activeElement.id : ""')).toBe(id);
    const border = (selector: string) => on.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).borderTopColor`);
    expect(await border(`#${id}`)).toBe('rgb(180, 35, 24)');
    expect(await border('#s-title')).not.toBe('rgb(180, 35, 24)');
    expect(await on.locator(`.error-summary a[href="#${id}"]`).count()).toBe(1);
  }

  async function fillVacancy(applyUrl: string): Promise<void> {
    await page.getByLabel('Job title').fill('Warehouse Team Lead');
    await page.getByLabel('Company name').fill('Northwind Logistics');
    await page.getByLabel('Location').fill('Rotterdam, Netherlands');
    await page.getByLabel('Employment type').selectOption('Full-time');
    await page.getByLabel('Workplace (optional)').selectOption('on_site');
    await page.getByLabel('Description').fill('Lead a team of twelve in our Rotterdam warehouse.\n\nForklift licence welcome; we train the rest.');
    await page.getByLabel('Apply URL').fill(applyUrl);
    await page.getByLabel('From').fill('42000');
    await page.getByLabel('To').fill('48000');
    await page.getByLabel('Currency').fill('EUR');
    await page.getByLabel('Per').selectOption('annual');
    await page.getByLabel('Company domain').fill('northwind-logistics.test');
    await page.getByLabel('Your e-mail address at that domain').fill('jobs@northwind-logistics.test');
  }

  it('submits the form, follows the e-mailed link and serves the vacancy as direct; closes it from the edit link', async () => {
    await page.goto(`${base}/submit`);
    await shoot('submit-form');

    // A bad apply URL: the form comes back with the message and everything typed.
    await fillVacancy('https://www.indeed.com/viewjob?jk=1');
    await passHumanCheck();
    await page.getByRole('button', { name: 'Send the verification link' }).click();
    await expect.poll(() => page.locator('#submit-error').textContent()).toMatch(/must be on northwind-logistics\.test/);
    expect(await page.getByLabel('Job title').inputValue()).toBe('Warehouse Team Lead');
    await expectMarked(page, 's-apply', /must be on northwind-logistics\.test/);
    // The page names the field by its label, as the form does (the JSON answer keeps the key).
    expect(await page.locator('#submit-error').textContent()).toMatch(/^“Apply URL” must be on/);
    // The summary links to the field: from the bottom of the page, the link brings it into view.
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await page.locator('.error-summary a[href="#s-apply"]').click();
    await expect.poll(async () => (await page.locator('#s-apply').boundingBox())!.y).toBeLessThan(900);
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot('submit-error');

    await page.getByLabel('Apply URL').fill('https://northwind-logistics.test/careers/team-lead');
    await passHumanCheck();
    await page.getByRole('button', { name: 'Send the verification link' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/check your e-mail/i);
    await shoot('submit-check-email');

    const mail = await sink.waitFor('jobs@northwind-logistics.test', /Verify your vacancy/);
    await page.goto(linkIn(mail, '/submit/verify'));
    await shoot('submit-verify');
    await page.getByRole('button', { name: 'Publish the vacancy' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/your vacancy is published/i);
    await shoot('submit-published');

    const listed = (await (await fetch(`${base}/public/jobs?provider=submissions`)).json()) as { data: Record<string, unknown>[] };
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      title: 'Warehouse Team Lead',
      company: 'Northwind Logistics',
      provider_type: 'direct',
      source_type: 'career_site',
      source: 'submissions',
      country: 'NL',
      remote: 'on_site',
      salary_min: 42000,
      apply_url: 'https://northwind-logistics.test/careers/team-lead',
    });
    const jobId = listed.data[0]!.id as string;

    const published = await sink.waitFor('jobs@northwind-logistics.test', /is published/);

    // The edit form marks a refused field too, with JavaScript off (the edit form has no proof of work).
    const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    try {
      const plain = await noScript.newPage();
      await plain.goto(linkIn(published, '/submit/manage'));
      await plain.getByLabel('Apply URL').fill('https://jobs.example.net/team-lead');
      await plain.getByRole('button', { name: 'Save the changes' }).click();
      await expect.poll(() => plain.locator('#submit-error').textContent()).toMatch(/must be on northwind-logistics\.test/);
      await expectMarked(plain, 's-apply', /must be on northwind-logistics\.test/);
      expect(await plain.locator('.error-summary h2').textContent()).toBe('The changes were not saved');
      if (SHOTS) {
        await plain.screenshot({ path: path.join(SHOTS, 'submit-manage-error-nojs-desktop.png'), fullPage: true });
        await plain.setViewportSize({ width: 390, height: 800 });
        await plain.screenshot({ path: path.join(SHOTS, 'submit-manage-error-nojs-narrow.png'), fullPage: true });
      }
    } finally {
      await noScript.close();
    }

    await page.goto(linkIn(published, '/submit/manage'));
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/your vacancy/i);
    await shoot('submit-manage');
    await page.getByRole('button', { name: /Close the vacancy/ }).click();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/vacancy closed/i);
    await shoot('submit-closed');
    expect((await fetch(`${base}/public/jobs/${jobId}`)).status).toBe(404);
    const after = (await (await fetch(`${base}/public/jobs?provider=submissions`)).json()) as { data: unknown[] };
    expect(after.data).toEqual([]);
  });
});
