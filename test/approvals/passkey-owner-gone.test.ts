// A passkey registration counts only while the person it is for may still hold one (an approver or a
// live delegate): filed while they were, it is not approved after they left, and one approved before
// they left goes back to its approvers before it is written, as an approval whose approver left does.
import { describe, expect } from 'vitest';
import { PASSKEY_OWNER_GONE } from '../../src/approvals/approver-left.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { refusalText } from '../../src/slack/approvals/blocks/lists.js';
import { stepText } from '../../src/slack/approvals/blocks/steps.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { fileRegistration, groupApproversTest } from '../support/passkey-approvers.js';

const ADE = 'U_ADE';
const CHIDI = 'U_CHIDI';
const DAYO = 'U_DAYO';

/** Dayo is an approver through the treasury group, which he leaves. */
const test = groupApproversTest([ADE, CHIDI], [DAYO]);

describe('a registration whose owner left the approvers', () => {
  test('is not approved once they left, and the approver is told why; no passkey is written', async ({
    fx,
    group,
  }) => {
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    group.length = 0;
    const clicked = await approveAsSeen(fx.engine, dayos.id, ADE);
    expect(clicked).toMatchObject({ ok: false, reason: 'passkey-owner-gone' });
    await fx.engine.idle();
    expect(await fx.engine.get(dayos.id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(await fx.engine.passkeys.passkeysOf(DAYO)).toEqual([]);
    if (clicked.ok) throw new Error('approved');
    expect(refusalText(clicked.reason, clicked.request)).toMatch(
      /U_DAYO.? is no longer an approver or a delegate, so their passkey registration was not approved and nothing changed/,
    );
  });

  test('approved before they left, it goes back to its approvers before it is written', async ({
    fx,
    group,
  }) => {
    const { core, executor } = partsOf(fx.engine);
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    // Approved (a first passkeys' click), not yet written.
    expect(await approveAsSeen(core, dayos.id, ADE)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    group.length = 0;
    await executor.execute(dayos.id);
    await fx.engine.idle();
    const after = await fx.engine.get(dayos.id);
    expect(after).toMatchObject({ state: 'pending', round: 1, approvals: [], reason: PASSKEY_OWNER_GONE });
    expect(after?.history.at(-1)).toMatchObject({ action: 'sent-back', leftPool: DAYO });
    if (!after) throw new Error('not stored');
    expect(stepText(after)).toMatch(/U_DAYO.? is no longer an approver or a delegate\)/);
    expect(await fx.engine.passkeys.passkeysOf(DAYO)).toEqual([]);
    expect(await approveAsSeen(fx.engine, dayos.id, CHIDI)).toMatchObject({
      ok: false,
      reason: 'passkey-owner-gone',
    });
  });

  test('a failed read of who is in the group fails no list: the owner is taken as still counting', async ({
    fx,
    groupRead,
  }) => {
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    groupRead.fails = true;
    const waiting = await fx.engine.waitingFor(ADE, new Date());
    expect(waiting.map((r) => r.id)).toEqual([dayos.id]);
    // Approved as before the owner was checked: the check before the write is the backstop.
    expect(await approveAsSeen(fx.engine, dayos.id, ADE)).toMatchObject({ ok: true });
  });

  test('a non-approver is told they are not one, not that the owner left', async ({ fx, group }) => {
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    group.length = 0;
    expect(await approveAsSeen(fx.engine, dayos.id, 'U_EMEKA')).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
  });
});
