// A final approval of a redemption waits for its figures to be read again before it is saved. When
// the bot stops during that re-check, the next sweep says so in the request's thread and lifts the
// hold so anyone may approve again; nothing is ever approved on the person's behalf.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CHECK_HOLD_MS } from '../../src/approvals/recheck.js';
import { mentionUser } from '../../src/format/mrkdwn.js';
import { threadReply } from '../../src/slack/approvals/blocks/steps.js';
import { redemptionDraft } from '../support/drafts.js';
import { APPROVER_A, APPROVER_B, REQUESTER, engineTest as test } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

test('announces a final approval interrupted while re-checking, and lets others approve again', async ({
  fx,
}) => {
  fx.sandbox.setAccountName('0123456789', 'ADA OBI');
  const filed = await fileDraft(fx.engine, redemptionDraft(REQUESTER));
  // The final click's re-check never returns: the bot is killed with only its hold saved.
  const check = fx.sandbox.hold('POST', '/v1/api/account/verify');
  let recorded = false;
  const dying = partsOf(fx.engine).core.approve(filed.id, APPROVER_A, {
    onRecorded: () => {
      recorded = true;
    },
  });
  await check.arrived;
  expect(recorded).toBe(true); // Slack got its ack here
  expect((await fx.engine.get(filed.id))?.checking?.user).toBe(APPROVER_A);

  // The restarted bot's sweep, once the hold is older than any live re-check.
  const { engine: restarted } = await fx.another();
  fx.clock.advance(CHECK_HOLD_MS + 1_000);
  await restarted.tick();
  const after = await restarted.get(filed.id);
  expect(after).toMatchObject({ state: 'pending', approvals: [] });
  expect(after?.checking).toBeUndefined();
  expect(after?.history.at(-1)).toMatchObject({ action: 'check-interrupted', actor: APPROVER_A });
  expect(after && threadReply(after)).toBe(
    `The final approval by ${mentionUser(APPROVER_A)} was interrupted while re-checking the figures (the bot restarted); nothing was approved: approve again`,
  );
  expect((await restarted.audit(5)).map((e) => e.action)).toContain('check-interrupted');

  // Someone approves again at once, instead of being held off as "being checked".
  const again = await partsOf(restarted).core.approve(filed.id, APPROVER_B);
  expect(again).toMatchObject({ ok: true, request: { state: 'approved' } });
  check.release();
  expect(await dying).toMatchObject({ ok: false, reason: 'not-pending' });
  await restarted.idle();
  await restarted.stop();
});
