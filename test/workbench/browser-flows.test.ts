// The whole product in Chromium with no Slack workspace: the bot started as `npm start` starts it
// with no Slack settings (start-up wiring, PORT 0, a temporary SQLite store), driven through the
// workbench page by accessible names, as Ada, Bola and Dayo.
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
  docsScreenshot,
  eventually,
  hidden,
  launchBrowser,
  newPage,
  screenshot,
  shown,
  textOf,
} from './browser-support.js';

const VALID_ADDRESS = '0x1111111111111111111111111111111111111111';

/** Each step waits on the page (15 s at most per wait); a step has a minute in all. */
const STEP = 60_000;

const run = browserAvailable();

describe.skipIf(!run)('workbench in Chromium against the real bot', () => {
  let dir: string;
  let started: Started;
  let browser: Browser;
  let page: Page;
  const printed: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cngn-workbench-'));
    started = await start(
      { PORT: '0', STORE_URL: `sqlite://${path.join(dir, 'workbench.sqlite')}`, LOG_LEVEL: 'silent' },
      { print: (line) => printed.push(line) },
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
    await shown(page.locator('[role="log"][aria-busy="false"]')); // that person's state is drawn
  };
  const open = (channel: string) =>
    page.getByRole('navigation').getByRole('button', { name: channel }).click();
  const log = () => page.getByRole('log');
  const say = async (text: string) => {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  };
  const privateAnswers = () => log().getByRole('article', { name: 'cngn-desk (only visible to you)' });
  const request = (title: string): Locator =>
    log()
      .getByRole('article', { name: 'cngn-desk', exact: true })
      .filter({ has: page.getByRole('heading', { name: title }) })
      .last();
  /** After filing, the modal says the request waits for approval; close it as a person would. */
  const closeFiledNotice = async () => {
    const notice = page.getByRole('dialog', { name: 'Waiting for approval' });
    await contains(notice, 'from someone other than you');
    await notice.getByRole('button', { name: 'Close', exact: true }).click();
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
  };
  const sandbox = () => page.getByRole('region', { name: '🧪 Sandbox' });

  it(
    'prints the workbench line and shows the banner',
    async () => {
      expect(printed).toEqual([`Workbench: open ${started.url}`]);
      await contains(page.getByRole('banner'), 'LOCAL WORKBENCH — not Slack · SANDBOX');
    },
    STEP,
  );

  it(
    'Ada reads the balance',
    async () => {
      await actAs('Ada');
      await say('/cngn balance');
      const answer = privateAnswers().filter({ hasText: 'Balance' }).last();
      await contains(answer, '₦1,250,000.00');
      await contains(answer, 'Only visible to you');
      await screenshot(page, 'balance');
    },
    STEP,
  );

  it(
    'Ada files a withdrawal through the modal, a bad address refused inline first',
    async () => {
      await say('/cngn withdraw');
      const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await shown(dialog.getByRole('alert').first()); // an empty required amount, said under the field
      await eventually(() => dialog.getByLabel('Amount (₦ / cNGN)').getAttribute('aria-invalid')).toBe(
        'true',
      );
      await dialog.getByLabel('Amount (₦ / cNGN)').fill('1500');
      await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
      await dialog.getByLabel('…or type an address').fill('0x123');
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await shown(dialog.getByRole('alert').filter({ hasText: /address/i }));
      await eventually(() => dialog.getByLabel('…or type an address').getAttribute('aria-invalid')).toBe(
        'true',
      );
      await eventually(() => dialog.getByLabel('Amount (₦ / cNGN)').getAttribute('aria-invalid')).toBe(null);
      await screenshot(page, 'withdraw-bad-address');
      await dialog.getByLabel('…or type an address').fill(VALID_ADDRESS);
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await closeFiledNotice();
      await open('approvals');
      const filed = request('Withdrawal · SANDBOX');
      await contains(filed, 'Waiting for approval');
      await contains(filed, '₦1,500.00');
      await contains(filed, VALID_ADDRESS);
      await screenshot(page, 'approval-request');
      await docsScreenshot(page);
    },
    STEP,
  );

  it(
    "refuses Ada's own Approve with a private explanation",
    async () => {
      await request('Withdrawal · SANDBOX').getByRole('button', { name: 'Approve' }).click();
      await contains(privateAnswers().last(), 'so you cannot approve or reject it');
      await contains(request('Withdrawal · SANDBOX'), 'Waiting for approval');
    },
    STEP,
  );

  it(
    "refuses Dayo's Approve: not an approver",
    async () => {
      await actAs('Dayo');
      await request('Withdrawal · SANDBOX').getByRole('button', { name: 'Approve' }).click();
      await contains(privateAnswers().last(), 'You are not an approver');
      await contains(request('Withdrawal · SANDBOX'), 'Waiting for approval');
    },
    STEP,
  );

  it(
    'Bola approves: the request is sent, then completed when the sandbox settles',
    async () => {
      await actAs('Bola');
      const withdrawal = request('Withdrawal · SANDBOX');
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
      await sandbox().getByRole('button', { name: 'Settle pending' }).click();
      await contains(withdrawal, 'Completed');
      // The replies, not the parent (which shows the request's state too).
      await contains(thread.getByRole('article').filter({ hasNotText: 'Withdrawal · SANDBOX' }), 'Completed');
      await contains(withdrawal, '(edited)');
      await screenshot(page, 'withdrawal-completed');
      await thread.getByRole('button', { name: 'Close thread' }).click();
    },
    STEP,
  );

  it(
    'a redemption shows the resolved account name and, set to fail, ends failed with the reason in #alerts',
    async () => {
      await actAs('Ada');
      await sandbox().getByRole('button', { name: 'Make the next redemption fail' }).click();
      await contains(sandbox().getByRole('status'), 'The next redemption will fail');
      await open('treasury');
      await say('/cngn redeem');
      const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
      await dialog.getByLabel('Amount (₦, at least 1)').fill('5000');
      await dialog.getByRole('combobox', { name: 'Bank' }).fill('Guaranty');
      await dialog
        .getByRole('option', { name: /Guaranty/ })
        .first()
        .click();
      await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
      await dialog.getByRole('button', { name: 'Ask for approval' }).click();
      await closeFiledNotice();
      await open('approvals');
      const redemption = request('Redemption to a bank account · SANDBOX');
      await contains(redemption, 'Account name (resolved)');
      expect(await textOf(redemption)).toMatch(/Account name \(resolved\)[A-Z][A-Za-z]+ [A-Z]/);
      await screenshot(page, 'redemption-request');
      await actAs('Chidi');
      const reviewed = await approveInReview(page, redemption.getByRole('button', { name: 'Approve' }));
      expect(reviewed).toMatch(/Account name \(resolved\)\s*[A-Z][A-Za-z]+ [A-Z]/);
      expect(reviewed).toContain('0123456789');
      await eventually(() => textOf(redemption)).toMatch(/Sent, waiting|Failed/);
      await sandbox().getByRole('button', { name: 'Settle pending' }).click();
      await contains(redemption, 'Failed');
      await open('alerts');
      await contains(log(), 'Provider failed to process payout');
      await screenshot(page, 'redemption-failed-alert');
    },
    STEP,
  );

  it(
    'a deposit shows the virtual account with its expiry',
    async () => {
      await actAs('Ada');
      await open('treasury');
      await say('/cngn deposit');
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
      await sandbox().getByRole('button', { name: 'Pay in' }).click();
      await open('alerts');
      await contains(log(), 'Deposit');
      await screenshot(page, 'deposit-alerts');
    },
    STEP,
  );

  it('a reload keeps everything', async () => {
    await open('approvals');
    const before = await textOf(log());
    await page.reload();
    await shown(page.getByRole('log', { name: 'Messages in #approvals' }));
    await eventually(() => textOf(log())).toBe(before);
    expect(await page.getByRole('combobox', { name: 'Acting as' }).inputValue()).toBe('U0ADA');
  });
});
