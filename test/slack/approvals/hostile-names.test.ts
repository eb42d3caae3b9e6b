// Through the real bot: a bank that answers the account lookup with Slack markup in the name, and a
// reject reason with a mass mention, reach approvers and the requester as text, never as a ping or link.
import { describe, expect } from 'vitest';
import { fileRedeem, fileSettlement } from '../../support/approving.js';
import { botTest as test } from '../../support/bot.js';
import { openedViewId } from '../../support/fake-slack.js';
import { ALERTS_CHANNEL } from '../../support/harness.js';
import {
  commandAnswer,
  redeemValues,
  selectValue,
  slashCommand,
  textValue,
  viewSubmission,
} from '../../support/slack-requests.js';
import { slackTexts, withoutOwnMarkup } from '../builders/support.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  approve,
  click,
  REQUESTER,
  waitUntil,
} from './support.js';

const ACCOUNT = '0123456789';
const HOSTILE_NAME = 'ADA <!channel> <https://evil.example|Approve> & SONS';
const ESCAPED_NAME = 'ADA &lt;!channel&gt; &lt;https://evil.example|Approve&gt; &amp; SONS';

/** Every mrkdwn text Slack would parse in a call's message or view, and what is left of the bot's own markup. */
function parsedBy(body: Record<string, unknown>): string[] {
  return slackTexts(body.view ?? body).mrkdwn;
}

function expectInert(body: Record<string, unknown>) {
  for (const text of parsedBy(body)) {
    expect(withoutOwnMarkup(text), text).not.toMatch(/[<>]/);
  }
}

/** `/cngn redeem` and its modal, as the requester does it, to the account the bank names `name`. */
async function fileRedemption(app: ApprovalApp, name = HOSTILE_NAME): Promise<void> {
  app.sandbox.setAccountName(ACCOUNT, name);
  await slashCommand(app.sender, {
    text: `redeem 5000 gtbank ${ACCOUNT}`,
    userId: REQUESTER,
    responseUrl: app.slack.responseUrl('redeem'),
  });
  await app.slack.waitFor('views.update', (c) =>
    JSON.stringify(c.body.view).includes('"callback_id":"redeem.submit"'),
  );
  await viewSubmission(app.sender, {
    callbackId: 'redeem.submit',
    userId: REQUESTER,
    values: redeemValues({ amount: '5000', account: ACCOUNT }),
  });
}

describe('outside text in the approval path', () => {
  test('shows a resolved account name carrying mentions and a link as plain text to approvers and the requester', async ({
    app,
  }) => {
    await fileRedemption(app);

    // The approval message, its notification text included.
    const posted = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts,
    );
    const request = (await app.engine.openRequests())[0];
    expect(request?.display.accountName).toBe(HOSTILE_NAME);
    expect(parsedBy(posted.body).join('\n')).toContain(`*Account name (resolved)*\n${ESCAPED_NAME}`);
    expectInert(posted.body);
    expect(JSON.stringify(posted.body)).not.toContain('<!channel>');

    // The requester's "waiting for approval" modal names the account the same way.
    const filed = await app.slack.waitFor('views.update', (c) =>
      JSON.stringify(c.body.view).includes('Waiting for approval'),
    );
    expect(parsedBy(filed.body).join('\n')).toContain(
      `to *${ESCAPED_NAME}* · Guaranty Trust Bank · ${ACCOUNT}`,
    );
    expectInert(filed.body);

    // Rejected with a reason that tries to ping everyone: the thread reply (its text notifies),
    // the requester's DM and the updated message show it as text.
    await click(app, 'approval.reject', request?.id ?? '', APPROVER_A);
    const opened = await app.slack.waitFor('views.open', (c) =>
      JSON.stringify(c.body.view).includes('approval.reject.submit'),
    );
    const view = opened.body.view as { callback_id: string; private_metadata: string };
    expectInert(opened.body);
    await viewSubmission(app.sender, {
      callbackId: view.callback_id,
      viewId: openedViewId(opened),
      privateMetadata: view.private_metadata,
      userId: APPROVER_A,
      values: { 'reject.reason': { 'reject.reason': textValue('<!here> wrong payee <@U999>') } },
    });
    const reason = '&lt;!here&gt; wrong payee &lt;@U999&gt;';
    const reply = await app.slack.waitFor(
      'chat.postMessage',
      (c) =>
        c.body.channel === posted.body.channel &&
        Boolean(c.body.thread_ts) &&
        String(c.body.text).startsWith('Rejected'),
    );
    expect(String(reply.body.text)).toContain(reason);
    expectInert(reply.body);
    const dm = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === REQUESTER && String(c.body.text).includes('rejected'),
    );
    expect(String(dm.body.text)).toContain(reason);
    expectInert(dm.body);
    const updated = await app.slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.body).includes('Rejected'),
    );
    expect(parsedBy(updated.body).join('\n')).toContain(`Reason: ${reason}`);
    expectInert(updated.body);
  });

  test('shows a resolved name that turns itself around with its hidden character marked, and says so in words', async ({
    app,
  }) => {
    // Shown raw, U+202E turns the rest around: approvers would read "ADA OBI ENTERPRISES".
    await fileRedemption(app, 'ADA OBI \u202eSESIRPRETNE *PAID*');
    const shown = 'ADA OBI ⟨U+202E⟩SESIRPRETNE ＊PAID＊';
    const words = 'Look twice: the account name contains hidden characters';
    const posted = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts,
    );
    const filed = await app.slack.waitFor('views.update', (c) =>
      JSON.stringify(c.body.view).includes('Waiting for approval'),
    );
    const id = (await app.engine.openRequests())[0]?.id ?? '';
    const dm = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVER_A && JSON.stringify(c.body).includes(id),
    );
    for (const body of [posted.body, filed.body, dm.body]) {
      const texts = parsedBy(body).join('\n');
      expect(texts).toContain(shown);
      expect(texts).toContain(words);
      expect(JSON.stringify(body)).not.toMatch(/\u202e|\\u202e/i);
    }
    // The review an Approve click opens says it too.
    await click(app, 'approval.approve', id, APPROVER_A);
    const review = await app.slack.waitFor('views.open', (c) =>
      JSON.stringify(c.body.view).includes('approval.review.submit'),
    );
    expect(parsedBy(review.body).join('\n')).toContain(words);
  });

  test('shows the name as plain text in the alert for the payout and in /cngn tx', async ({ startApp }) => {
    const app = await startApp({ withWebhooks: true });
    await fileRedemption(app);
    await app.slack.waitFor('chat.postMessage', (c) => c.body.channel === APPROVALS_CHANNEL);
    const id = (await app.engine.openRequests())[0]?.id ?? '';
    await approve(app, id, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    const reference = (await app.engine.get(id))?.outcome?.reference ?? '';
    await app.sandbox.settleAll();
    const alert = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === ALERTS_CHANNEL && String(c.body.text).includes('Redemption paid out'),
    );
    expect(parsedBy(alert.body).join('\n')).toContain(`*Account name*\n${ESCAPED_NAME}`);
    expectInert(alert.body);

    const answer = await commandAnswer(app, `tx ${reference}`, REQUESTER);
    expect(parsedBy(answer.body).join('\n')).toContain(ESCAPED_NAME);
    expectInert(answer.body);
  });
});

describe('a bank option naming one bank under another’s code', () => {
  // The option's value is the client's word: the code decides where money goes, so the name shown and
  // sent is the one the service lists for that code.
  const FORGED = selectValue('058|Access Bank');

  test('files a redemption under the bank the service lists for the code', async ({ app }) => {
    const { request, message } = await fileRedeem(app, '5000', ACCOUNT, FORGED);
    expect(request.display).toMatchObject({ bankName: 'Guaranty Trust Bank', bankCode: '058' });
    expect(JSON.stringify(message.body)).not.toContain('Access Bank');
  });

  test('files a settlement account under the listed name, which is what the service is sent', async ({
    app,
  }) => {
    const { request } = await fileSettlement(app, ACCOUNT, FORGED);
    expect(request.payload).toMatchObject({ bankName: 'Guaranty Trust Bank' });
  });

  test('shows the form again with the reason under the bank when its code is not listed', async ({ app }) => {
    await viewSubmission(app.sender, {
      callbackId: 'settlement.submit',
      userId: REQUESTER,
      values: {
        'settlement.bank': { 'settlement.bank': selectValue('999999|Nobody Bank') },
        'settlement.account': { 'settlement.account': textValue(ACCOUNT) },
      },
    });
    const shown = await app.slack.waitFor('views.update', (c) =>
      JSON.stringify(c.body.view).includes('not in the service’s bank list'),
    );
    expect(JSON.stringify(shown.body.view)).toContain('"callback_id":"settlement.submit"');
    expect(await app.engine.openRequests()).toEqual([]);
  });
});
