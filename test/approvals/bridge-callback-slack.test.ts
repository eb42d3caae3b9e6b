// Through the whole bot: the bridge callback posted to its route shows in the request's thread as a
// hint being confirmed with the service.
import { expect } from 'vitest';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  DEST,
  REQUESTER,
} from '../slack/approvals/support.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { botTest } from '../support/bot.js';
import { fileDraft } from '../support/filing.js';

/** The bot with a public URL of its own, so a bridge it sends carries a callback URL to it. */
const test = botTest.extend('app', async ({ startApp }) => startApp({ publicUrl: 'self' }));

async function sentBridge(app: ApprovalApp) {
  const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  const request = await fileDraft(app.engine, {
    kind: 'bridge',
    amount: '100000',
    payload: {
      originNetworkId: networks[0]?.id ?? '',
      destinationNetworkId: networks[1]?.id ?? '',
      destinationAddress: DEST,
    },
    display: {},
    purpose: 'Liquidity for the other chain',
    requester: REQUESTER,
  });
  await approveAsSeen(app.engine, request.id, APPROVER_A);
  await app.engine.idle();
  const sent = await app.engine.get(request.id);
  if (sent?.kind !== 'bridge' || !sent.payload.callbackUrl) throw new Error('no callback URL');
  return { sent, callbackUrl: sent.payload.callbackUrl };
}

async function callBack(app: ApprovalApp, callbackUrl: string, link: string) {
  const answer = await fetch(callbackUrl, {
    method: 'POST',
    body: JSON.stringify({
      explorerLink: link,
      hash: '0xfeed',
      transactionId: 'x',
      status: 'completed',
      amount: '1000.00',
    }),
  });
  expect(answer.status).toBe(200);
  return app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === APPROVALS_CHANNEL && String(c.body.text).startsWith('Bridge callback received'),
  );
}

test('says in the request thread that the bridge callback came, confirming with the service', async ({
  app,
}) => {
  const { sent, callbackUrl } = await sentBridge(app);
  const link = 'https://basescan.org/tx/0xfeed';
  const reply = await callBack(app, callbackUrl, link);
  expect(reply.body.text).toBe(`Bridge callback received: completed, ${link} — confirming with the service`);
  expect(reply.body.thread_ts).toBe(sent.announcement?.ts);
});

test('shows a callback link to a site that is not a known explorer as inert text, never a link', async ({
  app,
}) => {
  const { callbackUrl } = await sentBridge(app);
  const reply = await callBack(app, callbackUrl, 'https://evil.example/tx/0xfeed?a=1&b=2');
  // In a code span Slack links nothing; the text is escaped once, when the thread reply is built.
  expect(reply.body.text).toBe(
    'Bridge callback received: completed, a link to an unknown site `https://evil.example/tx/0xfeed?a=1&amp;b=2` — confirming with the service',
  );
});
