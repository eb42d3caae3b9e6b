// A request that fails just before the call because it was changed outside the bot (a count of
// approvals lowered in the store) alerts a person in the alerts channel, as a failed signature check
// does; the requester hears once that nothing was sent.
import { expect } from 'vitest';
import { TOO_FEW_APPROVALS } from '../../../src/approvals/approvals-needed.js';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../../src/approvals/index.js';
import { withApproval } from '../../../src/approvals/state-machine.js';
import { botTest as test } from '../../support/bot.js';
import { APPROVER_A, fileWithdrawal, REQUESTER, waitUntil } from './support.js';

test('a count lowered in the store: nothing is sent, a person is alerted once, the requester told once', async ({
  startApp,
}) => {
  const app = await startApp({ tiers: '0:1,1000:2' });
  const id = await fileWithdrawal(app, '1500');
  // Someone with write access to the store lowers the count to one and adds one approval.
  const repo = new ApprovalRepository(app.store, app.engine.environment());
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  expect(stored.requiredApprovals).toBe(2);
  const forged = withApproval({ ...stored, requiredApprovals: 1 }, APPROVER_A, new Date());
  expect(forged.state).toBe('approved');
  expect(await repo.saveIf(stored, forged)).toBe(true);
  await partsOf(app.engine).executor.execute(id);
  await app.engine.idle();
  expect(await app.engine.get(id)).toMatchObject({
    state: 'failed',
    outcome: { reason: TOO_FEW_APPROVALS, nothingSent: true },
  });
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));
  await waitUntil(() => alerts().length > 0, 'the alert');
  expect(String(alerts()[0]?.body.text)).toMatch(/^Needs a person: .*nothing was sent: fewer approvals than/);
  await waitUntil(
    () => app.slack.callsTo('chat.postMessage').some((c) => c.body.channel === REQUESTER),
    'the requester told',
  );
  const told = app.slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === REQUESTER && String(c.body.text).includes('failed'));
  expect(told).toHaveLength(1);
  const words = String(told[0]?.body.text);
  expect(words).toContain(`failed, nothing was sent: ${TOO_FEW_APPROVALS}.`);
  expect(words.split('nothing was sent')).toHaveLength(2);
  await app.approvals?.presenter?.present(id);
  expect(alerts()).toHaveLength(1);
});
