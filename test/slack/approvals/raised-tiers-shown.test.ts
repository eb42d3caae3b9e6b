// A restart with a new CNGN_APPROVAL_TIERS that asks more approvals of a request already filed: every
// place people read its count (`/cngn pending`, the review, App Home, the channel message, the approvers'
// DM copies) shows what the tiers ask now, from the first look, before anyone approved as after.
import { expect } from 'vitest';
import { approvalsTest as test } from '../../support/approvals-bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { commandAnswer, homeOpened } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  approve,
  fileWithdrawal,
  reviewFor,
  waitUntil,
} from './support.js';

const homeText = (call: SlackCall | undefined) =>
  JSON.stringify((call?.body.view as { blocks?: unknown })?.blocks ?? []);

test('a request filed at one approval, tiers raised to two before anyone approved: each place says two are needed', async ({
  startApp,
  sandbox,
  slack,
  store,
}) => {
  const first = await startApp({ sandbox, slack, store, tiers: '0:1', notify: 'channel' });
  const id = await fileWithdrawal(first, '5000');
  await first.stop();
  const raised = await startApp({ sandbox, slack, store, tiers: '0:2', notify: 'channel' });

  const list = await commandAnswer(raised, 'pending', APPROVER_A);
  expect(JSON.stringify(list.body.blocks)).toContain('0 of 2 approvals');
  const review = await reviewFor(raised, id, APPROVER_A);
  expect(JSON.stringify(review.view?.blocks)).toContain('none yet (2 needed)');

  const publishes = () => slack.callsTo('views.publish').filter((c) => c.body.user_id === APPROVER_A);
  expect((await homeOpened(raised.sender, APPROVER_A)).status).toBe(200);
  await waitUntil(() => homeText(publishes().at(-1)).includes(id), 'App Home listing the request');
  expect(homeText(publishes().at(-1))).toContain('0 of 2');

  // One approval under the new tiers: the message says one of two, and nothing is sent.
  await approve(raised, id, APPROVER_B);
  await raised.engine.idle();
  await raised.approvals?.presenter?.idle();
  const message = () => slack.messages(APPROVALS_CHANNEL).find((m) => m.text.includes(id));
  await waitUntil(() => JSON.stringify(message()?.blocks).includes('1 of 2'), 'the message updated');
  expect(await raised.engine.get(id)).toMatchObject({ state: 'pending', requiredApprovals: 1 });
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

test('the approvers’ DM copies of a request filed at one approval say two once a restart raised the tiers', async ({
  startApp,
  sandbox,
  slack,
  store,
}) => {
  const first = await startApp({ sandbox, slack, store, tiers: '0:1', notify: 'dm' });
  const id = await fileWithdrawal(first, '5000');
  const copies = () =>
    slack.callsTo('chat.postMessage').filter((c) => c.body.channel === APPROVER_A && c.body.blocks);
  await waitUntil(() => copies().length === 1, 'the DM copy');
  expect(JSON.stringify(copies()[0]?.body.blocks)).toContain('0 of 1');
  await first.approvals?.dms?.idle();
  await first.stop();
  // Nothing happened to the request since: the restart alone brings its copies to the tiers' count.
  const raised = await startApp({ sandbox, slack, store, tiers: '0:2', notify: 'dm' });
  await waitUntil(
    () =>
      slack.callsTo('chat.update').some((u) => {
        const blocks = JSON.stringify(u.body.blocks);
        return u.body.channel !== APPROVALS_CHANNEL && blocks.includes(id) && blocks.includes('0 of 2');
      }),
    'the DM copies updated',
  );
  await raised.approvals?.dms?.idle();
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});
