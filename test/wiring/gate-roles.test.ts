// The roles the gate and App Home ask: a delegate reads, and cancels or extends what they filed, only
// while their delegation is live and its delegator is still an approver in their own right.
import { describe, expect, test } from 'vitest';
import { ApproverPools, type Delegation, GroupMembers, RoleBook } from '../../src/access/index.js';
import { FILERS, READERS } from '../../src/slack/types.js';
import { delegateReads, gateRoles } from '../../src/wiring/gate-roles.js';

const NOW = new Date('2026-12-03T12:00:00Z');
const DAY = 86_400_000;

const delegation = (over: Partial<Delegation> = {}): Delegation => ({
  id: 'AR-1',
  delegator: 'UCHIDI',
  delegate: 'UBOLA',
  from: new Date(NOW.getTime() - 1000).toISOString(),
  until: new Date(NOW.getTime() + DAY).toISOString(),
  approvedBy: ['UADE'],
  ...over,
});

/** The gate's roles and Home's, with readers and requesters named, `approvers` and `delegations`. */
function rolesWith(approvers: string[], delegations: Delegation[]) {
  const book = new RoleBook(
    { readers: ['UDAYO'], requesters: ['UDAYO'] },
    new ApproverPools({ approvers }, new GroupMembers()),
  );
  const engine = { delegations: async () => delegations, now: () => NOW };
  return [gateRoles(book, engine as never), delegateReads(book, engine as never)];
}

describe('a delegate', () => {
  test('reads and cancels what they filed while the delegation is live', async () => {
    for (const roles of rolesWith(['UADE', 'UCHIDI'], [delegation()])) {
      expect(await roles.holds('UBOLA', READERS)).toBe(true);
      expect(await roles.holds('UBOLA', FILERS)).toBe(true);
    }
  });

  test('does not once the delegation ended, was revoked, or its delegator left the approvers', async () => {
    const ended = delegation({ until: new Date(NOW.getTime() - 1).toISOString() });
    const revoked = delegation({ revoked: { at: NOW.toISOString(), by: 'UCHIDI' } });
    for (const [approvers, d] of [
      [['UADE', 'UCHIDI'], ended],
      [['UADE', 'UCHIDI'], revoked],
      [['UADE'], delegation()],
    ] as const)
      for (const roles of rolesWith([...approvers], [d])) {
        expect(await roles.holds('UBOLA', READERS)).toBe(false);
        expect(await roles.holds('UBOLA', FILERS)).toBe(false);
      }
  });

  test('never files what a requester files', async () => {
    for (const roles of rolesWith(['UADE', 'UCHIDI'], [delegation()]))
      expect(await roles.holds('UBOLA', { role: 'requester' })).toBe(false);
  });
});
