// Every payment says what it is for: the withdraw, redeem and bridge forms refuse a missing, short or
// long purpose under its field, and approvers read the purpose, as text, wherever the request is shown.
import { describe, expect } from 'vitest';
import { redeemModal } from '../../../src/slack/approvals/blocks/bank-modal.js';
import { bridgeModal, withdrawModal } from '../../../src/slack/approvals/blocks/modals.js';
import { networkIds } from '../../support/approving.js';
import { botTest as test } from '../../support/bot.js';
import { commandAnswer, selectValue, textValue, viewSubmission } from '../../support/slack-requests.js';
import { slackTexts, withoutOwnMarkup } from '../builders/support.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  fileWithdrawal,
  REQUESTER,
  reviewFor,
} from './support.js';

const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

/** The values of each form that moves money, complete but for the purpose (`undefined`: left out). */
async function forms(started: ApprovalApp) {
  const { base, bsc } = await networkIds(started);
  const purposeOf = (id: string, purpose: string | undefined) =>
    purpose === undefined ? {} : { [id]: { [id]: textValue(purpose) } };
  return [
    {
      id: 'withdraw.purpose',
      submission: (purpose: string | undefined) => ({
        callbackId: 'withdraw.submit',
        privateMetadata: JSON.stringify({ networks: [base] }),
        values: {
          'withdraw.amount': { 'withdraw.amount': textValue('1500') },
          'withdraw.network': { 'withdraw.network': selectValue(base) },
          'withdraw.address': { 'withdraw.address': textValue(DEST) },
          ...purposeOf('withdraw.purpose', purpose),
        },
      }),
    },
    {
      id: 'redeem.purpose',
      submission: (purpose: string | undefined) => ({
        callbackId: 'redeem.submit',
        values: {
          'redeem.amount': { 'redeem.amount': textValue('5000') },
          'redeem.bank': { 'redeem.bank': selectValue('058|Guaranty Trust Bank') },
          'redeem.account': { 'redeem.account': textValue('0123456789') },
          ...purposeOf('redeem.purpose', purpose),
        },
      }),
    },
    {
      id: 'bridge.purpose',
      submission: (purpose: string | undefined) => ({
        callbackId: 'bridge.submit',
        privateMetadata: JSON.stringify({ networks: [base, bsc] }),
        values: {
          'bridge.amount': { 'bridge.amount': textValue('1500') },
          'bridge.origin': { 'bridge.origin': selectValue(base) },
          'bridge.destination': { 'bridge.destination': selectValue(bsc) },
          'bridge.address': { 'bridge.address': textValue(DEST) },
          ...purposeOf('bridge.purpose', purpose),
        },
      }),
    },
  ];
}

describe('the purpose field of the payment forms', () => {
  test.for<[string, string | undefined, RegExp]>([
    ['missing', undefined, /^Purpose: at least 3 characters/],
    ['empty', '   ', /^Purpose: at least 3 characters/],
    ['too short', 'ab', /^Purpose: at least 3 characters/],
    ['too long', 'x'.repeat(141), /^Purpose: at most 140 characters \(this one has 141\)$/],
    ['zero-width', '\u200b\u200b\u200b\u200b', /^Purpose: at least 3 visible characters/],
  ])(
    'refuses a %s purpose under the field, with the reason, and files nothing',
    async ([_what, purpose, reason], { app }) => {
      for (const form of await forms(app)) {
        const response = await viewSubmission(app.sender, { userId: REQUESTER, ...form.submission(purpose) });
        expect(response.json(), form.id).toEqual({
          response_action: 'errors',
          errors: { [form.id]: expect.stringMatching(reason) },
        });
      }
      expect(await app.engine.openRequests()).toHaveLength(0);
    },
  );

  test('offers the field on each form, required, with an example', () => {
    const built = [
      withdrawModal({ networks: [], whitelist: [], environment: 'SANDBOX' }),
      bridgeModal({ networks: [], environment: 'SANDBOX' }),
      redeemModal({ environment: 'SANDBOX' }),
    ];
    for (const view of built) {
      const input = view.blocks.find((b) => 'block_id' in b && String(b.block_id).endsWith('.purpose'));
      expect(input, view.callback_id).toMatchObject({
        type: 'input',
        optional: false,
        label: { text: 'Purpose' },
        element: { type: 'plain_text_input', placeholder: { text: 'Supplier payout INV-2231' } },
      });
    }
  });
});

describe('the purpose as approvers read it', () => {
  const HOSTILE = 'Payout <!channel> *bold* <http://x|y> & co';
  const ESCAPED = 'Payout &lt;!channel&gt; ＊bold＊ &lt;http://x|y&gt; &amp; co';

  test('is on the channel message, the DM copies, the review and the pending list, as text', async ({
    app: started,
  }) => {
    const id = await fileWithdrawal(started, '1500', DEST, `  ${HOSTILE} `);
    expect((await started.engine.get(id))?.purpose).toBe(HOSTILE);

    const posted = await started.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts,
    );
    const dm = await started.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVER_A && JSON.stringify(c.body).includes(id),
    );
    const review = (await reviewFor(started, id, APPROVER_A)).view;
    for (const [where, built] of [
      ['channel message', posted.body],
      ['DM copy', dm.body],
      ['review', review],
    ] as const) {
      const texts = slackTexts(built).mrkdwn;
      expect(texts.join('\n'), where).toContain(`*Purpose*\n${ESCAPED}`);
      for (const text of texts) expect(withoutOwnMarkup(text), where).not.toMatch(/[<>]/);
    }
    expect(JSON.stringify(posted.body)).not.toContain('<!channel>');

    const pending = await commandAnswer(started, 'pending', APPROVER_A);
    expect(slackTexts(pending.body).mrkdwn.join('\n')).toContain(`for: ${ESCAPED}`);
  });
});
