// An approval is bound to what the approver saw: Approve and Reject carry the request's round, and a
// click on a message from an earlier round changes nothing and shows the new figures privately.
import { expect } from 'vitest';
import { fileRedeem } from '../../support/approving.js';
import { botTest as test } from '../../support/bot.js';
import { APPROVER_A, APPROVER_B, approve, click } from './support.js';

type Button = { action_id: string; value: string };
const buttons = (blocks: unknown): Button[] =>
  (blocks as Array<{ type: string; elements?: Button[] }>).find((b) => b.type === 'actions')?.elements ?? [];

test('refuses a click on the message of an earlier round, shows the new figures, and changes nothing', async ({
  app,
}) => {
  const { request, message: posted } = await fileRedeem(app, '100');
  const id = request.id;
  const firstRound = buttons(posted.body.blocks);
  expect(firstRound.map((b) => [b.action_id, b.value])).toEqual(
    expect.arrayContaining([
      ['approval.approve', `${id}:0`],
      ['approval.reject', `${id}:0`],
    ]),
  );
  // The account changed hands since filing: the final approval's re-check sends it back (round 1).
  const filed = await app.engine.get(id);
  await app.store.set(`approval:${id}`, {
    ...filed,
    display: { ...filed?.display, accountName: 'Old Owner' },
  });
  await approve(app, `${id}:0`, APPROVER_A);
  const sentBack = await app.slack.waitFor('chat.update', (c) =>
    JSON.stringify(c.body.blocks).includes('Sent back'),
  );
  expect(buttons(sentBack.body.blocks).find((b) => b.action_id === 'approval.approve')?.value).toBe(
    `${id}:1`,
  );
  const renamed = (await app.engine.get(id))?.display.accountName ?? '';

  const opened = app.slack.callsTo('views.open').length;
  // Approver B still had the first round's message in front of them: no review opens for it.
  await approve(app, `${id}:0`, APPROVER_B);
  const stale = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_B);
  expect(String(stale.body.text)).toContain('changed since the message you clicked was shown');
  expect(JSON.stringify(stale.body.blocks)).toContain(renamed);
  await click(app, 'approval.reject', `${id}:0`, APPROVER_B);
  await app.slack.waitFor(
    'chat.postEphemeral',
    (c) => c.body.user === APPROVER_B && c !== stale && String(c.body.text).includes('changed since'),
  );
  expect(app.slack.callsTo('views.open')).toHaveLength(opened);
  await app.engine.idle();
  const unchanged = await app.engine.get(id);
  expect(unchanged).toMatchObject({ state: 'pending', round: 1, approvals: [] });
  expect(app.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(0);

  // From the current message, the same approver's click counts.
  await approve(app, `${id}:1`, APPROVER_B);
  await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent, waiting'));
  await app.engine.idle();
  expect(app.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(1);
});
