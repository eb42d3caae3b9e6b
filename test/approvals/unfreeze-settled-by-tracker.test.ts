// An unfreeze whose lift the tracker finds made in the store, but whose approvals do not hold (a store
// writer marked a request never approved as interrupted while lifting, and lifted the record with it),
// fails and leaves sends frozen: the bot freezes them again, the channel is told as of any freeze, and
// what the first freeze held is not sent. If freezing again fails, the sweep sends nothing the freeze
// held: the next sweep freezes and fails it.
import { expect } from 'vitest';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { BY_THE_BOT } from '../../src/approvals/own-writes.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  fileWithdrawal,
} from '../slack/approvals/support.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { botTest as test } from '../support/bot.js';
import { rewrite } from './signed-support.js';

const REASON = 'a look-alike address was approved; checking';

/**
 * Sends frozen, a withdrawal approved and held; a store writer marks an unfreeze, never approved,
 * interrupted while lifting, and lifts the record by it.
 */
async function liftedNeverApproved(app: ApprovalApp): Promise<{ id: string; held: string }> {
  const frozen = await app.engine.freezeSends(APPROVER_B, REASON);
  if (!frozen.ok) throw new Error('not frozen');
  const held = await fileWithdrawal(app, '1500.50');
  expect(await approveAsSeen(app.engine, held, APPROVER_A)).toMatchObject({ ok: true });
  await app.engine.idle();
  const filed = await app.engine.fileUnfreeze(APPROVER_A);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  const id = filed.request.id;
  const at = new Date().toISOString();
  await rewrite(
    app.store,
    id,
    (stored) =>
      ({
        ...stored,
        state: 'outcome-unknown',
        history: [...stored.history, { at, state: 'outcome-unknown', action: 'interrupted' }],
      }) as ApprovalRequest,
    { audited: false },
  );
  await app.store.set('approvals:freeze:sandbox', {
    state: 'lifted',
    at,
    by: APPROVER_A,
    requestId: id,
    frozen: frozen.freeze,
  });
  app.slack.reset();
  return { id, held };
}

test('a lift found made but never approved is failed, and sends are frozen again by the bot, told to the channel', async ({
  app,
}) => {
  const { id, held } = await liftedNeverApproved(app);
  await app.engine.tick();
  await app.engine.idle();

  expect(await app.engine.get(id)).toMatchObject({ state: 'failed', outcome: { reason: TOO_FEW_APPROVALS } });
  expect(await app.engine.currentFreeze()).toMatchObject({
    by: BY_THE_BOT,
    reason: expect.stringContaining(`${id} lifted the freeze, but its approvals do not hold`),
  });
  const told = await app.slack.waitFor(
    'chat.postMessage',
    (c) =>
      c.body.channel === APPROVALS_CHANNEL &&
      !c.body.thread_ts &&
      String(c.body.text).includes('Sends are frozen'),
  );
  expect(String(told.body.text)).toContain(`Frozen by ${BY_THE_BOT}: ${id} lifted the freeze`);
  expect((await app.engine.get(held))?.state).toBe('approved');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  // The requester hears it failed, with its reason, and that sends stay frozen: as they are.
  const dm = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === APPROVER_A && String(c.body.text).includes('failed'),
  );
  expect(String(dm.body.text)).toContain(`failed: ${TOO_FEW_APPROVALS}. Sends stay frozen.`);
});

test('freezing again failing, the sweep sends nothing the freeze held; the next sweep freezes and fails it', async ({
  app,
}) => {
  const { id, held } = await liftedNeverApproved(app);
  const freeze = partsOf(app.engine).core.freeze;
  const real = freeze.freeze.bind(freeze);
  let down = true;
  freeze.freeze = (...args) => (down ? Promise.reject(new Error('store unreachable')) : real(...args));
  await app.engine.tick();
  await app.engine.idle();
  expect((await app.engine.get(id))?.state).toBe('outcome-unknown');
  expect((await app.engine.get(held))?.state).toBe('approved');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);

  down = false;
  await app.engine.tick();
  await app.engine.idle();
  expect(await app.engine.get(id)).toMatchObject({ state: 'failed', outcome: { reason: TOO_FEW_APPROVALS } });
  expect(await app.engine.currentFreeze()).toMatchObject({ by: BY_THE_BOT });
  expect((await app.engine.get(held))?.state).toBe('approved');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});
