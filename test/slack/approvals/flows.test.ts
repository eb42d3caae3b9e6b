// Each filing flow end to end: slash command → prefilled modal → inline validation → service checks
// → approval message → approval → exactly the approved body at the sandbox → final state.
import { describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { createStore } from '../../../src/store/index.js';
import { checkView } from '../../../src/workbench/slack-rules.js';
import {
  announced,
  approveAs,
  fileBridge,
  fileRedeem,
  fileSettlement,
  networkIds,
} from '../../support/approving.js';
import { botTest as test } from '../../support/bot.js';
import {
  optionsRequest,
  redeemValues,
  selectValue,
  slashCommand,
  textValue,
  viewSubmission,
} from '../../support/slack-requests.js';
import { StoreControls } from '../../support/store-controls.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  click,
  DEST,
  fileWithdrawal,
  REQUESTER,
  waitUntil,
} from './support.js';

type View = { callback_id: string; private_metadata?: string; blocks: Array<Record<string, unknown>> };

async function command(app: ApprovalApp, text: string, userId = REQUESTER) {
  const name = `cmd-${Math.random().toString(36).slice(2)}`;
  await slashCommand(app.sender, { text, userId, responseUrl: app.slack.responseUrl(name) });
  return name;
}

/** The form, once it has replaced the loading modal it opens as. */
async function filledForm(app: ApprovalApp, callbackId: string): Promise<View> {
  const update = await app.slack.waitFor(
    'views.update',
    (c) => (c.body.view as View | undefined)?.callback_id === callbackId,
  );
  return update.body.view as View;
}

const newestRequest = async (app: ApprovalApp): Promise<ApprovalRequest> => {
  const open = await app.engine.openRequests();
  const last = open.at(-1);
  if (!last) throw new Error('nothing filed');
  return last;
};

describe('withdraw', () => {
  test('prefills the modal from the arguments and offers only enabled networks', async ({ app }) => {
    await command(app, `withdraw 1500 base ${DEST}`);
    const view = await filledForm(app, 'withdraw.submit');
    const text = JSON.stringify(view);
    expect(view.callback_id).toBe('withdraw.submit');
    expect(text).toContain('"initial_value":"1500"');
    expect(text).toContain(`"initial_value":"${DEST}"`);
    const { base, disabled } = await networkIds(app);
    expect(text).toContain(
      `"initial_option":{"text":{"type":"plain_text","text":"Base (base)"},"value":"${base}"}`,
    );
    expect(text).not.toContain(disabled);
  });

  test('refuses bad fields inline with the field and the reason', async ({ app }) => {
    const { base, disabled } = await networkIds(app);
    const response = await viewSubmission(app.sender, {
      callbackId: 'withdraw.submit',
      userId: REQUESTER,
      privateMetadata: JSON.stringify({ networks: [base] }),
      values: {
        'withdraw.amount': { 'withdraw.amount': textValue('12.345') },
        'withdraw.network': { 'withdraw.network': selectValue(disabled) },
        'withdraw.address': { 'withdraw.address': textValue('0x52908400098527886E0F7030069857D2E4169Ee7') },
        'withdraw.purpose': { 'withdraw.purpose': textValue(' x ') },
      },
    });
    expect(response.json()).toEqual({
      response_action: 'errors',
      errors: {
        'withdraw.amount': expect.stringMatching(/^Amount: .*2 decimals/),
        'withdraw.network': expect.stringMatching(/^Network: /),
        'withdraw.address': expect.stringMatching(/^Address: .*checksum/),
        'withdraw.purpose': expect.stringMatching(/^Purpose: at least 3 characters/),
      },
    });
    expect(await app.engine.openRequests()).toHaveLength(0);
  });
});

describe('redeem', () => {
  test('loads bank options from the full list as the person types', async ({ app }) => {
    const all = await optionsRequest(app.sender, { actionId: 'redeem.bank', value: '' });
    expect((all.json() as { options: unknown[] }).options.length).toBeGreaterThan(20);
    const some = await optionsRequest(app.sender, { actionId: 'redeem.bank', value: 'guar' });
    expect(some.json()).toEqual({
      options: [
        { text: { type: 'plain_text', text: 'Guaranty Trust Bank' }, value: '058|Guaranty Trust Bank' },
      ],
    });
  });

  test('answers the bank picker with no options, in time, when the bank list cannot be read', async ({
    app,
  }) => {
    app.sandbox.failNext('GET', '/v1/api/banks', 403, 1, 'IP address not whitelisted');
    const none = await optionsRequest(app.sender, { actionId: 'redeem.bank', value: 'guar' });
    expect(none.status).toBe(200);
    expect(none.json()).toEqual({ options: [] });
  });

  test('answers the bank picker with no options, in time, while the bank list is slow to read', async ({
    startApp,
  }) => {
    const controls = new StoreControls();
    const store = await createStore('memory://');
    const app = await startApp({ store: controls.wrap(store) });
    const release = controls.hangReads('cngn:cache:'); // the cached list does not come back
    const none = await optionsRequest(app.sender, { actionId: 'redeem.bank', value: 'guar' });
    release();
    expect(none.status).toBe(200);
    expect(none.json()).toEqual({ options: [] });
  });

  test('fills the bank picker for a keystroke that joins a read of the list already under way', async ({
    startApp,
  }) => {
    // Its own request counts as Slack traffic until acked: waiting for a quiet moment before going on
    // from the shared read held it past the picker's deadline, and it answered with no options.
    const controls = new StoreControls();
    let bankReads = 0;
    const store = controls.wrap(await createStore('memory://'));
    const counted = new Proxy(store, {
      get: (target, property) =>
        property === 'get'
          ? (key: string) => {
              if (key.endsWith(':banks')) bankReads++;
              return target.get(key);
            }
          : Reflect.get(target, property),
    });
    const app = await startApp({ store: counted });
    const before = app.sandbox.count('GET', '/v1/api/banks');
    const release = controls.holdWrites('cngn:cache:'); // the first read stays under way
    const first = optionsRequest(app.sender, { actionId: 'redeem.bank', value: 'guar' });
    await expect.poll(() => bankReads).toBe(1);
    const second = optionsRequest(app.sender, { actionId: 'redeem.bank', value: 'guar' });
    await expect.poll(() => bankReads).toBe(2); // it looked in the cache, found nothing, and joins
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const gtb = {
      options: [
        { text: { type: 'plain_text', text: 'Guaranty Trust Bank' }, value: '058|Guaranty Trust Bank' },
      ],
    };
    expect((await first).json()).toEqual(gtb);
    expect((await second).json()).toEqual(gtb);
    expect(app.sandbox.count('GET', '/v1/api/banks')).toBe(before + 1); // the second joined the first
  });

  test('shows the form again with the reason when the account cannot be resolved, and files nothing', async ({
    app,
  }) => {
    await viewSubmission(app.sender, {
      callbackId: 'redeem.submit',
      userId: REQUESTER,
      values: redeemValues({ amount: '5000', account: '0000000000' }),
    });
    const update = await app.slack.waitFor('views.update', (c) =>
      JSON.stringify(c.body.view).includes('redeem.submit'),
    );
    expect(JSON.stringify(update.body.view)).toContain('Account number: Could not resolve account details');
    expect(await app.engine.openRequests()).toHaveLength(0);
  });

  test('shows the form again, as Slack takes it, for a bank chosen under its code alone', async ({ app }) => {
    await viewSubmission(app.sender, {
      callbackId: 'redeem.submit',
      userId: REQUESTER,
      values: redeemValues({ amount: '5000', account: '0000000000', bank: '058|' }),
    });
    const update = await app.slack.waitFor('views.update', (c) =>
      JSON.stringify(c.body.view).includes('redeem.submit'),
    );
    const view = update.body.view as View;
    expect(() => checkView(view, 'modal')).not.toThrow();
    const picker = view.blocks.find((b) => b.block_id === 'redeem.bank') as {
      element: Record<string, unknown>;
    };
    expect(picker.element.initial_option).toEqual({
      text: { type: 'plain_text', text: 'Guaranty Trust Bank' },
      value: '058|',
    });
  });

  test('refuses an amount under 1 and an account number that is not 10 digits', async ({ app }) => {
    const response = await viewSubmission(app.sender, {
      callbackId: 'redeem.submit',
      userId: REQUESTER,
      values: redeemValues({ amount: '0.50', account: '12345' }),
    });
    expect(response.json()).toMatchObject({
      response_action: 'errors',
      errors: {
        'redeem.amount': 'Amount: must be at least ₦1',
        'redeem.account': 'Account number: must be exactly 10 digits',
      },
    });
  });

  test('files with the resolved name, and sends exactly the approved body', async ({ app }) => {
    const { request, message: posted } = await fileRedeem(app, '5,000.25');
    expect(request.display.accountName).toMatch(/\w+/);
    expect(JSON.stringify(posted.body.blocks)).toContain(request.display.accountName ?? 'missing');
    expect(JSON.stringify(posted.body.blocks)).toContain('Guaranty Trust Bank · 0123456789');
    expect(app.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(0);
    await approveAs(app, request.id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent, waiting'));
    const sent = app.sandbox.requests.filter((r) => r.path === '/v1/api/redeemAsset');
    expect(sent.map((r) => r.plainBody)).toEqual([
      { amount: 5000.25, bankCode: '058', accountNumber: '0123456789' },
    ]);
    // The name was checked again at approval (one more resolution).
    expect(app.sandbox.count('POST', '/v1/api/account/verify')).toBe(2);
  });

  test('sends the request back to the approvers when the resolved name changed', async ({ app }) => {
    const request = await announced(app, (await fileRedeem(app, '100')).request.id);
    // Meanwhile the account changed hands (as far as what was filed is concerned).
    await app.store.set(`approval:${request.id}`, {
      ...request,
      display: { ...request.display, accountName: 'Old Owner' },
    });
    await approveAs(app, request.id, APPROVER_A);
    const update = await app.slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.body.blocks).includes('Sent back'),
    );
    expect(JSON.stringify(update.body.blocks)).toContain('0 of 1');
    expect(app.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(0);
  });
});

describe('settlement, whitelist, bridge', () => {
  test('updates the settlement account with the resolved name once approved', async ({ app }) => {
    const { request } = await fileSettlement(app);
    // It reroutes every future payout, so it needs the top tier: two approvers.
    expect(request.requiredApprovals).toBe(2);
    await approveAs(app, request.id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('1 of 2'));
    expect(app.sandbox.requests.filter((r) => r.path === '/v1/api/bank-account')).toHaveLength(0);
    await approveAs(app, request.id, APPROVER_B);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Completed'));
    const sent = app.sandbox.requests.filter((r) => r.path === '/v1/api/bank-account');
    expect(sent.map((r) => r.plainBody)).toEqual([
      {
        bankName: 'Guaranty Trust Bank',
        bankAccountName: request.display.accountName,
        bankAccountNumber: '0123456789',
      },
    ]);
  });

  test('whitelists an address after approval and says the service enforces a 24 h timelock', async ({
    app,
  }) => {
    await command(app, `whitelist add base ${DEST}`);
    const view = await filledForm(app, 'whitelist.submit');
    expect(JSON.stringify(view)).toContain('24 h timelock');
    const { base } = await networkIds(app);
    await viewSubmission(app.sender, {
      callbackId: 'whitelist.submit',
      userId: REQUESTER,
      privateMetadata: view.private_metadata ?? '',
      values: {
        'whitelist.network': { 'whitelist.network': selectValue(base) },
        'whitelist.address': { 'whitelist.address': textValue(DEST) },
      },
    });
    await app.slack.waitFor('chat.postMessage', (c) => c.body.channel === APPROVALS_CHANNEL);
    const request = await newestRequest(app);
    await approveAs(app, request.id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Completed'));
    expect(
      app.sandbox.requests.filter((r) => r.path === '/v1/api/whitelist').map((r) => r.plainBody),
    ).toEqual([{ networkId: base, address: DEST }]);
  });

  test('files a bridge with a live quote, re-quotes at approval, and completes from the callback', async ({
    startApp,
  }) => {
    const app = await startApp({ publicUrl: 'self' });
    const { base, bsc } = await networkIds(app);
    const { request, message: posted } = await fileBridge(app, '100000', base, bsc, DEST);
    expect(JSON.stringify(posted.body.blocks)).toContain('Receivable');
    expect(request.kind === 'bridge' && request.payload.callbackUrl).toMatch(
      /\/callbacks\/bridge\/[\w-]{32}$/,
    );
    await approveAs(app, request.id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent, waiting'));
    expect(app.sandbox.count('POST', '/v1/api/bridge-quote')).toBe(2);
    const sent = app.sandbox.requests.filter((r) => r.path === '/v1/api/bridge');
    expect(sent.map((r) => r.plainBody)).toEqual([
      {
        originNetworkId: base,
        destinationNetworkId: bsc,
        destinationAddress: DEST,
        callbackUrl: request.kind === 'bridge' ? request.payload.callbackUrl : '',
      },
    ]);
    await app.sandbox.settleAll();
    await waitUntil(
      async () => (await app.engine.get(request.id))?.state === 'completed',
      'bridge completed',
    );
  });

  test('refuses an unknown bridge callback token', async ({ startApp }) => {
    const app = await startApp({ publicUrl: 'self' });
    const response = await fetch(`${app.baseUrl}/callbacks/bridge/${'x'.repeat(32)}`, {
      method: 'POST',
      body: JSON.stringify({ status: 'completed', transactionId: '1' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('pending and audit', () => {
  test('lists open requests and the last audit steps privately', async ({ app }) => {
    const first = await fileWithdrawal(app, '100');
    const second = await fileWithdrawal(app, '200');
    await click(app, 'approval.cancel', second, REQUESTER);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Cancelled'));
    const pending = await command(app, 'pending');
    const list = await app.slack.waitFor(`response_url:${pending}`);
    expect(JSON.stringify(list.body)).toContain(first);
    expect(JSON.stringify(list.body)).not.toContain(second);
    const audit = await command(app, 'audit 2');
    const log = await app.slack.waitFor(`response_url:${audit}`);
    const text = JSON.stringify(log.body);
    expect(text).toContain('last 2');
    expect(text).toContain(`${second} withdraw ₦200.00: *cancelled*`);
  });
});
