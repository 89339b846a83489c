/**
 * Direct submissions in a real browser (issue 17): Debian's Chromium driven by playwright-core against
 * the real app on loopback, e-mail through a real SMTP server on loopback. An employer fills the form
 * at /submit (the ALTCHA widget solves its proof of work in the page), sees "check your e-mail", opens
 * the e-mailed link, publishes, and the vacancy is served on /public/jobs with provider class `direct`;
 * the edit-or-close link from the second e-mail closes it. A bad apply URL gives the form back with
 * the message and the typed values, and marks the refused field: `aria-invalid`, `aria-describedby`
 * to its own copy of the message, drawn in the error colour, linked from an error summary that has
 * the focus (`autofocus`); the edit form does the same with JavaScript off. A form with several wrong
 * fields shows them all at once: one summary link and one marked field each. Screenshots of each page (1280 and
 * 390 px wide) go to `$SCREENSHOT_DIR` when it is set.
 *
 * Without /usr/bin/chromium the file skips with a message, except in CI (CI=true), where it fails.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { chromiumFor, passHumanCheck, useChromium } from '../helpers/browser.ts';
import { linkIn, useSite } from '../helpers/site.ts';

const haveChromium = chromiumFor('test/browser/submissions.test.ts');

const SHOTS = process.env.SCREENSHOT_DIR;

/** The focused element, as text the page evaluates: its id, or its class when it has none. */
const ACTIVE = 'document.activeElement ? document.activeElement.id || document.activeElement.className : ""';

describe.skipIf(!haveChromium)('direct submissions in a real browser', () => {
  const ctx = useSite({ submissions: true });
  const ui = useChromium({ width: 1280, height: 900 });

  beforeAll(() => {
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });

  /** Screenshots of the current page, desktop and narrow, when SCREENSHOT_DIR is set. */
  async function shoot(name: string): Promise<void> {
    if (!SHOTS) return;
    await ui.page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
    await ui.page.setViewportSize({ width: 390, height: 800 });
    await ui.page.screenshot({ path: path.join(SHOTS, `${name}-narrow.png`), fullPage: true });
    await ui.page.setViewportSize({ width: 1280, height: 900 });
  }

  /**
   * The refused field `id` is marked as the only invalid one: `aria-invalid`, described by its own
   * copy of the message, bordered in the error colour (var(--danger)) unlike a valid field, and the
   * error summary, which has the focus, links to it.
   */
  async function expectMarked(on: Page, id: string, message: RegExp): Promise<void> {
    const field = on.locator(`#${id}`);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await field.getAttribute('aria-describedby')).toBe(`${id}-error`);
    expect(await on.locator(`#${id}-error`).textContent()).toMatch(message);
    expect(await on.locator('[aria-invalid]').count()).toBe(1);
    // The page has no DOM types here (Node's lib): the browser-side code is given as text.
    await expect.poll(() => on.evaluate<string>(ACTIVE)).toBe('error-summary');
    const border = (selector: string) => on.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).borderTopColor`);
    expect(await border(`#${id}`)).toBe('rgb(180, 35, 24)');
    expect(await border('#s-title')).not.toBe('rgb(180, 35, 24)');
    expect(await on.locator(`.error-summary a[href="#${id}"]`).count()).toBe(1);
  }

  async function fillVacancy(applyUrl: string): Promise<void> {
    await ui.page.getByLabel('Job title').fill('Warehouse Team Lead');
    await ui.page.getByLabel('Company name').fill('Northwind Logistics');
    await ui.page.getByLabel('Location').fill('Rotterdam, Netherlands');
    await ui.page.getByLabel('Employment type').selectOption('Full-time');
    await ui.page.getByLabel('Workplace (optional)').selectOption('on_site');
    await ui.page.getByLabel('Description').fill('Lead a team of twelve in our Rotterdam warehouse.\n\nForklift licence welcome; we train the rest.');
    await ui.page.getByLabel('Apply URL').fill(applyUrl);
    await ui.page.getByLabel('From').fill('42000');
    await ui.page.getByLabel('To').fill('48000');
    await ui.page.getByLabel('Currency').fill('EUR');
    await ui.page.getByLabel('Per').selectOption('annual');
    await ui.page.getByLabel('Company domain').fill('northwind-logistics.test');
    await ui.page.getByLabel('Your e-mail address at that domain').fill('jobs@northwind-logistics.test');
  }

  it('shows every refused field at once: the summary links to each, each field is marked and keeps what was typed', async () => {
    await ui.page.goto(`${ctx.base}/submit`);
    await fillVacancy('not a url');
    // A one-letter title is accepted (a title has no least length); company, location and company domain are emptied.
    await ui.page.getByLabel('Job title').fill('x');
    await ui.page.getByLabel('Company name').fill('');
    await ui.page.getByLabel('Location').fill('');
    await ui.page.getByLabel('From').fill('lots');
    await ui.page.getByLabel('Company domain').fill('');
    // The browser's own checks would stop at the first empty required field: the server's are under test.
    await ui.page.evaluate('document.querySelector(\'form[action="/public/submissions"]\').noValidate = true');
    await passHumanCheck(ui.page);
    await ui.page.getByRole('button', { name: 'Send the verification link' }).click();
    await expect.poll(() => ui.page.title()).toBe('Error: Post a vacancy · jobledger');

    const expected: [id: string, message: RegExp][] = [
      ['s-company', /^“Company name” is required, e\.g\. Example Ltd\.$/],
      ['s-location', /^“Location” is required/],
      ['s-apply', /^“Apply URL” must be the full address of your application page/],
      ['s-salary-min', /^“Salary from” must be a positive amount/],
      ['s-domain', /^“Company domain” must be the employer's domain name/],
    ];
    const links = ui.page.locator('.error-summary li a');
    expect(await ui.page.evaluate<string[]>('[...document.querySelectorAll(".error-summary li a")].map((a) => a.getAttribute("href"))')).toEqual(expected.map(([id]) => `#${id}`));
    const texts = await links.allTextContents();
    expect(texts).toHaveLength(expected.length);
    expected.forEach(([, message], i) => expect(texts[i]).toMatch(message));
    expect(await ui.page.locator('[aria-invalid]').count()).toBe(expected.length);
    for (const [i, [id]] of expected.entries()) {
      const field = ui.page.locator(`#${id}`);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.getAttribute('aria-describedby')).toBe(`${id}-error`);
      // Its own message, next to it, the same words as the summary's link (read out as "Error: ...").
      const own = ui.page.locator(`#${id}-error`);
      expect(await own.isVisible()).toBe(true);
      expect(await own.textContent()).toBe(`Error: ${texts[i]}`);
      expect(await ui.page.evaluate<string>(`getComputedStyle(document.getElementById(${JSON.stringify(id)})).borderTopColor`)).toBe('rgb(180, 35, 24)');
    }
    // The page opens on the summary (focused, at the top), whatever the screen's height.
    await expect.poll(() => ui.page.evaluate<string>(ACTIVE)).toBe('error-summary');
    expect(await ui.page.evaluate<number>('window.scrollY')).toBe(0);
    // What was typed is kept.
    expect(await ui.page.getByLabel('Job title').inputValue()).toBe('x');
    expect(await ui.page.getByLabel('Apply URL').inputValue()).toBe('not a url');
    expect(await ui.page.getByLabel('From').inputValue()).toBe('lots');
    expect(await ui.page.getByLabel('Your e-mail address at that domain').inputValue()).toBe('jobs@northwind-logistics.test');
    await shoot('submit-errors');

    // A summary link moves the focus to its field and brings it into view, its label and message above it too.
    await ui.page.locator('.error-summary a[href="#s-domain"]').click();
    await expect.poll(() => ui.page.evaluate<string>(ACTIVE)).toBe('s-domain');
    expect((await ui.page.locator('#s-domain').boundingBox())!.y).toBeLessThan(900);
    expect((await ui.page.locator('label[for="s-domain"]').boundingBox())!.y).toBeGreaterThanOrEqual(0);
  });

  it('submits the form, follows the e-mailed link and serves the vacancy as direct; closes it from the edit link', async () => {
    await ui.page.goto(`${ctx.base}/submit`);
    await shoot('submit-form');

    // A bad apply URL: the form comes back with the message and everything typed.
    await fillVacancy('https://www.indeed.com/viewjob?jk=1');
    await passHumanCheck(ui.page);
    await ui.page.getByRole('button', { name: 'Send the verification link' }).click();
    await expect.poll(() => ui.page.locator('#submit-error').textContent()).toMatch(/must be on northwind-logistics\.test/);
    expect(await ui.page.getByLabel('Job title').inputValue()).toBe('Warehouse Team Lead');
    await expectMarked(ui.page, 's-apply', /must be on northwind-logistics\.test/);
    // The page names the field by its label, as the form does (the JSON answer keeps the key).
    expect(await ui.page.locator('#submit-error li').allTextContents()).toEqual([expect.stringMatching(/^“Apply URL” must be on/)]);
    // The summary links to the field: from the bottom of the page, the link brings it into view.
    await ui.page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await ui.page.locator('.error-summary a[href="#s-apply"]').click();
    await expect.poll(async () => (await ui.page.locator('#s-apply').boundingBox())!.y).toBeLessThan(900);
    await ui.page.evaluate('window.scrollTo(0, 0)');
    await shoot('submit-error');

    await ui.page.getByLabel('Apply URL').fill('https://northwind-logistics.test/careers/team-lead');
    await passHumanCheck(ui.page);
    await ui.page.getByRole('button', { name: 'Send the verification link' }).click();
    await expect.poll(() => ui.page.locator('h1').textContent()).toMatch(/check your e-mail/i);
    await shoot('submit-check-email');

    const mail = await ctx.sink.waitFor('jobs@northwind-logistics.test', /Verify your vacancy/);
    await ui.page.goto(linkIn(mail, '/submit/verify'));
    await shoot('submit-verify');
    await ui.page.getByRole('button', { name: 'Publish the vacancy' }).click();
    await expect.poll(() => ui.page.locator('h1').textContent()).toMatch(/your vacancy is published/i);
    await shoot('submit-published');

    const listed = (await (await fetch(`${ctx.base}/public/jobs?provider=submissions`)).json()) as { data: Record<string, unknown>[] };
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

    const published = await ctx.sink.waitFor('jobs@northwind-logistics.test', /is published/);

    // The edit form marks a refused field too, with JavaScript off (the edit form has no proof of work).
    const noScript = await ui.browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
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

    await ui.page.goto(linkIn(published, '/submit/manage'));
    await expect.poll(() => ui.page.locator('h1').textContent()).toMatch(/your vacancy/i);
    await shoot('submit-manage');
    await ui.page.getByRole('button', { name: /Close the vacancy/ }).click();
    await expect.poll(() => ui.page.locator('h1').textContent()).toMatch(/vacancy closed/i);
    await shoot('submit-closed');
    expect((await fetch(`${ctx.base}/public/jobs/${jobId}`)).status).toBe(404);
    const after = (await (await fetch(`${ctx.base}/public/jobs?provider=submissions`)).json()) as { data: unknown[] };
    expect(after.data).toEqual([]);
  });
});
