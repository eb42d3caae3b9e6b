// The policy as the audit chain records it: the settings in a fixed order, a change to the general
// approver pool shown once, and each difference in words.
import { describe, expect, it } from 'vitest';
import { parseTiers } from '../../src/access/tiers.js';
import {
  describeChanges,
  describePolicy,
  fingerprint,
  membershipLine,
  membersLine,
  type PolicyInputs,
  policySnapshot,
} from '../../src/approvals/policy-record.js';
import { parseReminderPoints } from '../../src/approvals/reminders.js';

const HOUR = 3_600_000;
const holders = (...ids: string[]) => ({
  everyone: false,
  users: ids.filter((id) => id.startsWith('U')),
  groups: ids.filter((id) => id.startsWith('S')),
});

const base: PolicyInputs = {
  environment: 'sandbox',
  approvers: { users: ['U0ADA', 'U0BOLA'], group: 'S0TREASURY' },
  approversByKind: { settlement: holders('U0CHIDI', 'U0DAYO') },
  tiers: parseTiers('0:1,1000000:2'),
  limitWindowMs: 24 * HOUR,
  ttlMs: 24 * HOUR,
  reminders: parseReminderPoints('50%,90%'),
  notify: 'both',
};
const with_ = (change: Partial<PolicyInputs>) => policySnapshot({ ...base, ...change });

describe('the policy snapshot', () => {
  it('lists every setting in words or IDs, each kind without a pool of its own as the general pool', () => {
    expect(describePolicy(policySnapshot(base))).toEqual([
      'approvers: @U0ADA, @U0BOLA, @S0TREASURY',
      'approvers for withdraw: the approvers above',
      'approvers for redeem: the approvers above',
      'approvers for bridge: the approvers above',
      'approvers for whitelist: the approvers above',
      'approvers for settlement: @U0CHIDI, @U0DAYO',
      'approvers for delegation: the approvers above',
      'approvers for unfreeze: the approvers above',
      'approvers for passkey: the approvers above',
      'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00',
      'daily limit: none',
      'limit window: 1 day',
      'request lifetime: 1 day',
      'reminders: at 50% and 90% of the request lifetime',
      'approvers are told: by DM and in the approvals channel',
      'environment: sandbox',
      'frozen at start: no',
    ]);
  });

  it('records signed approvals once switched on, and leaves an install that never signs unchanged', () => {
    expect(
      describePolicy(with_({ signedApprovals: 'above ₦250,000.00 at https://desk.example' })).at(-1),
    ).toBe('signed approvals: above ₦250,000.00 at https://desk.example');
    expect(fingerprint(with_({ signedApprovals: undefined }))).toBe(fingerprint(policySnapshot(base)));
  });

  it('names the roles when they are given', () => {
    const lines = describePolicy(
      with_({
        readers: { everyone: true, users: [], groups: [] },
        auditors: holders(),
        requesters: holders('U0EFE'),
      }),
    );
    expect(lines.slice(0, 3)).toEqual([
      'readers: every member who is not a guest',
      'requesters: @U0EFE',
      'auditors: the approvers only',
    ]);
  });

  it('fingerprints equal policies alike, whatever the order the IDs came in', () => {
    const reordered = with_({ approvers: { users: ['U0BOLA', 'U0ADA', 'U0ADA'], group: 'S0TREASURY' } });
    expect(fingerprint(reordered)).toBe(fingerprint(policySnapshot(base)));
    expect(fingerprint(with_({ ttlMs: 12 * HOUR }))).not.toBe(fingerprint(policySnapshot(base)));
  });

  it('records a change of a duration in its third unit, which a two-unit text would lose', () => {
    const before = with_({ ttlMs: 26 * HOUR, limitWindowMs: 24 * HOUR + 90_000 });
    const after = with_({ ttlMs: 26.5 * HOUR, limitWindowMs: 24 * HOUR + 91_000 });
    expect(fingerprint(after)).not.toBe(fingerprint(before));
    expect(describeChanges(before, after)).toEqual([
      'limit window: 1 day 1 minute 30 seconds → 1 day 1 minute 31 seconds',
      'request lifetime: 1 day 2 hours → 1 day 2 hours 30 minutes',
    ]);
    // Two units or fewer read as they always did, so a policy on record keeps its fingerprint.
    expect(with_({ ttlMs: 26 * HOUR }).find((s) => s.name === 'request lifetime')?.value).toBe('1d 2h');
  });
});

// Each install compares its settings at start with the fingerprint its chain holds: a change to a
// setting's stored value, however it reads, would record a policy change at every install's next start.
describe('the fingerprint of a policy already on record', () => {
  it('stays the same for the same settings', () => {
    expect(fingerprint(policySnapshot(base))).toBe(
      '33081f4ae6ca6102883e91c8235b1feffd04b2cd1a0c3f881dbe71765a40b70e',
    );
  });

  it('stays the same for every optional setting, kobo tiers and all', () => {
    const snapshot = with_({
      readers: { everyone: true, users: [], groups: [] },
      requesters: holders('U0EFE'),
      auditors: holders(),
      tiers: parseTiers('0:1,1500.5:2,5000000:3'),
      dailyLimit: '5000000',
      limitWindowMs: 12 * HOUR,
      ttlMs: 90 * 60_000,
      reminders: [],
      notify: 'dm',
      startFrozen: true,
      signedApprovals: 'above ₦250,000.00 at https://desk.example',
    });
    expect(snapshot.find((s) => s.name === 'tiers')?.value).toBe('0:1,1500.5:2,5000000:3');
    expect(fingerprint(snapshot)).toBe('f19d7528c081e549285145cf11b4c893d0bab5f76f1f589d9f022ae071981d98');
  });
});

describe('describeChanges', () => {
  const before = policySnapshot(base);

  it('says who joined and left a kind’s own pool', () => {
    const after = with_({ approversByKind: { settlement: holders('U0DAYO', 'U0EFE') } });
    expect(describeChanges(before, after)).toEqual(['approvers for settlement: +@U0EFE −@U0CHIDI']);
  });

  it('shows a change to the general pool once, not once per kind', () => {
    const after = with_({ approvers: { users: ['U0ADA'], group: 'S0TREASURY' } });
    expect(describeChanges(before, after)).toEqual(['approvers: −@U0BOLA']);
  });

  it('shows a kind getting or losing a pool of its own as before → after', () => {
    const after = with_({ approversByKind: { withdraw: holders('S0PAYMENTS') } });
    expect(describeChanges(before, after)).toEqual([
      'approvers for withdraw: the approvers above → @S0PAYMENTS',
      'approvers for settlement: @U0CHIDI, @U0DAYO → the approvers above',
    ]);
  });

  it('words each other setting as before → after, in the snapshot’s order', () => {
    const after = with_({
      tiers: parseTiers('0:1,500000:2'),
      dailyLimit: '5000000',
      limitWindowMs: 12 * HOUR,
      ttlMs: 48 * HOUR,
      reminders: [],
      notify: 'dm',
      environment: 'live',
      startFrozen: true,
    });
    expect(describeChanges(before, after)).toEqual([
      'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → 1 below ₦500,000.00, 2 from ₦500,000.00',
      'daily limit: none → ₦5,000,000.00',
      'limit window: 1 day → 12 hours',
      'request lifetime: 1 day → 2 days',
      'reminders: at 50% and 90% of the request lifetime → none',
      'approvers are told: by DM and in the approvals channel → by DM',
      'environment: sandbox → live',
      'frozen at start: no → yes',
    ]);
  });

  it('says which settings are recorded for the first time, or no longer', () => {
    const after = with_({ readers: { everyone: true, users: [], groups: [] } });
    expect(describeChanges(before, after)).toEqual([
      'readers: not recorded → every member who is not a guest',
    ]);
    expect(describeChanges(after, before)).toEqual([
      'readers: every member who is not a guest → not recorded',
    ]);
  });

  it('finds nothing between equal policies', () => {
    expect(describeChanges(before, policySnapshot(base))).toEqual([]);
  });
});

it('words a user group’s members that changed', () => {
  expect(membershipLine('S0TREASURY', ['U0EFE'], ['U0CHIDI', 'U0BOLA'])).toBe(
    'members of @S0TREASURY: +@U0EFE −@U0BOLA −@U0CHIDI',
  );
});

it('words a group’s members as read by count and change, naming at most twenty people', () => {
  const many = Array.from({ length: 30 }, (_, i) => `U0${String(i).padStart(4, '0')}`);
  expect(membersLine('S0TREASURY', many, { added: many, removed: [], first: true })).toBe(
    'members of @S0TREASURY: 30 members, first recorded',
  );
  expect(membersLine('S0TREASURY', [], { added: [], removed: ['U0EFE'], first: false })).toBe(
    'members of @S0TREASURY: nobody, −@U0EFE',
  );
  const line = membersLine('S0TREASURY', many, { added: many.slice(0, 25), removed: [], first: false });
  expect(line).toMatch(/^members of @S0TREASURY: 30 members, \+@U00000 .* \+@U00019 and 5 more$/);
  expect(line.match(/@U0/g)).toHaveLength(20);
});
