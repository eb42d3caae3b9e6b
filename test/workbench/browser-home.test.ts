// App Home and the approvers' DMs in Chromium, through the workbench page by accessible names: Ada
// files a withdrawal; Bola finds it in the DM the bot sent and in App Home's "Waiting for you",
// approves it from Home, and both the DM copy and Home move on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Started, start } from '../../src/wiring/startup.js';
import { USERS } from '../../src/workbench/people.js';
import {
  approveInReview,
  browserAvailable,
  contains,
  eventually,
  launchBrowser,
  newPage,
  screenshot,
  shown,
  textOf,
} from './browser-support.js';

const VALID_ADDRESS = '0x2222222222222222222222222222222222222222';
const STEP = 60_000;

describe.skipIf(!browserAvailable())('workbench: App Home and approvers’ DMs in Chromium', () => {
  let dir: string;
  let started: Started;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cngn-workbench-home-'));
    started = await start(
      { PORT: '0', STORE_URL: `sqlite://${path.join(dir, 'workbench.sqlite')}`, LOG_LEVEL: 'silent' },
      { print: () => undefined },
    );
    browser = await launchBrowser();
    page = await newPage(browser);
    await page.goto(started.url);
    await shown(page.getByRole('log', { name: 'Messages in #treasury' }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await started?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const actAs = async (name: string) => {
    const id = USERS.find((u) => u.name === name)?.id ?? name;
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption(id);
    await shown(page.locator('[role="log"][aria-busy="false"]'));
  };
  const open = (channel: string) =>
    page.getByRole('navigation').getByRole('button', { name: channel }).click();
  const say = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  };
  const withdrawal = (): Locator =>
    page
      .getByRole('log')
      .getByRole('article', { name: 'cngn-desk', exact: true })
      .filter({ has: page.getByRole('heading', { name: 'Withdrawal · SANDBOX' }) })
      .last();

  it(
    'Ada files a withdrawal',
    async () => {
      await actAs('Ada');
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('/cngn withdraw');
      await box.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
      await dialog.getByLabel('Amount (₦ / cNGN)').fill('1500');
      await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
      await dialog.getByLabel('…or type an address').fill(VALID_ADDRESS);
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      const notice = page.getByRole('dialog', { name: 'Waiting for approval' });
      await contains(notice, 'from someone other than you');
      await notice.getByRole('button', { name: 'Close', exact: true }).click();
      await eventually(() => page.getByRole('dialog').count()).toBe(0);
    },
    STEP,
  );

  it(
    "Bola's DM with the bot carries the request with Approve and Reject",
    async () => {
      await actAs('Bola');
      await open('cngn-desk');
      await shown(page.getByRole('log', { name: 'cngn-desk' }));
      const copy = withdrawal();
      await contains(copy, 'asks for your approval');
      await contains(copy, '₦1,500.00');
      await contains(copy, VALID_ADDRESS);
      await shown(copy.getByRole('button', { name: 'Approve' }));
      await shown(copy.getByRole('button', { name: 'Reject' }));
      await screenshot(page, 'home-dm-waiting');
    },
    STEP,
  );

  it(
    'App Home lists it under Waiting for you, and Bola approves it there',
    async () => {
      await open('App Home');
      const home = page.getByRole('log', { name: 'App Home' });
      await contains(home, 'Waiting for you');
      await contains(home, '₦1,500.00');
      await screenshot(page, 'home-waiting');
      const reviewed = await approveInReview(page, home.getByRole('button', { name: 'Approve' }).first());
      expect(reviewed).toContain('₦1,500.00');
      await contains(home, 'Nothing waits for your approval.');
      await eventually(async () => home.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await screenshot(page, 'home-approved');
    },
    STEP,
  );

  it(
    'the DM copy moved on and carries no live buttons',
    async () => {
      await open('cngn-desk');
      const copy = withdrawal();
      await contains(copy, 'Nothing is waiting for you here any more');
      await eventually(() => textOf(copy)).toMatch(/Sent, waiting for the final status|Completed|Approved/);
      await eventually(() => copy.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await screenshot(page, 'home-dm-moved-on');
    },
    STEP,
  );

  it(
    'Review all: with two waiting, /cngn pending offers it, and only the ticked request is approved',
    async () => {
      await actAs('Ada');
      await open('treasury');
      for (const amount of ['2000', '3000']) {
        await say('/cngn withdraw');
        const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
        await dialog.getByLabel('Amount (₦ / cNGN)').fill(amount);
        await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
        await dialog.getByLabel('…or type an address').fill(VALID_ADDRESS);
        await dialog.getByRole('button', { name: 'Ask for approval' }).click();
        const notice = page.getByRole('dialog', { name: 'Waiting for approval' });
        await contains(notice, 'from someone other than you');
        await notice.getByRole('button', { name: 'Close', exact: true }).click();
        await eventually(() => page.getByRole('dialog').count()).toBe(0);
      }
      await actAs('Bola');
      await open('treasury');
      await say('/cngn pending');
      await page.getByRole('log').getByRole('button', { name: 'Review all (2)' }).last().click();
      const review = page.getByRole('dialog', { name: 'Review all' });
      await contains(review, '₦2,000.00');
      await contains(review, '₦3,000.00');
      await screenshot(page, 'review-all');
      await review.getByRole('checkbox', { name: /₦3,000\.00/ }).check();
      await review.getByRole('button', { name: 'Approve checked' }).click();
      await contains(page.getByRole('dialog', { name: 'Review all' }), '1 of 1 approved');
      await screenshot(page, 'review-all-result');
      await page.getByRole('dialog').getByRole('button', { name: 'Close', exact: true }).click();
      await open('App Home');
      const home = page.getByRole('log', { name: 'App Home' });
      await contains(home, '₦2,000.00');
      await eventually(() => textOf(home)).not.toContain('₦3,000.00');
    },
    STEP,
  );
});
