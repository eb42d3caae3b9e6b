// Address checksums as people meet them in Slack: a mistyped mixed-case address is refused under the
// field; an all-lower one carries no checksum, is accepted, and is shown (and sent) checksummed.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { textValue, viewSubmission } from '../../support/slack-requests.js';
import { APPROVALS_CHANNEL, APPROVER_A, approve, fileWithdrawal, REQUESTER, waitUntil } from './support.js';

const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // EIP-55's own example

test('refuses a mixed-case address with a wrong checksum under the field: a character was mistyped', async ({
  app,
}) => {
  const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  const response = await viewSubmission(app.sender, {
    callbackId: 'withdraw.submit',
    userId: REQUESTER,
    privateMetadata: JSON.stringify({ networks: networks.map((n) => n.id) }),
    values: {
      'withdraw.amount': { 'withdraw.amount': textValue('1500') },
      'withdraw.network': {
        'withdraw.network': { type: 'static_select', selected_option: { value: networks[0]?.id } },
      },
      'withdraw.address': { 'withdraw.address': textValue('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD') },
      'withdraw.purpose': { 'withdraw.purpose': textValue('Supplier payout INV-2231') },
    },
  });
  expect(response.json()).toEqual({
    response_action: 'errors',
    errors: {
      'withdraw.address':
        'Address: a character was mistyped: the checksum (its mix of upper and lower case) does not match',
    },
  });
  expect(await app.engine.openRequests()).toHaveLength(0);
});

test('accepts an all-lower address and shows and sends it checksummed', async ({ app }) => {
  const id = await fileWithdrawal(app, '1500', CHECKSUMMED.toLowerCase());
  const posted = app.slack.callsTo('chat.postMessage').find((c) => c.body.channel === APPROVALS_CHANNEL);
  expect(JSON.stringify(posted?.body.blocks)).toContain(CHECKSUMMED);
  expect((await app.engine.get(id))?.payload).toMatchObject({ address: CHECKSUMMED });
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  const sent = app.sandbox.requests.find((r) => r.method === 'POST' && r.path === '/v1/api/withdraw');
  expect(sent?.plainBody).toMatchObject({ address: CHECKSUMMED });
});
