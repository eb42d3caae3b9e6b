// The role variables: Slack user and user group IDs, a clear problem naming the variable and the bad
// item, the defaults when unset, and a pool of people too small for the tiers refused at start-up.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { problemsOf, SLACK_ENV } from './support/config-env.js';

const base = SLACK_ENV;

describe('role variables', () => {
  it('reads users and user groups for each role and each kind’s pool', () => {
    const config = loadConfig({
      ...base,
      CNGN_READERS: 'U0READ, S0TREASURY',
      CNGN_REQUESTERS: 'W0ORG',
      CNGN_AUDITORS: 'S0AUDIT',
      CNGN_APPROVERS_SETTLEMENT: 'U0EFE,U0CHIDI',
      CNGN_APPROVERS_UNFREEZE: ' S0SECURITY ',
    });
    expect(config.roles).toEqual({
      readers: ['U0READ', 'S0TREASURY'],
      requesters: ['W0ORG'],
      auditors: ['S0AUDIT'],
      approversByKind: { settlement: ['U0EFE', 'U0CHIDI'], unfreeze: ['S0SECURITY'] },
    });
  });

  it('leaves every role at its default when unset or blank', () => {
    const config = loadConfig({ ...base, CNGN_READERS: '  ' });
    expect(config.roles).toEqual({
      readers: undefined,
      requesters: undefined,
      auditors: undefined,
      approversByKind: {},
    });
  });

  it('names the variable and the item that is not a Slack ID', () => {
    expect(problemsOf({ ...base, CNGN_READERS: 'U0READ, @ada' })).toEqual([
      'CNGN_READERS: "@ada" is not a Slack user ID (U…, W…) or user group ID (S…)',
    ]);
    expect(problemsOf({ ...base, CNGN_APPROVERS_WITHDRAW: 'U0AAA,C0CHANNEL' })).toEqual([
      'CNGN_APPROVERS_WITHDRAW: "C0CHANNEL" is not a Slack user ID (U…, W…) or user group ID (S…)',
    ]);
    expect(problemsOf({ ...base, CNGN_AUDITORS: ',,' })).toEqual([
      'CNGN_AUDITORS: names nobody: leave it unset, or name user or group IDs',
    ]);
    // The general list takes people only; its group has a variable of its own.
    expect(problemsOf({ ...base, CNGN_APPROVERS: 'U0AAA, S0GROUP' })).toEqual([
      'CNGN_APPROVERS: "S0GROUP" is not a Slack user ID (U…, W…); separate IDs with commas',
    ]);
  });

  it('refuses a pool of people too small for the approvals its kind can need', () => {
    const tiers = { CNGN_APPROVAL_TIERS: '0:1,1000000:2' };
    expect(problemsOf({ ...base, ...tiers, CNGN_APPROVERS_SETTLEMENT: 'U0EFE' })).toEqual([
      'CNGN_APPROVERS_SETTLEMENT: 1 approver(s) named, but CNGN_APPROVAL_TIERS needs up to 2 distinct approvals for it — name at least 2, or a user group',
    ]);
    // A whitelist addition needs the lowest tier; a group may hold any number.
    expect(
      problemsOf({
        ...base,
        ...tiers,
        CNGN_APPROVERS_WHITELIST: 'U0EFE',
        CNGN_APPROVERS_SETTLEMENT: 'S0SETTLE',
      }),
    ).toEqual([]);
  });
});
