// Passkeys through the workbench in Chromium, as people take the steps: "Require passkeys" switched on
// in the sandbox panel; Bola and Chidi each ask `/cngn passkey`, follow the answer's link to the
// registration page in a tab with a device of their own (Chromium's virtual authenticator, through the
// DevTools protocol) and register. Chidi, holding no passkey, approves Bola's registration in #approvals
// with a click (the first passkeys); Bola, who holds one by then, follows the review's "Sign with your
// passkey" link for Chidi's and signs it on the sign page. Ada files a withdrawal that needs both; each approver's review shows "Sign ₦…
// with your passkey" in place of the submit, the link opens the sign page, they sign there, and the
// request is sent in #approvals.

import type { Locator, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { deviceTab } from '../signing/support.js';
import {
  browserAvailable,
  browserTest,
  contains,
  eventually,
  hidden,
  screenshot,
  shown,
  textOf,
  type WorkbenchPage,
} from '../support/browser.js';

// Two approvals from ₦1,000.00: the withdrawal is signed by both approvers.
const test = browserTest
  .extend('benchEnv', { scope: 'file' }, { CNGN_APPROVAL_TIERS: '0:1,1000:2' })
  .extend('bolaDevice', { scope: 'file' }, async ({ chromium }) => (await deviceTab(chromium)).page)
  .extend('chidiDevice', { scope: 'file' }, async ({ chromium }) => (await deviceTab(chromium)).page);

const VALID_ADDRESS = '0x4444444444444444444444444444444444444444';
const STEP = 60_000;

const log = (page: Page) => page.getByRole('log');
const privateAnswers = (page: Page) =>
  log(page).getByRole('article', { name: 'cngn-desk (only visible to you)' });
const botMessage = (page: Page, heading: string | RegExp): Locator =>
  log(page)
    .getByRole('article', { name: 'cngn-desk', exact: true })
    .filter({ has: page.getByRole('heading', { name: heading }) })
    .last();
const outcome = (page: Page) => page.locator('.outcome');

/** The link button's click opens a tab of the workbench's browser: its address, the tab closed. */
async function followLinkButton(page: Page, button: Locator): Promise<string> {
  const [opened] = await Promise.all([page.context().waitForEvent('page'), button.click()]);
  await opened.waitForURL(/\/passkeys\//);
  const url = opened.url();
  await opened.close();
  return url;
}

/** `who` asks `/cngn passkey`, follows the answer's link in `tab` and registers: the registration's message. */
async function registerFromLink(
  workbench: WorkbenchPage,
  page: Page,
  tab: Page,
  who: string,
): Promise<Locator> {
  await workbench.actAs(who);
  await workbench.open('treasury');
  await workbench.say('/cngn passkey');
  const link = privateAnswers(page).last().getByRole('link', { name: 'Register a passkey' });
  await shown(link);
  const href = (await link.getAttribute('href')) ?? '';
  expect(href).toMatch(/^http:\/\/localhost:\d+\/passkeys\/register\?t=/);
  await tab.goto(href);
  await tab.getByLabel('Name').fill(`${who}'s laptop`);
  await tab.getByRole('button', { name: 'Create passkey' }).click();
  await contains(outcome(tab), 'Filed: waiting for another approver (');
  return botMessage(page, /Register a passkey/);
}

describe.skipIf(!browserAvailable())(
  'workbench: passkeys required, registered and signed in Chromium',
  () => {
    test(
      'the sandbox panel switches passkeys on',
      async ({ workbench, page }) => {
        await workbench.actAs('Ada');
        const sandbox = page.getByRole('region', { name: '🧪 Sandbox' });
        await sandbox.getByLabel('Require passkeys').check();
        await contains(sandbox.getByRole('status'), 'Switched on.');
        await eventually(() => sandbox.getByLabel('Require passkeys').isChecked()).toBe(true);
      },
      STEP,
    );

    test(
      "Bola registers a passkey from /cngn passkey's link, and Chidi, holding none, approves it with a click",
      async ({ workbench, page, bolaDevice }) => {
        const registration = await registerFromLink(workbench, page, bolaDevice, 'Bola');
        await screenshot(bolaDevice, 'workbench-passkeys-register-page');
        await workbench.actAs('Chidi');
        await workbench.open('approvals');
        await contains(registration, 'Waiting for approval');
        await registration.getByRole('button', { name: 'Approve' }).click();
        const review = page.getByRole('dialog', { name: 'Review and approve' });
        await shown(review);
        await review.getByRole('button', { name: /^Approve/ }).click();
        await eventually(() => textOf(registration)).not.toContain('Waiting for approval');
        // The click counted by the first-passkeys rule says so in the request's thread.
        await registration.getByRole('button', { name: /repl(y|ies)/ }).click();
        const thread = page.getByRole('complementary', { name: 'Thread' });
        await contains(thread, '1 of 1 · unsigned: first passkeys');
        await screenshot(page, 'workbench-passkeys-registration-approved');
        await thread.getByRole('button', { name: 'Close thread' }).click();
        await hidden(thread);
      },
      STEP,
    );

    test(
      "Chidi registers a passkey from /cngn passkey's link, and Bola, who holds one, signs it on the sign page",
      async ({ workbench, page, bolaDevice, chidiDevice }) => {
        const registration = await registerFromLink(workbench, page, chidiDevice, 'Chidi');
        await workbench.actAs('Bola');
        await workbench.open('approvals');
        await contains(registration, 'Waiting for approval');
        await registration.getByRole('button', { name: 'Approve' }).click();
        const review = page.getByRole('dialog', { name: 'Review and approve' });
        const sign = review.getByRole('button', { name: 'Sign with your passkey' });
        await shown(sign);
        const url = await followLinkButton(page, sign);
        expect(url).toMatch(/^http:\/\/localhost:\d+\/passkeys\/sign\?t=/);
        await page.keyboard.press('Escape');
        await bolaDevice.goto(url);
        const signHere = bolaDevice.getByRole('button', { name: 'Sign with your passkey' });
        await shown(signHere);
        await contains(bolaDevice.locator('dl'), "Chidi's laptop");
        await screenshot(bolaDevice, 'workbench-passkeys-sign-registration');
        await signHere.click();
        await contains(outcome(bolaDevice), 'Approved. Slack shows it now.');
        await eventually(() => textOf(registration)).not.toContain('Waiting for approval');
      },
      STEP,
    );

    test(
      'Ada files a withdrawal; Bola and Chidi each sign it on the sign page; it is sent',
      async ({ workbench, page, bolaDevice, chidiDevice }) => {
        await workbench.actAs('Ada');
        await workbench.open('treasury');
        await workbench.fileWithdrawal('2500', VALID_ADDRESS);
        for (const [who, tab] of [
          ['Bola', bolaDevice],
          ['Chidi', chidiDevice],
        ] as const) {
          await workbench.actAs(who);
          await workbench.open('approvals');
          const withdrawal = botMessage(page, 'Withdrawal · SANDBOX');
          await withdrawal.getByRole('button', { name: 'Approve' }).click();
          const review = page.getByRole('dialog', { name: 'Review and approve' });
          const sign = review.getByRole('button', { name: 'Sign ₦2,500.00 with your passkey' });
          await shown(sign);
          if (who === 'Bola') await screenshot(page, 'workbench-passkeys-review-sign-link');
          const url = await followLinkButton(page, sign);
          expect(url).toMatch(/^http:\/\/localhost:\d+\/passkeys\/sign\?t=/);
          await page.keyboard.press('Escape');
          await tab.goto(url);
          const signHere = tab.getByRole('button', { name: 'Sign ₦2,500.00 with your passkey' });
          await shown(signHere);
          await contains(tab.locator('dl'), VALID_ADDRESS);
          if (who === 'Bola') await screenshot(tab, 'workbench-passkeys-sign-page');
          await signHere.click();
          // The first signature counts as one of two; nothing is sent until the second.
          const answer = who === 'Bola' ? 'still needs one more approval. Nothing is sent yet.' : 'Approved.';
          await contains(outcome(tab), answer);
          if (who === 'Bola') await contains(botMessage(page, 'Withdrawal · SANDBOX'), '1 of 2 (@Bola)');
        }
        const withdrawal = botMessage(page, 'Withdrawal · SANDBOX');
        await eventually(() => textOf(withdrawal)).toMatch(/Sent, waiting for the final status|Completed/);
        await screenshot(page, 'workbench-passkeys-sent');
      },
      STEP,
    );
  },
);
