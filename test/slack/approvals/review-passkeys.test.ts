// The review of a request whose approval must be signed with a passkey, over signed Slack requests
// with the fake Slack: no submit; in its place a link button "Sign ₦250,000.00 with your passkey" to
// the signing page with a one-time link for that approver, request and round; for an approver who
// holds no passkey, how to register one. The link's own click is acked and changes nothing. Review all
// leaves such a request out of its boxes and skips it if ticked anyway.
import { describe, expect } from 'vitest';
import { type Passkey, parseSigningRule } from '../../../src/access/index.js';
import { botTest } from '../../support/bot.js';
import { openedViewId } from '../../support/fake-slack.js';
import { blockAction, viewSubmission } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  fileWithdrawal,
  reviewFor,
} from './support.js';

const SIGNING = { rpId: 'sign.example.test', origin: 'https://sign.example.test' };

/** A bot whose approvals above ₦100,000 are signed, approver A holding a passkey and B none. */
const test = botTest.extend('signingApp', async ({ startApp }) => {
  const app = await startApp({
    tiers: '0:1',
    config: { signing: { rule: parseSigningRule('above:100000'), ...SIGNING } },
  });
  await bookOf(app).add(passkeyOf(APPROVER_A));
  return app;
});

const bookOf = (app: ApprovalApp) => app.engine.passkeys.signatures().book;

function passkeyOf(user: string): Passkey {
  return {
    credentialId: `cred-${user}`,
    user,
    name: 'Laptop',
    publicKey: 'pQECAyYgASFYIA',
    counter: 0,
    addedAt: '2026-11-20T09:00:00.000Z',
    registration: { requestId: 'AR-0000000000', approvedBy: [APPROVER_B], unsigned: 'first passkeys' },
  };
}

type Element = { type: string; action_id?: string; text?: { text: string }; url?: string };
type Block = { type: string; block_id?: string; elements?: Element[]; text?: { text: string } };

const buttonsOf = (blocks: unknown[]) => (blocks as Block[]).flatMap((b) => b.elements ?? []);

describe('the review of a request that must be signed', () => {
  test('links to the signing page with the exact amount and a one-time link for this approver and round', async ({
    signingApp: app,
  }) => {
    const id = await fileWithdrawal(app, '250000');
    const { view } = await reviewFor(app, `${id}:0`, APPROVER_A);
    if (!view) throw new Error('no review opened');
    expect(view.submit).toBeUndefined();
    const sign = buttonsOf(view.blocks).find((e) => e.url);
    expect(sign).toMatchObject({ type: 'button', text: { text: 'Sign ₦250,000.00 with your passkey' } });
    const token = /^https:\/\/sign\.example\.test\/passkeys\/sign\?t=([A-Za-z0-9_-]+)$/.exec(
      sign?.url ?? '',
    )?.[1];
    if (!token) throw new Error(`not a signing link: ${sign?.url}`);
    // Right after the figures: the amount's section comes before it, the checks after.
    const blocks = view.blocks as Block[];
    const at = blocks.findIndex((b) => b.elements?.includes(sign as Element));
    expect(blocks.findIndex((b) => b.text?.text.startsWith('*Amount*'))).toBeLessThan(at);
    const book = bookOf(app);
    const link = { page: 'sign', user: APPROVER_A, team: 'T1', requestId: id, round: 0 };
    expect(await book.peekLink(token)).toEqual({ ok: true, link });
    expect(await book.useLink(token)).toEqual({ ok: true, link });
    expect(await book.useLink(token)).toEqual({ ok: false, why: 'used', link });

    // The link button's own click is acked at once and opens nothing, says nothing, records nothing.
    const opened = app.slack.callsTo('views.open').length;
    const told = app.slack.callsTo('chat.postEphemeral').length;
    const clicked = await blockAction(app.sender, {
      actionId: sign?.action_id ?? '',
      blockId: 'approval.review.sign',
      userId: APPROVER_A,
      view: {
        id: view.id,
        type: 'modal',
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
      },
    });
    expect(clicked.status, clicked.body).toBe(200);
    expect(app.slack.callsTo('views.open')).toHaveLength(opened);
    expect(app.slack.callsTo('chat.postEphemeral')).toHaveLength(told);
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
  });

  test('tells an approver who holds no passkey how to register one, and has no submit', async ({
    signingApp: app,
  }) => {
    const id = await fileWithdrawal(app, '250000');
    const { view } = await reviewFor(app, `${id}:0`, APPROVER_B);
    if (!view) throw new Error('no review opened');
    expect(view.submit).toBeUndefined();
    expect(buttonsOf(view.blocks).some((e) => e.url)).toBe(false);
    const shown = JSON.stringify(view.blocks);
    expect(shown).toContain('This request must be approved with a passkey');
    expect(shown).toContain('register one with `/cngn passkey` (another approver approves it)');
  });

  test('keeps the submit for an amount the rule does not name', async ({ signingApp: app }) => {
    const id = await fileWithdrawal(app, '5000');
    const { view } = await reviewFor(app, `${id}:0`, APPROVER_A);
    expect(view?.submit?.text).toBe('Approve ₦5,000.00');
    expect(buttonsOf(view?.blocks ?? []).some((e) => e.url)).toBe(false);
  });
});

describe('Review all with a request that must be signed', () => {
  test('leaves it out of the boxes, and skips it when ticked anyway: "needs your passkey"', async ({
    signingApp: app,
  }) => {
    const signed = await fileWithdrawal(app, '250000');
    const clicked = await fileWithdrawal(app, '5000');
    const before = app.slack.callsTo('views.open').length;
    await blockAction(app.sender, {
      actionId: 'approval.review_all',
      value: 'review',
      userId: APPROVER_A,
      channelId: APPROVALS_CHANNEL,
    });
    const opened = await app.slack.waitFor(
      'views.open',
      (c) => app.slack.callsTo('views.open').indexOf(c) >= before,
    );
    const view = opened.body.view as { blocks: Array<Record<string, unknown>> };
    const pick = view.blocks.find((b) => b.block_id === 'review_all.pick') as {
      element: { options: Array<{ value: string }> };
    };
    expect(pick.element.options.map((o) => o.value)).toEqual([`${clicked}:0`]);
    expect(JSON.stringify(view.blocks)).toContain('needs your passkey: open it to sign');

    // A forged submission ticking both: the signed one is skipped, the other approved.
    await viewSubmission(app.sender, {
      callbackId: 'approval.review_all.submit',
      userId: APPROVER_A,
      viewId: openedViewId(opened),
      privateMetadata: JSON.stringify({ channel: APPROVALS_CHANNEL }),
      values: {
        'review_all.pick': {
          'review_all.pick': {
            type: 'checkboxes',
            selected_options: [`${signed}:0`, `${clicked}:0`].map((value) => ({
              value,
              text: { type: 'plain_text', text: value },
            })),
          },
        },
      },
    });
    const posted = await app.slack.waitFor(
      'chat.postEphemeral',
      (c) => c.body.user === APPROVER_A && String(c.body.text).startsWith('*Review all:'),
    );
    const text = String(posted.body.text);
    expect(text).toContain('1 of 2 approved');
    expect(text).toContain(`${signed} needs your passkey: open it to sign`);
    await app.engine.idle();
    expect(await app.engine.get(signed)).toMatchObject({ state: 'pending', approvals: [] });
    expect((await app.engine.get(clicked))?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    // Skipped, not refused: nothing on its record.
    const audit = await app.engine.audit(50);
    expect(audit.filter((e) => e.requestId === signed).map((e) => e.action)).not.toContain(
      'signature-refused',
    );
  });
});
