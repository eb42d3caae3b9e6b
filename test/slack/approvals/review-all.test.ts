// Review all from `/cngn pending`: offered only to an approver with two or more requests waiting for
// them, listing exactly those, and approving only the checked ones, each once, through the normal
// engine path bound to the round the modal showed.
import { describe, expect } from 'vitest';
import { MAYBE_NOT_RECORDED } from '../../../src/slack/approvals/actions/click.js';
import { botTest as test } from '../../support/bot.js';
import { redemptionDraft } from '../../support/drafts.js';
import { openedViewId } from '../../support/fake-slack.js';
import { fileDraft } from '../../support/filing.js';
import { blockAction, commandAnswer, viewSubmission } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve as approveByButton,
  fileWithdrawal,
  OUTSIDER,
  REQUESTER,
  reviewFor,
} from './support.js';

type Block = { type: string; elements?: Array<{ action_id?: string; text?: { text: string } }> };
type Option = { value: string; text: { text: string } };

/** `/cngn pending` as `user`; the private answer's blocks. */
async function pending(app: ApprovalApp, user: string): Promise<Block[]> {
  return (await commandAnswer(app, 'pending', user)).body.blocks as Block[];
}

const reviewButton = (blocks: Block[]) =>
  blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'approval.review_all');

/** Click Review all as `user` and return the modal opened. */
async function openReviewAll(app: ApprovalApp, user: string) {
  const before = app.slack.callsTo('views.open').length;
  await blockAction(app.sender, {
    actionId: 'approval.review_all',
    value: 'review',
    userId: user,
    channelId: 'CCMD',
  });
  const opened = await app.slack.waitFor(
    'views.open',
    (c) => app.slack.callsTo('views.open').indexOf(c) >= before,
  );
  const view = opened.body.view as {
    callback_id: string;
    private_metadata: string;
    blocks: Array<Record<string, unknown>>;
  };
  const pick = view.blocks.find((b) => b.block_id === 'review_all.pick') as
    | { element: { options: Option[] } }
    | undefined;
  return { view, viewId: openedViewId(opened), options: pick?.element.options ?? [] };
}

/** Submit the list `viewId` as `user` (Slack sends the view's id back), with these ticked. */
function submit(
  app: ApprovalApp,
  user: string,
  viewId: string,
  values: string[],
  channel = APPROVALS_CHANNEL,
) {
  return viewSubmission(app.sender, {
    callbackId: 'approval.review_all.submit',
    userId: user,
    viewId,
    privateMetadata: JSON.stringify({ channel }),
    values: {
      'review_all.pick': {
        'review_all.pick': {
          type: 'checkboxes',
          selected_options: values.map((value) => ({ value, text: { type: 'plain_text', text: value } })),
        },
      },
    },
  });
}

async function results(app: ApprovalApp, user: string): Promise<string> {
  const posted = await app.slack.waitFor(
    'chat.postEphemeral',
    (c) => c.body.user === user && String(c.body.text).startsWith('*Review all:'),
  );
  return String(posted.body.text);
}

describe('Review all', () => {
  test('is offered only to an eligible approver with two or more requests waiting for them', async ({
    startApp,
  }) => {
    const app = await startApp({ tiers: '0:1' });
    await fileWithdrawal(app, '1500');
    expect(reviewButton(await pending(app, APPROVER_A))).toBeUndefined();
    await fileWithdrawal(app, '2500');
    expect(reviewButton(await pending(app, APPROVER_A))?.text?.text).toBe('Review all (2)');
    // The requester is an approver too, but both are theirs; the outsider may approve nothing.
    expect(reviewButton(await pending(app, REQUESTER))).toBeUndefined();
    expect(reviewButton(await pending(app, OUTSIDER))).toBeUndefined();
  });

  test('lists exactly the waiting requests with their figures and approves only the checked ones, once each', async ({
    startApp,
  }) => {
    const app = await startApp({ tiers: '0:1' });
    const ids = [
      await fileWithdrawal(app, '1500'),
      await fileWithdrawal(app, '2500.25'),
      await fileWithdrawal(app, '3500'),
    ];
    const { view, viewId, options } = await openReviewAll(app, APPROVER_A);
    expect(view.callback_id).toBe('approval.review_all.submit');
    expect(options.map((o) => o.value).sort()).toEqual(ids.map((id) => `${id}:0`).sort());
    const shown = JSON.stringify(view.blocks);
    for (const figure of [
      '₦1,500.00',
      '₦2,500.25',
      '₦3,500.00',
      '0x52908400098527886E0F7030069857D2E4169EE7',
    ])
      expect(shown).toContain(figure);
    expect(shown).toContain(`<@${REQUESTER}>`);
    expect(shown).toContain('SANDBOX');
    // The requester's own list is empty: their requests never appear.
    const mine = await openReviewAll(app, REQUESTER);
    expect(mine.options).toEqual([]);

    const [first, second, third] = ids as [string, string, string];
    const response = await submit(app, APPROVER_A, viewId, [`${first}:0`, `${third}:0`]);
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ response_action: 'update' });
    const text = await results(app, APPROVER_A);
    expect(text).toContain('2 of 2 approved');
    await app.engine.idle();
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(2);
    expect((await app.engine.get(first))?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    expect((await app.engine.get(third))?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    expect(await app.engine.get(second)).toMatchObject({ state: 'pending', approvals: [] });
    const updated = await app.slack.waitFor('views.update', (c) => c.body.view_id === viewId);
    expect(JSON.stringify(updated.body.view)).toContain('2 of 2 approved');

    // Submitting the same modal again approves nothing twice.
    await submit(app, APPROVER_A, viewId, [`${first}:0`]);
    await app.slack.waitFor('chat.postEphemeral', (c) => String(c.body.text).includes('0 of 1 approved'));
    await app.engine.idle();
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(2);
  });

  test('refuses a request whose round changed after the modal opened, and approves the others', async ({
    startApp,
  }) => {
    const app = await startApp({ tiers: '0:1' });
    const changed = await fileWithdrawal(app, '1500');
    const steady = await fileWithdrawal(app, '2500');
    const { viewId, options } = await openReviewAll(app, APPROVER_A);
    expect(options.map((o) => o.value)).toContain(`${changed}:0`);
    // Sent back with new figures while the modal was open: now round 1.
    const filed = await app.engine.get(changed);
    await app.store.set(`approval:${changed}`, { ...filed, round: 1 });
    await submit(app, APPROVER_A, viewId, [`${changed}:0`, `${steady}:0`]);
    const text = await results(app, APPROVER_A);
    expect(text).toContain('1 of 2 approved');
    expect(text).toContain(`${changed} changed since the list was shown`);
    await app.engine.idle();
    expect(await app.engine.get(changed)).toMatchObject({ state: 'pending', round: 1, approvals: [] });
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test("changes nothing for a non-approver's submission", async ({ startApp }) => {
    const app = await startApp({ tiers: '0:1' });
    const a = await fileWithdrawal(app, '1500');
    const b = await fileWithdrawal(app, '2500');
    // The outsider has no list of their own: they submit an approver's (as only a forger could).
    const { viewId } = await openReviewAll(app, APPROVER_A);
    const answer = (await submit(app, OUTSIDER, viewId, [`${a}:0`, `${b}:0`])).json() as {
      response_action?: string;
      errors?: Record<string, string>;
    };
    // The access gate refuses it on the form itself: the role it needs, and who holds it.
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.['review_all.pick']).toContain('needs the approver role');
    await app.engine.idle();
    for (const id of [a, b])
      expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('refuses a list whose channel is no Slack id, or a channel none of its requests is in; nothing moves', async ({
    startApp,
  }) => {
    const app = await startApp({ tiers: '0:1' });
    const a = await fileWithdrawal(app, '1500');
    const b = await fileWithdrawal(app, '2500');
    // `/cngn pending` runs anywhere: a channel answers may not go to is left out when the list opens.
    const { view, viewId } = await openReviewAll(app, APPROVER_A);
    expect(JSON.parse(view.private_metadata)).toEqual({});
    const ephemerals = app.slack.callsTo('chat.postEphemeral').length;
    for (const channel of ['#general', 'UAPPROVERA', 'c-lowercase-1', 'CELSEWHERE1', 'GPRIVATE01']) {
      const response = (await submit(app, APPROVER_A, viewId, [`${a}:0`, `${b}:0`], channel)).json() as {
        view?: unknown;
      };
      expect(JSON.stringify(response.view), channel).toContain('none of its requests was posted in');
    }
    await app.engine.idle();
    for (const id of [a, b])
      expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
    expect(app.slack.callsTo('chat.postEphemeral').slice(ephemerals)).toEqual([]);
    // A DM is a place the list could have been opened in: taken.
    await submit(app, APPROVER_A, viewId, [`${a}:0`], 'DAPPROVERA1');
    expect(await results(app, APPROVER_A)).toContain('1 of 1 approved');
  });
});

describe('an approval whose write landed before the store failed', () => {
  test('is said to be maybe recorded, counted neither approved nor not, never "nothing changed"', async ({
    startControlledApp,
    controls,
  }) => {
    const { app, store: memory } = await startControlledApp({ tiers: '0:1' });
    const lost = await fileWithdrawal(app, '1500');
    const other = await fileWithdrawal(app, '2500');
    const { viewId } = await openReviewAll(app, APPROVER_A);
    controls.loseAnswer(`approval:${lost}`);
    await submit(app, APPROVER_A, viewId, [`${lost}:0`, `${other}:0`]);
    const text = await results(app, APPROVER_A);
    expect(text).toContain('*Review all: 1 of 2 approved; 1 may not have been recorded*');
    expect(text).toContain(`:warning: ${lost}: ${MAYBE_NOT_RECORDED}`);
    expect(text).not.toContain('nothing changed');
    const updated = await app.slack.waitFor('views.update', (c) => c.body.view_id === viewId);
    expect(JSON.stringify(updated.body.view)).toContain('1 may not have been recorded');
    // It was recorded: the next sweep sends it, so "nothing changed" would have been false.
    expect((await memory.get<{ approvals: Array<{ user: string }> }>(`approval:${lost}`))?.approvals).toEqual(
      [expect.objectContaining({ user: APPROVER_A })],
    );
    await app.engine.tick();
    await app.engine.idle();
    expect((await app.engine.get(lost))?.state).toBe('sent');
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(2);
  });
  test('a final redemption whose approval landed after the re-check, the answer lost: maybe recorded', async ({
    startControlledApp,
    controls,
  }) => {
    const { app, store: memory } = await startControlledApp({ tiers: '0:1' });
    app.sandbox.setAccountName('0123456789', 'ADA OBI');
    const { id } = await fileDraft(app.engine, redemptionDraft(REQUESTER));
    const { viewId, options } = await openReviewAll(app, APPROVER_A);
    expect(options.map((o) => o.value)).toEqual([`${id}:0`]);
    const check = app.sandbox.hold('POST', '/v1/api/account/verify');
    await submit(app, APPROVER_A, viewId, [`${id}:0`]);
    // The hold is saved and the service re-reads the figures; then the approval's own write lands and
    // its answer is lost.
    await check.arrived;
    controls.loseAnswer(`approval:${id}`);
    check.release();
    const text = await results(app, APPROVER_A);
    expect(text).not.toContain('nothing changed');
    expect(text).toContain('*Review all: 0 of 1 approved; 1 may not have been recorded*');
    expect((await memory.get<{ approvals: Array<{ user: string }> }>(`approval:${id}`))?.approvals).toEqual([
      expect.objectContaining({ user: APPROVER_A }),
    ]);
    await app.engine.idle();
  });
});

describe('the balance in Review all, as in the single review', () => {
  test('reads a figure older than the cache again once the list is open, and updates that list only', async ({
    startApp,
  }) => {
    // The bot's clock a minute ahead: the figure read at filing is a minute old when the list opens.
    const app = await startApp({ tiers: '0:1', now: () => new Date(Date.now() + 60_000) });
    await fileWithdrawal(app, '1500');
    await fileWithdrawal(app, '2500');
    const updates = app.slack.callsTo('views.update').length;
    const { view, viewId } = await openReviewAll(app, APPROVER_A);
    expect(JSON.stringify(view.blocks)).toMatch(/Balance ₦1,250,000\.00 \(as of [^)]*minute/);
    const refreshed = await app.slack.waitFor(
      'views.update',
      (c) => app.slack.callsTo('views.update').indexOf(c) >= updates && c.body.view_id === viewId,
    );
    expect(refreshed.body.hash).toBeDefined(); // never over a view that moved on
    const fresh = JSON.stringify((refreshed.body.view as { blocks: unknown[] }).blocks);
    // Each request's balance as read now, with its age, as the single review says it.
    expect(fresh.match(/Balance ₦1,250,000\.00 \(as of [^)]*, [^)]* ago\)/g)).toHaveLength(2);
    expect(fresh).not.toContain('Checks* at filing');
  });

  test('says why a request the balance no longer covers cannot be approved, and offers only the others', async ({
    startApp,
  }) => {
    const app = await startApp({ tiers: '0:1' });
    const other = await fileWithdrawal(app, '400000');
    const big = await fileWithdrawal(app, '1000000');
    const small = await fileWithdrawal(app, '1500');
    await approveByButton(app, other, APPROVER_A);
    await app.engine.idle();
    expect((await app.engine.get(other))?.state).toBe('sent');

    const { view, options } = await openReviewAll(app, APPROVER_B);
    const shown = JSON.stringify(view.blocks);
    expect(shown).toContain('Not enough balance to approve');
    expect(shown).toContain('less ₦400,000.00 already committed, leaves ₦850,000.00');
    expect(options.map((o) => o.value)).toEqual([`${small}:0`]);
    expect(options.map((o) => o.value)).not.toContain(`${big}:0`);
  });
});

describe('while sends are frozen', () => {
  test('the review and Review all both lead with who froze them and why', async ({ app }) => {
    const first = await fileWithdrawal(app, '1500');
    await fileWithdrawal(app, '2500');
    await app.engine.freezeSends(APPROVER_B, 'checking <a> look-alike');
    const banner = `Frozen by <@${APPROVER_B}>: checking &lt;a&gt; look-alike`;

    const review = await reviewFor(app, first, APPROVER_A);
    expect(JSON.stringify(review.view?.blocks)).toContain(banner);
    const { view } = await openReviewAll(app, APPROVER_A);
    expect(JSON.stringify(view.blocks[0])).toContain(banner);
  });
});
