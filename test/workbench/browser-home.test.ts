import type { Locator, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  approveInReview,
  browserAvailable,
  browserTest,
  contains,
  eventually,
  screenshot,
  shown,
  textOf,
} from '../support/browser.js';

// App Home is published 100 ms after a change rather than 1 s: the tests wait for what it then shows.
const test = browserTest.extend('benchTimings', { homeDebounceMs: 100 });

const VALID_ADDRESS = '0x2222222222222222222222222222222222222222';
const STEP = 60_000;

describe.skipIf(!browserAvailable())('workbench: App Home and approvers’ DMs in Chromium', () => {
  const withdrawal = (page: Page): Locator =>
    page
      .getByRole('log')
      .getByRole('article', { name: 'cngn-desk', exact: true })
      .filter({ has: page.getByRole('heading', { name: 'Withdrawal · SANDBOX' }) })
      .last();

  test(
    'Ada files a withdrawal',
    async ({ workbench }) => {
      await workbench.actAs('Ada');
      await workbench.fileWithdrawal('1500', VALID_ADDRESS);
    },
    STEP,
  );

  test(
    "Bola's DM with the bot carries the request with Approve and Reject",
    async ({ workbench, page }) => {
      await workbench.actAs('Bola');
      await workbench.open('cngn-desk');
      await shown(page.getByRole('log', { name: 'cngn-desk' }));
      const copy = withdrawal(page);
      await contains(copy, 'asks for your approval');
      await contains(copy, '₦1,500.00');
      await contains(copy, VALID_ADDRESS);
      await shown(copy.getByRole('button', { name: 'Approve' }));
      await shown(copy.getByRole('button', { name: 'Reject' }));
      await screenshot(page, 'home-dm-waiting');
    },
    STEP,
  );

  test(
    'App Home lists it under Waiting for you, and Bola approves it there',
    async ({ workbench, page }) => {
      await workbench.open('App Home');
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

  test(
    'the DM copy moved on and carries no live buttons',
    async ({ workbench, page }) => {
      await workbench.open('cngn-desk');
      const copy = withdrawal(page);
      await contains(copy, 'Nothing is waiting for you here any more');
      await eventually(() => textOf(copy)).toMatch(/Sent, waiting for the final status|Completed|Approved/);
      await eventually(() => copy.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await screenshot(page, 'home-dm-moved-on');
    },
    STEP,
  );

  test(
    'Review all: with two waiting, /cngn pending offers it, and only the ticked request is approved',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await workbench.open('treasury');
      for (const amount of ['2000', '3000']) await workbench.fileWithdrawal(amount, VALID_ADDRESS);
      await workbench.actAs('Bola');
      await workbench.open('treasury');
      await workbench.say('/cngn pending');
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
      await workbench.open('App Home');
      const home = page.getByRole('log', { name: 'App Home' });
      await contains(home, '₦2,000.00');
      await eventually(() => textOf(home)).not.toContain('₦3,000.00');
    },
    STEP,
  );
});
