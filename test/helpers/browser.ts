// Headless Chromium for the dashboard's tests: Debian's `chromium` package driven by
// playwright-core (no browser is ever downloaded). Every page of a browser started here is
// watched: requests to anything but 127.0.0.1 are refused and recorded, and console errors
// and uncaught exceptions are recorded, so a test can assert there were none.
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export const chromiumMissing = (): string | undefined =>
  existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

export interface WatchedBrowser {
  browser: Browser;
  context: BrowserContext;
  /** Requests that would have left 127.0.0.1 (refused). */
  outside: string[];
  /** Console errors and uncaught exceptions, with the page's URL. */
  errors: string[];
  page(): Promise<Page>;
  close(): Promise<void>;
}

export async function startBrowser(): Promise<WatchedBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
  const outside: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    outside.push(url.href);
    return route.abort('blockedbyclient');
  });
  return {
    browser,
    context,
    outside,
    errors,
    async page() {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
      return page;
    },
    close: () => browser.close(),
  };
}
