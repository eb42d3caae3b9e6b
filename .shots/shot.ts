import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { start } from '../src/startup.js';

const dir = mkdtempSync(path.join(tmpdir(), 'shot-'));
const started = await start(
  { PORT: '0', STORE_URL: `sqlite://${path.join(dir, 'w.sqlite')}`, LOG_LEVEL: 'silent' },
  { print: () => {} },
);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await (await browser.newContext({ viewport: { width: 1360, height: 900 }, timezoneId: 'Africa/Lagos' })).newPage();
await page.goto(started.url);
const say = async (text: string) => { const box = page.getByRole('textbox', { name: 'Message' }); await box.fill(text); await box.press('Enter'); };
const actAs = async (id: string) => { await page.getByRole('combobox', { name: 'Acting as' }).selectOption(id); await page.locator('[role="log"][aria-busy="false"]').waitFor(); };
await say('/cngn redeem');
const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
await dialog.getByLabel('Amount (₦, at least 1)').fill('1234567890.50');
await dialog.getByRole('combobox', { name: 'Bank' }).fill('Guaranty');
await dialog.getByRole('option', { name: /Guaranty/ }).first().click();
await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
await dialog.getByRole('button', { name: 'Ask for approval' }).click();
await page.getByRole('dialog', { name: 'Waiting for approval' }).getByRole('button', { name: 'Close', exact: true }).click();
await page.getByRole('navigation').getByRole('button', { name: 'approvals' }).click();
await actAs('U0BOLA');
const req = page.getByRole('log').getByRole('article', { name: 'cngn-desk', exact: true }).last();
await req.getByRole('button', { name: 'Approve' }).click();
await page.getByRole('dialog', { name: 'Review and approve' }).waitFor();
await page.screenshot({ path: '.shots/review-redeem.png' });
await actAs('U0CHIDI');
await req.getByRole('button', { name: 'Reject' }).click();
const rj = page.getByRole('dialog', { name: 'Reject request' });
await rj.getByRole('textbox').fill('wrong account');
await rj.getByRole('button', { name: 'Reject' }).click();
await page.waitForTimeout(1500);
await actAs('U0BOLA');
const review = page.getByRole('dialog', { name: 'Review and approve' });
console.log('review still open for Bola:', await review.count());
if (await review.count()) {
  await review.getByRole('button', { name: /^Approve/ }).click();
  await page.getByRole('dialog', { name: 'Not approved' }).waitFor();
  await page.screenshot({ path: '.shots/review-refused.png' });
}
await browser.close();
await started.stop();
