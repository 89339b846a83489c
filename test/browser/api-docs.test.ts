/**
 * The API reference at /docs in a real browser (issue 19, "A docs page"): Debian's Chromium driven by
 * playwright-core against the real app with its website on loopback, over a clone of the imported real
 * corpus. The page loads from this server only under its CSP (no violation, no request elsewhere),
 * lists every operation of the live OpenAPI document, and its "Test Request" client sends
 * GET /public/jobs to this server and shows the rows it answered.
 * Screenshots are written to test/browser/screenshots/ (api-docs.png, api-docs-try-it.png).
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/ports.ts';
import { startMailSink, testSiteOptions, type MailSink } from '../helpers/site.ts';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: CI must run the browser tests.`);
const SCREENSHOTS = new URL('./screenshots/', import.meta.url);

describe.skipIf(!haveChromium)('the API reference at /docs', () => {
  let t: TestDatabase;
  let sink: MailSink;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base: string;
  const problems: string[] = [];
  const foreign: string[] = [];

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    sink = await startMailSink();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // servers from the public URL, as JOBLEDGER_SITE_URL gives it in production: try-it calls this origin.
    app = await buildTestApp(t, { contract: false, publicUrl: base, site: testSiteOptions(sink, { siteUrl: base }) });
    await app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:') && !request.url().startsWith('blob:')) foreign.push(request.url());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
    await t?.drop();
  });

  it('is linked from the home page and renders every operation of the live document', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'API reference' }).first().click();
    await page.waitForURL(`${base}/docs`);
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary?: string }>> };
    const summaries = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.summary).filter((s): s is string => Boolean(s)));
    expect(summaries.length).toBeGreaterThan(30);
    // Every tag group is open (api-docs.js), so the sidebar lists every operation by its summary.
    await expect.poll(() => page.locator('body').innerText(), { timeout: 60_000 }).toContain('Keyless listings: at most 50 rows');
    const text = await page.locator('body').innerText();
    const missing = [...new Set(summaries)].filter((s) => !text.includes(s));
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL('api-docs.png', SCREENSHOTS).pathname });
    expect(missing).toEqual([]);
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
  }, 120_000);

  it('sends a try-it request to /public/jobs from the page and shows its rows', async () => {
    // The rows the server serves for the operation's default request, to find in what the page shows.
    const served = (await (await fetch(`${base}/public/jobs`)).json()) as { data: Array<{ id: string; title: string }> };
    expect(served.data.length).toBeGreaterThan(0);
    // The operation's anchor: Scalar renders the sections near it (it renders lazily, as one scrolls).
    await page.goto(`${base}/docs#tag/public/GET/public/jobs`);
    // Scalar's button of the operation (its text names the method and path).
    const testRequest = page.locator('button', { hasText: /^\s*Test Request\s*\(get \/public\/jobs\)\s*$/ });
    await testRequest.waitFor({ state: 'attached', timeout: 60_000 });
    await testRequest.scrollIntoViewIfNeeded();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/public/jobs') sent.push(request.url());
    });
    await testRequest.click();
    const client = page.getByRole('dialog');
    await client.waitFor({ timeout: 30_000 });
    await client.getByRole('button', { name: /^Send/ }).first().click();
    // The response pane shows the body: the served rows' ids, as the server answered them.
    await expect.poll(() => client.innerText(), { timeout: 30_000 }).toContain(served.data[0]!.id);
    const text = await client.innerText();
    expect(served.data.filter((row) => text.includes(row.id)).length).toBeGreaterThan(0);
    // The plain request: the parameters' examples are listed in the client but left out until ticked.
    expect(sent).toEqual([`${base}/public/jobs`]);
    await page.screenshot({ path: new URL('api-docs-try-it.png', SCREENSHOTS).pathname });
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
  }, 120_000);
});
