// Reminders in Chromium, through the workbench page by accessible names: with a short lifetime and one
// early reminder point (2% of 60 s), Ada files a withdrawal and nobody acts; the reminder shows as a
// reply in the request's thread naming both approvers, as a DM in Bola's conversation with the bot,
// and as the requester's note in Ada's; App Home still lists the request under "Waiting for you".
import type { Locator, Page } from 'playwright-core';
import { describe } from 'vitest';
import {
  browserAvailable,
  browserTest,
  contains,
  eventually,
  screenshot,
  shown,
  textOf,
} from '../support/browser.js';

// This file's own fixtures: an override at a file's top level would outlive the file in its worker.
// The engine sweeps every second (15 s unless told): the one point (at 1.2 s) is sent by the first
// sweep after it, as the periodic sweep sends it at any interval.
const test = browserTest
  .extend('benchEnv', { CNGN_APPROVAL_TTL: '60s', CNGN_APPROVAL_REMINDERS: '2%' })
  .extend('benchTimings', { approvalSweepMs: 1_000 });

const VALID_ADDRESS = '0x3333333333333333333333333333333333333333';
const REMINDER_WAIT = 40_000;
const STEP = 60_000;

describe.skipIf(!browserAvailable())('workbench: approval reminders in Chromium', () => {
  const botMessages = (page: Page): Locator =>
    page.getByRole('log').getByRole('article', { name: 'cngn-desk', exact: true });

  test(
    'Ada files a withdrawal and nobody acts on it',
    async ({ workbench }) => {
      await workbench.actAs('Ada');
      await workbench.fileWithdrawal('4200', VALID_ADDRESS);
    },
    STEP,
  );

  test(
    "the reminder reaches Bola's DM with the bot, under the request it reminds of",
    async ({ workbench, page }) => {
      await workbench.actAs('Bola');
      await workbench.open('cngn-desk');
      const dm = page.getByRole('log', { name: 'cngn-desk' });
      await shown(dm);
      await contains(dm, 'asks for your approval');
      await page
        .getByRole('log', { name: 'cngn-desk' })
        .getByText('Reminder (2% of its lifetime)')
        .waitFor({ state: 'visible', timeout: REMINDER_WAIT });
      await contains(dm, 'Withdrawal · ₦4,200.00');
      await contains(dm, 'is waiting for your approval in #approvals');
      await screenshot(page, 'reminders-approver-dm');
    },
    STEP,
  );

  test(
    'the reminder is a reply in the request’s thread, naming the approvers who have not acted',
    async ({ workbench, page }) => {
      await workbench.open('approvals');
      const request = botMessages(page)
        .filter({ has: page.getByRole('heading', { name: 'Withdrawal · SANDBOX' }) })
        .last();
      await request.getByRole('button', { name: /repl(y|ies)/ }).click();
      const thread = page.getByRole('complementary', { name: 'Thread' });
      await contains(
        thread,
        'Reminder 1 of 1 (2% of its lifetime): it still needs 1 approval from @Bola, @Chidi',
      );
      await contains(thread, 'Last reminder: the requester has been told.');
      await screenshot(page, 'reminders-thread');
    },
    STEP,
  );

  test(
    'App Home still lists the request under Waiting for you',
    async ({ workbench, page }) => {
      await workbench.open('App Home');
      const home = page.getByRole('log', { name: 'App Home' });
      await contains(home, 'Waiting for you');
      await contains(home, '₦4,200.00');
      await shown(home.getByRole('button', { name: 'Approve' }).first());
      await screenshot(page, 'reminders-home');
    },
    STEP,
  );

  test(
    'Ada, the requester, is told in her DM at the last reminder, with how to extend',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await workbench.open('cngn-desk');
      const dm = page.getByRole('log', { name: 'cngn-desk' });
      await contains(dm, 'still needs 1 approval and expires');
      await contains(dm, 'The approvers were reminded.');
      await contains(dm, '/cngn extend');
      await eventually(() => textOf(dm)).not.toContain('approval(s)');
      await screenshot(page, 'reminders-requester-dm');
    },
    STEP,
  );
});
