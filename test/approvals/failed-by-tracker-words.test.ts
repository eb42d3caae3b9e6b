// A write to the bot's own store that the tracker finds made, but whose approvals no longer hold, fails
// with its reason where people read it: the thread says how it was settled and why, the message shows
// the reason, the requester hears it, and a person is alerted, as when the executor's last check fails.
import { expect } from 'vitest';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { FOUND_NOT_APPROVED } from '../../src/approvals/own-writes.js';
import { APPROVALS_CHANNEL, APPROVER_A, OUTSIDER, waitUntil } from '../slack/approvals/support.js';
import { botTest as test } from '../support/bot.js';
import { rewrite } from './signed-support.js';

const DAY = 86_400_000;

test('a delegation found written but never approved fails with its reason in the thread, the message, the DM and an alert', async ({
  app,
}) => {
  const filed = await app.engine.fileDelegation(APPROVER_A, OUTSIDER, new Date(Date.now() + 3 * DAY));
  await app.engine.idle();
  await app.approvals?.presenter?.present(filed.id);
  // A store writer marks it interrupted while written, never approved, and lists it as a delegation.
  await rewrite(
    app.store,
    filed.id,
    (stored) =>
      ({
        ...stored,
        state: 'outcome-unknown',
        history: [
          ...stored.history,
          { at: new Date().toISOString(), state: 'outcome-unknown', action: 'interrupted' },
        ],
      }) as ApprovalRequest,
    { audited: false },
  );
  await app.store.addToSet('delegations:sandbox', filed.id);
  await app.store.addToSet('approvals:open:sandbox', filed.id);
  await app.engine.tick();
  await app.engine.idle();

  expect(await app.engine.get(filed.id)).toMatchObject({
    state: 'failed',
    outcome: { status: 'failed', reason: TOO_FEW_APPROVALS },
  });
  await app.approvals?.presenter?.present(filed.id);
  const posts = () => app.slack.callsTo('chat.postMessage');
  const threaded = () =>
    posts().filter((c) => c.body.channel === APPROVALS_CHANNEL && c.body.thread_ts !== undefined);
  await waitUntil(() => threaded().some((c) => String(c.body.text).startsWith('Failed')), 'the thread told');
  const reply = String(threaded().find((c) => String(c.body.text).startsWith('Failed'))?.body.text);
  expect(reply).toBe(`Failed — ${FOUND_NOT_APPROVED}: ${TOO_FEW_APPROVALS}`);

  const message = app.slack.messages(APPROVALS_CHANNEL).find((m) => m.text.includes(filed.id));
  expect(JSON.stringify(message?.blocks)).toContain(`Reason: ${TOO_FEW_APPROVALS}`);
  const told = posts().filter(
    (c) => c.body.channel === APPROVER_A && String(c.body.text).includes('could not be written'),
  );
  expect(told.map((c) => String(c.body.text))).toEqual([
    `Your delegation to <@${OUTSIDER}> could not be written: ${TOO_FEW_APPROVALS}.`,
  ]);
  const alerts = posts().filter(
    (c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(filed.id),
  );
  expect(alerts.map((c) => String(c.body.text))).toEqual([
    expect.stringMatching(/^Needs a person: .*fewer approvals than/),
  ]);
});
