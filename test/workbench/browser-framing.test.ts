// The workbench in Chromium under its own Content-Security-Policy: a page on another origin that frames
// it gets nothing to click, and the page itself breaks none of its policy while a person works in it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConsoleMessage, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  actAs,
  browserAvailable,
  contains,
  eventually,
  hidden,
  newPage,
  screenshot,
  shown,
  browserTest as test,
} from '../support/browser.js';

const STEP = 60_000;
const run = browserAvailable();

/** A page on another origin (another port of 127.0.0.1) that puts the workbench in a frame. */
async function framingSite(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Win a prize</title><h1>Click the button to win</h1>` +
        `<iframe title="prize" src="${target}" width="1200" height="700"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Every policy violation the page reports, by event and by console line. */
async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (/Content Security Policy/i.test(message.text())) seen.push(message.text());
  });
  await page.exposeFunction('__violation', (what: string) => seen.push(what));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { __violation(what: string): void }).__violation(
        `${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`,
      );
    });
  });
  return seen;
}

describe.skipIf(!run)('workbench framing and page policy in Chromium', () => {
  test(
    'shows nothing inside a frame on another origin, so no click there can act',
    async ({ bench }) => {
      const site = await framingSite(bench.started.url);
      const page = await newPage(bench.browser);
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      try {
        // goto waits for the load event, which waits for the frame's document too.
        await page.goto(site.url);
        await shown(page.getByRole('heading', { name: 'Click the button to win' }));
        const frame = page.frameLocator('iframe[title="prize"]');
        expect(await frame.getByText('LOCAL WORKBENCH').count()).toBe(0);
        // Chromium says why it left the frame empty.
        await eventually(() => refusals.join('\n')).toMatch(/frame-ancestors 'none'/);
        expect(await frame.getByRole('combobox', { name: 'Acting as' }).count()).toBe(0);
        expect(await frame.getByRole('button').count()).toBe(0);
        await screenshot(page, 'framing-refused');
      } finally {
        await page.context().close();
        await site.close();
      }
    },
    STEP,
  );

  test(
    'works as before under its policy: no violation while a person reads, switches and opens a modal',
    async ({ bench }) => {
      const page = await newPage(bench.browser);
      const violations = await watchViolations(page);
      try {
        await page.goto(bench.started.url);
        await shown(page.getByRole('log', { name: 'Messages in #treasury' }));
        await actAs(page, 'Ada');
        const box = page.getByRole('textbox', { name: 'Message' });
        await box.fill('/cngn balance');
        await box.press('Enter');
        await contains(page.getByRole('log'), '₦1,250,000.00');
        await box.fill('morning all');
        await box.press('Enter');
        // A person's avatar keeps its colour (set from script, not a style attribute the policy forbids).
        const avatar = page.getByRole('article', { name: 'Ada' }).last().locator('.avatar');
        await shown(avatar);
        expect(await avatar.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(
          'rgba(0, 0, 0, 0)',
        );
        await box.fill('/cngn withdraw');
        await box.press('Enter');
        const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
        await shown(dialog);
        await screenshot(page, 'policy-withdraw-modal');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await hidden(dialog);
        await actAs(page, 'Bola');
        await shown(page.getByRole('log', { name: 'Messages in #treasury' }));
        await screenshot(page, 'policy-treasury');
        expect(violations).toEqual([]);
      } finally {
        await page.context().close();
      }
    },
    STEP,
  );

  test(
    "labels a person's link with where it really goes when its text names another address",
    // The file's own page, already open on the workbench: this test needs no listener set before load.
    async ({ page }) => {
      await actAs(page, 'Ada');
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('pay here <https://evil.example|https://bank.example>');
      await box.press('Enter');
      const message = page.getByRole('article', { name: 'Ada' }).filter({ hasText: 'pay here' }).last();
      await shown(message.getByRole('link'));
      await eventually(() => message.getByRole('link').textContent()).toBe('https://evil.example');
      expect(await message.getByRole('link').getAttribute('href')).toBe('https://evil.example');
      expect(await message.getByText('bank.example').count()).toBe(0);
    },
    STEP,
  );
});
