// The freeze of sends in Chromium, through the workbench page by accessible names: Ada files a
// withdrawal; Bola freezes the sends with a reason; the request's message in #approvals carries the
// banner, Chidi's approval leaves it approved and held, and App Home says so too; Bola asks to lift
// the freeze, Chidi approves that, and the withdrawal goes out.
import type { Locator, Page } from 'playwright-core';
import { describe } from 'vitest';
import {
  approveInReview,
  browserAvailable,
  contains,
  eventually,
  screenshot,
  browserTest as test,
  textOf,
} from '../support/browser.js';

const VALID_ADDRESS = '0x3333333333333333333333333333333333333333';
const BANNER = 'Frozen by @Bola: a look-alike address was approved; checking';
const STEP = 60_000;

describe.skipIf(!browserAvailable())('workbench: freezing every send in Chromium', () => {
  const request = (page: Page, heading: string): Locator =>
    page
      .getByRole('log')
      .getByRole('article', { name: 'cngn-desk', exact: true })
      .filter({ has: page.getByRole('heading', { name: heading }) })
      .last();

  test(
    'Ada files a withdrawal; Bola freezes the sends and is told privately',
    async ({ workbench, page }) => {
      await workbench.actAs('Ada');
      await workbench.fileWithdrawal('4200', VALID_ADDRESS);
      await workbench.actAs('Bola');
      await workbench.say('/cngn freeze a look-alike address was approved; checking');
      await contains(page.getByRole('log', { name: 'Messages in #treasury' }), 'Frozen. From now on');
    },
    STEP,
  );

  test(
    'the request in #approvals carries the banner; Chidi approves it and it is held, not sent',
    async ({ workbench, page }) => {
      await workbench.actAs('Chidi');
      await workbench.open('approvals');
      const withdrawal = request(page, 'Withdrawal · SANDBOX');
      await contains(withdrawal, BANNER);
      await approveInReview(page, withdrawal.getByRole('button', { name: 'Approve' }));
      await contains(withdrawal, 'Approved, held: sends are frozen');
      await contains(page.getByRole('log', { name: 'Messages in #approvals' }), 'Sends are frozen.');
      await screenshot(page, 'freeze-approvals');
    },
    STEP,
  );

  test(
    'App Home leads with the banner',
    async ({ workbench, page }) => {
      await workbench.open('App Home');
      const home = page.getByRole('log', { name: 'App Home' });
      await contains(home, BANNER);
      await screenshot(page, 'freeze-home');
    },
    STEP,
  );

  test(
    'Bola asks to lift it; Chidi approves that, and the withdrawal goes out',
    async ({ workbench, page }) => {
      await workbench.actAs('Bola');
      await workbench.open('treasury');
      await workbench.say('/cngn unfreeze');
      await contains(
        page.getByRole('log', { name: 'Messages in #treasury' }),
        'once another approver approves it',
      );
      await workbench.actAs('Chidi');
      await workbench.open('approvals');
      const unfreeze = request(page, 'Lift the freeze of sends · SANDBOX');
      await approveInReview(page, unfreeze.getByRole('button', { name: 'Approve' }));
      await contains(page.getByRole('log', { name: 'Messages in #approvals' }), 'Sends resume.');
      const withdrawal = request(page, 'Withdrawal · SANDBOX');
      await eventually(() => textOf(withdrawal)).not.toContain('Frozen by');
      await contains(withdrawal, 'Sent, waiting for the final status');
      await screenshot(page, 'freeze-lifted');
    },
    STEP,
  );
});
