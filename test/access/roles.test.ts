// The roles as configured: who holds each, with user groups read through one cache, and a re-read
// that says who was added or removed. No Slack: the group reading is a function the test controls.
import { describe, expect, it } from 'vitest';
import { ApprovalPolicy, ApproverPools, GroupMembers, parseTiers, RoleBook } from '../../src/access/index.js';

/** Groups whose members the test sets, and a count of reads. */
function groupsOf(initial: Record<string, string[]>) {
  const members = { ...initial };
  let now = 0;
  const reads: string[] = [];
  const changes: Array<[string, string[], string[]]> = [];
  const groups = new GroupMembers({
    read: async (group) => {
      reads.push(group);
      return members[group] ?? [];
    },
    cacheMs: 1_000,
    now: () => now,
    onMembershipChange: (group, added, removed) => changes.push([group, added, removed]),
  });
  return {
    groups,
    members,
    reads,
    changes,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('roles', () => {
  it('lets every member read and file when readers and requesters are unset, and nobody but approvers audit', async () => {
    const { groups } = groupsOf({});
    const roles = new RoleBook({}, new ApproverPools({ approvers: ['U_BOLA'] }, groups));
    expect(await roles.holds('U_ANYONE', { role: 'reader' })).toBe(true);
    expect(await roles.holds('U_ANYONE', { role: 'requester' })).toBe(true);
    expect(await roles.holders({ role: 'requester' })).toEqual({ everyone: true, users: [], groups: [] });
    expect(await roles.holds('U_ANYONE', { role: 'auditor' })).toBe(false);
    expect(await roles.holds('U_BOLA', { role: 'auditor' })).toBe(true);
    expect(await roles.holds('U_ANYONE', { role: 'approver' })).toBe(false);
  });

  it('holds a role through a named user or a member of a named group', async () => {
    const { groups } = groupsOf({ S_TREASURY: ['U_DAYO'], S_AUDIT: ['U_FUNMI'] });
    const roles = new RoleBook(
      { readers: ['U_ADA', 'S_TREASURY'], requesters: ['S_TREASURY'], auditors: ['U_KEMI', 'S_AUDIT'] },
      new ApproverPools({ approvers: ['U_BOLA'], approverGroup: 'S_APPROVERS' }, groups),
    );
    expect(await roles.holds('U_ADA', { role: 'reader' })).toBe(true);
    expect(await roles.holds('U_DAYO', { role: 'reader' })).toBe(true);
    // Approvers read what they decide on, even when readers are named.
    expect(await roles.holds('U_BOLA', { role: 'reader' })).toBe(true);
    expect(await roles.holds('U_OTHER', { role: 'reader' })).toBe(false);
    expect(await roles.holds('U_ADA', { role: 'requester' })).toBe(false);
    expect(await roles.holds('U_DAYO', { role: 'requester' })).toBe(true);
    expect(await roles.holds('U_FUNMI', { role: 'auditor' })).toBe(true);
    expect(await roles.holds('U_KEMI', { role: 'auditor' })).toBe(true);
    // An auditor reads; never approves.
    expect(await roles.holds('U_KEMI', { role: 'approver' })).toBe(false);
    expect(await roles.holders({ role: 'auditor' })).toEqual({
      everyone: false,
      users: ['U_KEMI', 'U_BOLA'],
      groups: ['S_AUDIT', 'S_APPROVERS'],
    });
  });

  it("approves a kind from that kind's pool, in place of the general one; 'approver' alone is any pool", async () => {
    const { groups } = groupsOf({ S_SETTLE: ['U_EFE'] });
    const pools = new ApproverPools(
      { approvers: ['U_BOLA', 'U_CHIDI'], byKind: { settlement: ['S_SETTLE', 'U_CHIDI'] } },
      groups,
    );
    const roles = new RoleBook({}, pools);
    expect(await roles.holds('U_BOLA', { role: 'approver', kind: 'settlement' })).toBe(false);
    expect(await roles.holds('U_EFE', { role: 'approver', kind: 'settlement' })).toBe(true);
    expect(await roles.holds('U_CHIDI', { role: 'approver', kind: 'settlement' })).toBe(true);
    expect(await roles.holds('U_BOLA', { role: 'approver', kind: 'withdraw' })).toBe(true);
    expect(await roles.holds('U_EFE', { role: 'approver', kind: 'withdraw' })).toBe(false);
    expect(await roles.holds('U_EFE', { role: 'approver' })).toBe(true);
    expect(await roles.holders({ role: 'approver', kind: 'settlement' })).toEqual({
      everyone: false,
      users: ['U_CHIDI'],
      groups: ['S_SETTLE'],
    });
    expect(await roles.holders({ role: 'approver', kind: 'redeem' })).toEqual({
      everyone: false,
      users: ['U_BOLA', 'U_CHIDI'],
      groups: [],
    });
  });

  it('reads a group briefly from its cache, and a refresh says who was added and removed', async () => {
    const world = groupsOf({ S_TREASURY: ['U_DAYO', 'U_EFE'] });
    const roles = new RoleBook(
      { requesters: ['S_TREASURY'] },
      new ApproverPools({ approvers: [] }, world.groups),
    );
    expect(await roles.holds('U_DAYO', { role: 'requester' })).toBe(true);
    expect(await roles.holds('U_EFE', { role: 'requester' })).toBe(true);
    expect(world.reads).toEqual(['S_TREASURY']);

    world.members.S_TREASURY = ['U_EFE', 'U_FUNMI'];
    // Still within the cache: the old members hold.
    expect(await roles.holds('U_DAYO', { role: 'requester' })).toBe(true);
    expect(await roles.refreshGroup('S_TREASURY')).toEqual({ added: ['U_FUNMI'], removed: ['U_DAYO'] });
    expect(world.changes).toEqual([['S_TREASURY', ['U_FUNMI'], ['U_DAYO']]]);
    expect(await roles.holds('U_DAYO', { role: 'requester' })).toBe(false);
    expect(await roles.holds('U_FUNMI', { role: 'requester' })).toBe(true);

    // A re-read with nothing changed tells nobody; one after the cache runs out tells of a change.
    expect(await roles.refreshGroup('S_TREASURY')).toEqual({ added: [], removed: [] });
    world.members.S_TREASURY = ['U_EFE'];
    world.advance(1_001);
    expect(await roles.holds('U_FUNMI', { role: 'requester' })).toBe(false);
    expect(world.changes.at(-1)).toEqual(['S_TREASURY', [], ['U_FUNMI']]);
    // A group no role names is not read.
    expect(await roles.refreshGroup('S_ELSEWHERE')).toEqual({ added: [], removed: [] });
    expect(world.reads).not.toContain('S_ELSEWHERE');
  });

  it('tells each group’s members as first read, once, and knows nothing of a group it could not read yet', async () => {
    const members: Record<string, string[] | undefined> = { S_TREASURY: undefined };
    const firstReads: Array<[string, string[]]> = [];
    const groups = new GroupMembers({ read: async (group) => members[group], cacheMs: 1_000, now: () => 0 });
    groups.onFirstRead((group, listed) => firstReads.push([group, listed]));
    // No Slack yet: nothing read, nothing kept, nothing told.
    expect([...(await groups.members('S_TREASURY'))]).toEqual([]);
    expect(firstReads).toEqual([]);
    members.S_TREASURY = ['U_DAYO', 'U_EFE'];
    expect([...(await groups.members('S_TREASURY'))]).toEqual(['U_DAYO', 'U_EFE']);
    members.S_TREASURY = ['U_EFE'];
    expect(await groups.refreshGroup('S_TREASURY')).toEqual({ added: [], removed: ['U_DAYO'] });
    expect(firstReads).toEqual([['S_TREASURY', ['U_DAYO', 'U_EFE']]]);
  });

  it('shares its group cache with the approval policy', async () => {
    const world = groupsOf({ S_APPROVERS: ['U_GRACE'] });
    const pools = new ApproverPools({ approvers: [], approverGroup: 'S_APPROVERS' }, world.groups);
    const policy = new ApprovalPolicy({ approvers: [], tiers: parseTiers('0:1'), pools });
    const roles = new RoleBook({}, pools);
    expect(await policy.isApprover('U_GRACE')).toBe(true);
    expect(await roles.holds('U_GRACE', { role: 'approver', kind: 'withdraw' })).toBe(true);
    world.members.S_APPROVERS = [];
    await roles.refreshGroup('S_APPROVERS');
    expect(await policy.isApprover('U_GRACE')).toBe(false);
    expect(world.reads).toEqual(['S_APPROVERS', 'S_APPROVERS']);
  });
});
