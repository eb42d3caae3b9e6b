// An unfreeze is filed only when enough approvers could approve it: its pool less its requester and the
// one who froze the sends, against the lowest tier's count. One nobody could approve is refused at
// filing, naming who can file one that could, so it never blocks that one as "already waiting".
import { expect } from 'vitest';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, REQUESTER, engineTest as test } from '../support/engine.js';

test('refuses an unfreeze too few could approve, and files the one the freezer asks for', async ({
  startEngine,
}) => {
  // Two approvals needed; approvers A, B and the requester: A froze, so only one could approve B's.
  const fx = await startEngine({ tiers: '0:2' });
  expect(await fx.engine.freezeSends(APPROVER_A, 'checking a look-alike address')).toMatchObject({
    ok: true,
  });
  expect(await fx.engine.fileUnfreeze(APPROVER_B)).toMatchObject({
    ok: false,
    reason: 'too-few-approvers',
    needed: 2,
    eligible: 1,
    freezerMayFile: true,
  });
  const workable = await fx.engine.fileUnfreeze(APPROVER_A);
  if (!workable.ok) throw new Error(workable.reason);
  expect(workable.request.requiredApprovals).toBe(2);
  await approveAsSeen(fx.engine, workable.request.id, APPROVER_B);
  expect(await approveAsSeen(fx.engine, workable.request.id, REQUESTER)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect(await fx.engine.currentFreeze()).toBeUndefined();
});
