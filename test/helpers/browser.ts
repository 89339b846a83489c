/**
 * The real browser of the browser tests: Debian's Chromium driven by playwright-core, headless, and
 * what a person does on the website's forms.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { useParts } from './hooks.ts';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether {@link CHROMIUM} is installed. Without it, the browser test `file` skips with a message,
 * except in CI (CI=true), where it fails: `.ci/run` installs Chromium first.
 * @throws Error in CI when Chromium is missing.
 */
export function chromiumFor(file: string): boolean {
  const have = existsSync(CHROMIUM);
  if (!have && process.env.CI === 'true') {
    throw new Error(`${CHROMIUM} is missing: CI must run the browser tests (.ci/run installs Debian's chromium with apt-get).`);
  }
  if (!have) console.warn(`${file} skipped: ${CHROMIUM} is not installed (apt-get install chromium).`);
  return have;
}

/** Launch {@link CHROMIUM} headless, without the sandbox and without background networking. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
}

/** What {@link useChromium} opens. Its fields are there from the first hook or test of the block on. */
export interface TestBrowser {
  readonly browser: Browser;
  /** One page of the browser. */
  readonly page: Page;
}

/**
 * {@link launchChromium} and one page of it (`viewport`, or playwright's default), opened before the
 * describe block's tests (after the hooks registered before this call) and closed after them.
 */
export function useChromium(viewport?: { width: number; height: number }): TestBrowser {
  return useParts<TestBrowser>(
    'useChromium',
    ['browser', 'page'],
    async (made) => {
      made.browser = await launchChromium();
      made.page = await made.browser.newPage(viewport ? { viewport } : {});
    },
    async ({ browser }) => {
      await browser?.close();
    },
  );
}

/** Tick the ALTCHA box as a person would and wait until the widget's proof of work is done. */
export async function passHumanCheck(page: Page): Promise<void> {
  // The widget draws its own tick over the checkbox; a person clicks the label next to it.
  await page.locator('altcha-widget').getByText(/not a robot/i).click();
  await expect.poll(() => page.locator('altcha-widget input[type="hidden"][name="altcha"]').inputValue(), { timeout: 20_000 }).not.toBe('');
}
