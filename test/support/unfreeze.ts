// Lifting a freeze of sends the way approvers do: `/cngn unfreeze` filed by one approver, approved by
// another. Where the bot holds the audit signing key, a chain that cannot be read back to its latest
// freeze holds sends frozen (docs/decisions/freeze-on-the-signed-chain.md), and this is the way out.
import { expect } from 'vitest';
import type { ApprovalEngine } from '../../src/approvals/index.js';
import { approveAsSeen } from './approve-as-seen.js';

/** The freeze in place lifted by an unfreeze `requester` files and `approver` approves; what it held goes out. */
export async function liftFreeze(engine: ApprovalEngine, requester: string, approver: string): Promise<void> {
  const filed = await engine.fileUnfreeze(requester);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  expect(await approveAsSeen(engine, filed.request.id, approver)).toMatchObject({ ok: true });
  await engine.idle();
  expect(await engine.currentFreeze()).toBeUndefined();
}
