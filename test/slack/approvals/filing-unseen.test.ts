// A filed request must be visible to the approvers: the first post of its message is retried, and if
// Slack still refuses it the requester is told plainly and the request is cancelled, not left unseen.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { viewSubmission, withdrawValues } from '../../support/slack-requests.js';
import { APPROVALS_CHANNEL, fileWithdrawal, REQUESTER } from './support.js';

const isApprovalMessage = (body: Record<string, unknown>) =>
  body.channel === APPROVALS_CHANNEL && !body.thread_ts;

test('retries the first post of the approval message, then says where the request waits', async ({ app }) => {
  let attempts = 0;
  app.slack.on('chat.postMessage', (c) =>
    isApprovalMessage(c.body) && attempts++ === 0 ? { status: 503, body: { ok: false } } : undefined,
  );
  const id = await fileWithdrawal(app, '120');
  expect(attempts).toBe(2); // refused once, taken on the retry
  const modal = await app.slack.waitFor('views.update', (c) => JSON.stringify(c.body.view).includes(id));
  expect(JSON.stringify(modal.body.view)).toContain(`is waiting in <#${APPROVALS_CHANNEL}>`);
  expect((await app.engine.get(id))?.announcement).toBeDefined();
});

test('tells the requester plainly and cancels the request when Slack will not show it to approvers', async ({
  app,
}) => {
  app.slack.on('chat.postMessage', (c) =>
    isApprovalMessage(c.body) ? { body: { ok: false, error: 'not_in_channel' } } : undefined,
  );
  const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  const network = networks[0];
  if (!network) throw new Error('no network');
  await viewSubmission(app.sender, {
    callbackId: 'withdraw.submit',
    userId: REQUESTER,
    privateMetadata: JSON.stringify({ networks: networks.map((n) => n.id) }),
    values: withdrawValues({
      amount: '130',
      network: network,
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
    }),
  });
  const modal = await app.slack.waitFor('views.update', (c) =>
    JSON.stringify(c.body.view).includes('could not be shown to the approvers'),
  );
  const text = JSON.stringify(modal.body.view);
  expect(text).not.toContain('is waiting in');
  expect(text).toContain('it was cancelled; nothing was sent');
  const id = /AR-[0-9A-F]+/.exec(text)?.[0] ?? '';
  expect((await app.engine.get(id))?.state).toBe('cancelled');
  expect(await app.engine.openRequests()).toHaveLength(0);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});
