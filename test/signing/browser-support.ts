// Beside support.ts, for the browser files: the engine's own passkey book (sealed records only), and
// an approver signing on the sign page in their Chromium tab, a registration as much as a withdrawal.
import type { Page } from 'playwright-core';
import type { ApprovalApp } from '../slack/approvals/support.js';
import { contains, shown } from '../support/browser.js';
import { outcome, type SigningApp, signingToken } from './support.js';

/** The engine's own passkey book: its records sealed, so one written straight into the store never counts. */
export const engineBook = (app: Pick<ApprovalApp, 'engine'>) => app.engine.passkeys.signatures().book;

/** The sign page of `user`'s fresh link for round `round` of `requestId`. */
export async function signUrl(app: SigningApp, user: string, requestId: string, round = 0): Promise<string> {
  return `${app.signingUrl}/passkeys/sign?t=${await signingToken(app, user, requestId, round)}`;
}

/** The sign page opened at `url`, its "Sign … with your passkey" shown (a withdrawal's names its amount). */
export async function openSignPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await shown(page.getByRole('button', { name: /^Sign .*with your passkey$/ }));
}

/** Sign on the sign page opened at `url`: its "Sign … with your passkey" pressed, and the page's answer. */
export async function signAt(page: Page, url: string): Promise<void> {
  await openSignPage(page, url);
  await page.getByRole('button', { name: /^Sign .*with your passkey$/ }).click();
  await contains(outcome(page), 'Approved. Slack shows it now.');
}
