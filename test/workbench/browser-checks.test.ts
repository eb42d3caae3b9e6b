// The checks before money moves, as people see them in the workbench: a look-alike of the sandbox's
// known destination is shown in the form and must be compared, then marked in the review; a review
// whose balance no longer covers the request has no Approve button. Screenshots of both reviews.
import type { Locator, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { KNOWN_DESTINATION } from '../../src/sandbox/catalog.js';
import {
  browserAvailable,
  contains,
  eventually,
  hidden,
  screenshot,
  shown,
  browserTest as test,
  textOf,
} from '../support/browser.js';

/** The known destination's first and last six hex digits, with another middle. */
const LOOK_ALIKE = '0x5aaeb69c41d7e28b05fa3316c2d94e07ab1beaed';
const FRESH_ADDRESS = '0x1111111111111111111111111111111111111111';
const STEP = 60_000;

const log = (page: Page) => page.getByRole('log');
const request = (page: Page, amount: string): Locator =>
  log(page)
    .getByRole('article', { name: 'cngn-desk', exact: true })
    .filter({ has: page.getByRole('heading', { name: 'Withdrawal · SANDBOX' }) })
    .filter({ hasText: amount })
    .last();

describe.skipIf(!browserAvailable())('checks in the workbench', () => {
  test(
    'Ada is shown the look-alike in the form and files it once she has compared it',
    async ({ workbench, page }) => {
      expect(LOOK_ALIKE.slice(0, 8)).toBe(KNOWN_DESTINATION.slice(0, 8).toLowerCase());
      await workbench.actAs('Ada');
      await workbench.say('/cngn withdraw');
      const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
      await dialog.getByLabel('Amount (₦ / cNGN)').fill('2500');
      await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
      await dialog.getByLabel('…or type an address').fill(LOOK_ALIKE);
      await dialog.getByLabel('Purpose', { exact: true }).fill('Supplier payout INV-2231');
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await contains(dialog, 'Look-alike address');
      await contains(dialog, KNOWN_DESTINATION.slice(-6));
      await screenshot(page, 'withdraw-look-alike-form');
      await dialog.getByRole('checkbox', { name: /I compared the whole address/ }).check();
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await workbench.closeFiledNotice();
      await workbench.open('approvals');
      const filed = request(page, '₦2,500.00');
      await contains(filed, 'Look-alike address');
      await contains(filed, 'The requester confirmed comparing the whole address');
    },
    STEP,
  );

  test(
    'Bola reviews it: both addresses in full, the differences marked, two approvers needed',
    async ({ workbench, page }) => {
      await workbench.actAs('Bola');
      await request(page, '₦2,500.00').getByRole('button', { name: 'Approve' }).click();
      const review = page.getByRole('dialog', { name: 'Review and approve' });
      await contains(review, 'Look-alike address');
      await contains(review, 'It needs one more approver than its tier: 2 in all.');
      await contains(review, 'First payment to this destination');
      await screenshot(page, 'review-look-alike');
      await review.getByRole('button', { name: 'Back' }).click();
      await hidden(review);
    },
    STEP,
  );

  test(
    'a review whose balance no longer covers the request says so in place of Approve',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await workbench.open('treasury');
      await workbench.fileWithdrawal('1000000', FRESH_ADDRESS);
      await workbench.fileWithdrawal('400000', FRESH_ADDRESS);
      await workbench.actAs('Bola');
      await workbench.open('approvals');
      await request(page, '₦400,000.00').getByRole('button', { name: 'Approve' }).click();
      const first = page.getByRole('dialog', { name: 'Review and approve' });
      await first.getByRole('button', { name: /^Approve / }).click();
      await hidden(first);
      await eventually(() => textOf(request(page, '₦400,000.00'))).toMatch(/Sent|Completed/);

      await workbench.actAs('Chidi');
      await request(page, '₦1,000,000.00').getByRole('button', { name: 'Approve' }).click();
      const review = page.getByRole('dialog', { name: 'Review' });
      await shown(review);
      await contains(review, 'Not enough balance to approve');
      await contains(review, 'leaves ₦850,000.00');
      expect(await review.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
      await screenshot(page, 'review-low-balance');
      await review.getByRole('button', { name: 'Back' }).click();
      await hidden(review);
    },
    STEP,
  );
});
