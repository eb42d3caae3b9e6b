import type { Locator, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  approveInReview,
  browserAvailable,
  contains,
  docsScreenshot,
  eventually,
  hidden,
  screenshot,
  shown,
  browserTest as test,
  textOf,
} from '../support/browser.js';

const VALID_ADDRESS = '0x1111111111111111111111111111111111111111';

/** Each step waits on the page (15 s at most per wait); a step has a minute in all. */
const STEP = 60_000;

const log = (page: Page) => page.getByRole('log');
const privateAnswers = (page: Page) =>
  log(page).getByRole('article', { name: 'cngn-desk (only visible to you)' });
const request = (page: Page, title: string): Locator =>
  log(page)
    .getByRole('article', { name: 'cngn-desk', exact: true })
    .filter({ has: page.getByRole('heading', { name: title }) })
    .last();
const sandbox = (page: Page) => page.getByRole('region', { name: '🧪 Sandbox' });

describe.skipIf(!browserAvailable())('workbench in Chromium against the real bot', () => {
  test(
    'prints the workbench line and shows the banner',
    async ({ bench, page }) => {
      expect(bench.printed).toEqual([`Workbench: open ${bench.started.url}`]);
      await contains(page.getByRole('banner'), 'LOCAL WORKBENCH — not Slack · SANDBOX');
    },
    STEP,
  );

  test(
    'Ada reads the balance',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await workbench.say('/cngn balance');
      const answer = privateAnswers(page).filter({ hasText: 'Balance' }).last();
      await contains(answer, '₦1,250,000.00');
      await contains(answer, 'Only visible to you');
      await screenshot(page, 'balance');
    },
    STEP,
  );

  test(
    'Ada files a withdrawal through the modal, a bad address refused inline first',
    async ({ workbench, page }) => {
      await workbench.say('/cngn withdraw');
      const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await shown(dialog.getByRole('alert').first()); // an empty required amount, said under the field
      await eventually(() => dialog.getByLabel('Amount (₦ / cNGN)').getAttribute('aria-invalid')).toBe(
        'true',
      );
      await dialog.getByLabel('Amount (₦ / cNGN)').fill('1500');
      await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
      await dialog.getByLabel('…or type an address').fill('0x123');
      await dialog.getByLabel('Purpose', { exact: true }).fill('Supplier payout INV-2231');
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await shown(dialog.getByRole('alert').filter({ hasText: /address/i }));
      await eventually(() => dialog.getByLabel('…or type an address').getAttribute('aria-invalid')).toBe(
        'true',
      );
      await eventually(() => dialog.getByLabel('Amount (₦ / cNGN)').getAttribute('aria-invalid')).toBe(null);
      await screenshot(page, 'withdraw-bad-address');
      await dialog.getByLabel('…or type an address').fill(VALID_ADDRESS);
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await workbench.closeFiledNotice();
      await workbench.open('approvals');
      const filed = request(page, 'Withdrawal · SANDBOX');
      await contains(filed, 'Waiting for approval');
      await contains(filed, '₦1,500.00');
      await contains(filed, VALID_ADDRESS);
      await screenshot(page, 'approval-request');
      await docsScreenshot(page);
    },
    STEP,
  );

  test(
    "refuses Ada's Approve (she files, she does not approve) with a private explanation",
    async ({ page }) => {
      await request(page, 'Withdrawal · SANDBOX').getByRole('button', { name: 'Approve' }).click();
      await contains(privateAnswers(page).last(), 'needs the approver role, held by @Bola and @Chidi');
      await contains(request(page, 'Withdrawal · SANDBOX'), 'Waiting for approval');
    },
    STEP,
  );

  test(
    "refuses Dayo's Approve: not an approver",
    async ({ workbench, page }) => {
      await workbench.actAs('Dayo');
      await request(page, 'Withdrawal · SANDBOX').getByRole('button', { name: 'Approve' }).click();
      await contains(privateAnswers(page).last(), 'This button needs the approver role');
      await contains(request(page, 'Withdrawal · SANDBOX'), 'Waiting for approval');
    },
    STEP,
  );

  test(
    'Bola approves: the request is sent, then completed when the sandbox settles',
    async ({ workbench, page }) => {
      await workbench.actAs('Bola');
      const withdrawal = request(page, 'Withdrawal · SANDBOX');
      await withdrawal.getByRole('button', { name: 'Approve' }).click();
      // The review: every figure again, and a submit button that names the amount.
      const review = page.getByRole('dialog', { name: 'Review and approve' });
      await contains(review, VALID_ADDRESS);
      await contains(review, 'Approvals so far');
      await screenshot(page, 'approval-review');
      // Nothing moved on opening it.
      await contains(withdrawal, 'Waiting for approval');
      await review.getByRole('button', { name: 'Approve ₦1,500.00' }).click();
      await hidden(review);
      await eventually(() => textOf(withdrawal)).toMatch(/Sent, waiting for the final status|Completed/);
      await withdrawal.getByRole('button', { name: /repl(y|ies)/ }).click();
      const thread = page.getByRole('complementary', { name: 'Thread' });
      await contains(thread, 'Sent; the service gave reference');
      await sandbox(page).getByRole('button', { name: 'Settle pending' }).click();
      await contains(withdrawal, 'Completed');
      // The replies, not the parent (which shows the request's state too).
      await contains(thread.getByRole('article').filter({ hasNotText: 'Withdrawal · SANDBOX' }), 'Completed');
      await contains(withdrawal, '(edited)');
      await screenshot(page, 'withdrawal-completed');
      await thread.getByRole('button', { name: 'Close thread' }).click();
    },
    STEP,
  );

  test(
    'a redemption shows the resolved account name and, set to fail, ends failed with the reason in #alerts',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await sandbox(page).getByRole('button', { name: 'Make the next redemption fail' }).click();
      await contains(sandbox(page).getByRole('status'), 'The next redemption will fail');
      await workbench.open('treasury');
      await workbench.say('/cngn redeem');
      const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
      await dialog.getByLabel('Amount (₦, at least 1)').fill('5000');
      await dialog.getByRole('combobox', { name: 'Bank' }).fill('Guaranty');
      await dialog
        .getByRole('option', { name: /Guaranty/ })
        .first()
        .click();
      await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
      await dialog.getByLabel('Purpose', { exact: true }).fill('Refund to customer');
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await workbench.closeFiledNotice();
      await workbench.open('approvals');
      const redemption = request(page, 'Redemption to a bank account · SANDBOX');
      await contains(redemption, 'Account name (resolved)');
      expect(await textOf(redemption)).toMatch(/Account name \(resolved\)[A-Z][A-Za-z]+ [A-Z]/);
      await screenshot(page, 'redemption-request');
      await workbench.actAs('Chidi');
      const reviewed = await approveInReview(page, redemption.getByRole('button', { name: 'Approve' }));
      expect(reviewed).toMatch(/Account name \(resolved\)\s*[A-Z][A-Za-z]+ [A-Z]/);
      expect(reviewed).toContain('0123456789');
      await eventually(() => textOf(redemption)).toMatch(/Sent, waiting|Failed/);
      await sandbox(page).getByRole('button', { name: 'Settle pending' }).click();
      await contains(redemption, 'Failed');
      await workbench.open('alerts');
      await contains(log(page), 'Provider failed to process payout');
      await screenshot(page, 'redemption-failed-alert');
    },
    STEP,
  );

  test(
    'a deposit shows the virtual account with its expiry',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await workbench.open('treasury');
      await workbench.say('/cngn deposit');
      const dialog = page.getByRole('dialog', { name: 'Take a Naira deposit' });
      await dialog.getByLabel('Amount (₦)').fill('5000');
      await dialog.getByLabel('Customer e-mail').fill('payer@example.com');
      await dialog.getByRole('button', { name: 'Create account' }).click();
      const account = page.getByRole('dialog', { name: 'Deposit account' });
      await contains(account, 'Account number');
      await contains(account, 'Expires');
      expect(await textOf(account)).toMatch(/expires in \d+ minutes/);
      await screenshot(page, 'deposit-account');
      await account.getByRole('button', { name: 'Done' }).click();
      await eventually(() => page.getByRole('dialog').count()).toBe(0);
      await sandbox(page).getByRole('button', { name: 'Pay in' }).click();
      await workbench.open('alerts');
      await contains(log(page), 'Deposit');
      await screenshot(page, 'deposit-alerts');
    },
    STEP,
  );

  test('a reload keeps everything', async ({ workbench, page }) => {
    await workbench.open('approvals');
    const before = await textOf(log(page));
    await page.reload();
    await shown(page.getByRole('log', { name: 'Messages in #approvals' }));
    await eventually(() => textOf(log(page))).toBe(before);
    expect(await page.getByRole('combobox', { name: 'Acting as' }).inputValue()).toBe('U0ADA');
  });
});
