// The page alone, in Chromium, on a stand-in for the workbench server (render-stub.ts): what a person
// types and fills in: /cngn lines with their hints, modals (loading, updated, pushed, external selects),
// App Home and the sandbox panel. Its tests are steps on one page, in file order.
import { describe, expect } from 'vitest';
import { redeemModal } from '../../src/slack/approvals/blocks/bank-modal.js';
import { withdrawModal } from '../../src/slack/approvals/blocks/modals.js';
import { loadingView } from '../../src/slack/runtime/open-modal.js';
import { contains, eventually, hidden, screenshot, shown, textOf } from '../support/browser.js';
import { it, radioModal, run } from './render-stub.js';

describe.skipIf(!run)('workbench page in Chromium (fixture state)', () => {
  it("sends /cngn lines as commands, with the help's subcommands as hints", async ({ page, stub }) => {
    await page.getByRole('button', { name: 'treasury' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('/cngn ba');
    await contains(page.getByRole('list', { name: 'Command hints' }), '/cngn balance');
    await contains(page.getByRole('list', { name: 'Command hints' }), '/cngn banks [name]');
    await box.fill('/cngn balance');
    await box.press('Enter');
    await eventually(() => stub.lastPost('/command')?.body).toEqual({
      user: 'U0ADA',
      channel: 'C0TREASURY',
      text: '/cngn balance',
    });
    await eventually(() => box.inputValue()).toBe('');
    await box.fill('good morning');
    await box.press('Enter');
    await eventually(() => stub.lastPost('/message')?.body.text).toBe('good morning');
  });

  it('opens the loading modal, fills it in on views.update keeping what was typed, and shows errors inline', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.modals = [{ id: 'V0WD', hash: 'a', view: loadingView('🧪 SANDBOX') }];
    });
    await contains(page.getByRole('dialog', { name: 'One moment' }), 'Loading the form…');
    const form = () =>
      withdrawModal({
        networks: [
          { id: 'net-base', name: 'Base', shortName: 'base' },
          { id: 'net-bsc', name: 'BNB Smart Chain', shortName: 'bsc' },
        ],
        whitelist: [],
        environment: '🧪 SANDBOX',
      });
    stub.change((s) => {
      s.modals = [{ id: 'V0WD', hash: 'b', view: form() }];
    });
    const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
    await dialog.getByLabel('Amount (₦ / cNGN)').fill('1500');
    await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
    await dialog.getByLabel('Destination address').fill('0x123');
    await dialog.getByLabel('Save this address for later withdrawals').check();
    await dialog.getByLabel('Purpose', { exact: true }).fill('Supplier payout INV-2231');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body).toEqual({
      user: 'U0ADA',
      view_id: 'V0WD',
      values: {
        'withdraw.amount': { 'withdraw.amount': '1500' },
        'withdraw.network': { 'withdraw.network': 'net-base' },
        'withdraw.address': { 'withdraw.address': '0x123' },
        'withdraw.save': { 'withdraw.save': ['save'] },
        'withdraw.purpose': { 'withdraw.purpose': 'Supplier payout INV-2231' },
      },
    });
    stub.change((s) => {
      const top = s.modals[0];
      if (top) top.errors = { 'withdraw.address': 'Not a valid address for Base: 0x and 40 hex digits' };
    });
    await eventually(() => textOf(dialog.getByRole('alert'))).toBe(
      'Not a valid address for Base: 0x and 40 hex digits',
    );
    await eventually(() => dialog.getByLabel('Destination address').getAttribute('aria-invalid')).toBe(
      'true',
    );
    await screenshot(page, 'render-withdraw-error');
    stub.change((s) => {
      s.modals = [{ id: 'V0WD', hash: 'c', view: form() }];
    });
    await eventually(() => dialog.getByLabel('Amount (₦ / cNGN)').inputValue()).toBe('1500');
    await hidden(dialog.getByRole('alert'));
  });

  it('stacks a pushed view on top, with radio buttons, and closes it', async ({ page, stub }) => {
    stub.change((s) => {
      s.modals = [...s.modals, radioModal];
    });
    const dialog = page.getByRole('dialog', { name: 'Pick one' });
    await dialog.getByLabel('Careful').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body.values).toEqual({
      choice: { choice: 'careful' },
    });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => stub.lastPost('/view/close')?.body).toEqual({ user: 'U0ADA', view_id: 'V0RADIO' });
    stub.change((s) => {
      s.modals = s.modals.slice(0, 1);
    });
    await shown(page.getByRole('dialog', { name: 'Withdraw cNGN' }));
    stub.change((s) => {
      s.modals = [];
    });
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
  });

  it("asks the bot for an external select's options as the person types", async ({ page, stub }) => {
    stub.change((s) => {
      s.modals = [{ id: 'V0RD', hash: 'a', view: redeemModal({ environment: '🧪 SANDBOX' }) }];
    });
    const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
    await dialog.getByRole('combobox', { name: 'Bank' }).fill('acc');
    await dialog.getByRole('option', { name: 'Access Bank' }).click();
    expect(stub.lastPost('/suggest')?.body).toMatchObject({
      view_id: 'V0RD',
      block_id: 'redeem.bank',
      action_id: 'redeem.bank',
    });
    await dialog.getByLabel('Amount (₦, at least 1)').fill('5000');
    await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
    await dialog.getByLabel('Purpose', { exact: true }).fill('Refund to customer');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body.values).toEqual({
      'redeem.amount': { 'redeem.amount': '5000' },
      'redeem.bank': { 'redeem.bank': '044|Access Bank' },
      'redeem.account': { 'redeem.account': '0123456789' },
      'redeem.purpose': { 'redeem.purpose': 'Refund to customer' },
    });
    stub.change((s) => {
      s.modals = [];
    });
  });

  it('never offers options for older text: typing clears them and shows "Searching…" until the answer for the text comes', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.modals = [{ id: 'V0RD2', hash: 'a', view: redeemModal({ environment: '🧪 SANDBOX' }) }];
    });
    stub.holdSuggest = true;
    const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
    const bank = dialog.getByRole('combobox', { name: 'Bank' });
    const held = (value: string) =>
      eventually(() => stub.heldSuggest.find((h) => h.value === value)).toBeTruthy();
    const answer = (value: string, options: Array<{ text: string; value: string }>) =>
      stub.answerSuggest(value, options);
    await bank.click();
    await bank.fill('acc');
    await held('acc');
    answer('acc', [{ text: 'Access Bank', value: '044|Access Bank' }]);
    await shown(dialog.getByRole('option', { name: 'Access Bank' }));
    // The text changes: Access Bank must not stay clickable while the answer for "zen" is awaited.
    await bank.fill('zen');
    await eventually(() => dialog.getByRole('option').count()).toBe(0);
    await contains(dialog.getByRole('listbox'), 'Searching…');
    await held('zen');
    answer('zen', [{ text: 'Zenith Bank', value: '057|Zenith Bank' }]);
    await dialog.getByRole('option', { name: 'Zenith Bank' }).click();
    await dialog.getByLabel('Amount (₦, at least 1)').fill('5000');
    await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
    await dialog.getByLabel('Purpose', { exact: true }).fill('Refund to customer');
    await screenshot(page, 'render-bank-typeahead');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body.values).toMatchObject({
      'redeem.bank': { 'redeem.bank': '057|Zenith Bank' },
    });
    stub.holdSuggest = false;
    stub.answeredSuggest.clear();
    stub.change((s) => {
      s.modals = [];
    });
  });

  it('opens App Home (app_home_opened) and draws the published view, whose buttons act from home', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.home = {
        type: 'home',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Waiting for you' } },
          {
            type: 'section',
            block_id: 'home.request',
            text: { type: 'mrkdwn', text: '*AR-7Q2M9K4D1X* · Redemption · ₦250,000.00' },
            accessory: {
              type: 'button',
              action_id: 'approval.approve',
              style: 'primary',
              value: 'AR-7Q2M9K4D1X:0',
              text: { type: 'plain_text', text: 'Approve' },
            },
          },
        ],
      };
    });
    await page.getByRole('navigation').getByRole('button', { name: 'App Home' }).click();
    await eventually(() => stub.lastPost('/home')?.body).toEqual({ user: 'U0ADA' });
    const home = page.getByRole('log', { name: 'App Home' });
    await shown(home.getByRole('heading', { name: 'Waiting for you' }));
    await eventually(() => home.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    await home.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => stub.lastPost('/action')?.body).toEqual({
      user: 'U0ADA',
      container: { type: 'home' },
      block_id: 'home.request',
      action_id: 'approval.approve',
      value: 'AR-7Q2M9K4D1X:0',
    });
    await page.getByRole('navigation').getByRole('button', { name: 'treasury' }).click();
  });

  it('drives the sandbox from its panel', async ({ page, stub }) => {
    const panel = page.getByRole('region', { name: '🧪 Sandbox' });
    await panel.getByRole('button', { name: 'Settle pending' }).click();
    await eventually(() => stub.lastPost('/sandbox/settle')?.body).toEqual({});
    await panel.getByRole('button', { name: 'Make the next redemption fail' }).click();
    await eventually(() => stub.lastPost('/sandbox/fail-next-redemption')).toBeDefined();
    await eventually(() => textOf(panel.getByRole('status'))).toBe(
      'The next redemption will fail at the bank.',
    );
    const passkeys = panel.getByRole('switch', { name: 'Require passkeys' });
    expect(await passkeys.isChecked()).toBe(false);
    await passkeys.check();
    await eventually(() => stub.lastPost('/sandbox/passkeys')?.body).toEqual({ required: true });
    await eventually(() => textOf(panel.getByRole('status'))).toBe('Switched on.');
    expect(await passkeys.isChecked()).toBe(true);
    await contains(panel, 'Passkeys required: every approval is signed on the signing page.');
  });
});
