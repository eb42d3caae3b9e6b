// What a refusal says of who holds the role: mentions in a message, plain names in a form's field,
// everyone, user groups, a long list cut short, and nobody yet.
import { describe, expect, it } from 'vitest';
import { heldBy, refusalFieldText, refusalMessage, roleName } from '../../../src/slack/gate/refusals.js';

const nobody = { everyone: false, users: [], groups: [] };

describe('refusals', () => {
  it('names the holders as mentions, user groups as group mentions', () => {
    expect(heldBy({ everyone: false, users: ['UADA'], groups: ['STREASURY'] })).toBe(
      'held by <@UADA> and members of <!subteam^STREASURY>',
    );
    expect(heldBy({ everyone: true, users: [], groups: [] })).toBe(
      'held by every member of the workspace who is not a guest',
    );
    expect(heldBy(nobody)).toContain('held by nobody yet');
  });

  it('cuts a long list short, saying how many more, those not looked up among them', () => {
    const users = Array.from({ length: 11 }, (_, i) => `U${i}X`);
    expect(heldBy({ everyone: false, users, groups: [] })).toMatch(/<@U7X> and 3 more$/);
    expect(heldBy({ everyone: false, users, groups: [], unchecked: 4 })).toMatch(/<@U7X> and 7 more$/);
  });

  it('uses plain names in a form field, which shows no mentions', () => {
    const refusal = {
      why: 'role' as const,
      need: { role: 'requester' as const },
      holders: { ...nobody, users: ['UADA'], names: new Map([['UADA', '@Ada']]) },
    };
    expect(refusalFieldText(refusal)).toBe(
      'Not allowed: this form needs the requester role, held by @Ada. Nothing was filed.',
    );
  });

  it('names the role alone, and whom to ask, when the holders were not described in time', () => {
    const refusal = { why: 'role' as const, need: { role: 'requester' as const }, holders: undefined };
    expect(refusalMessage({ command: 'withdraw' }, refusal).text).toBe(
      '`/cngn withdraw` needs the *requester* role; ask an admin of the bot who holds it. Nothing was done.',
    );
    expect(refusalFieldText(refusal)).toBe(
      'Not allowed: this form needs the requester role; ask an admin of the bot who holds it. Nothing was filed.',
    );
  });

  it('names the kind of request when the role is for one kind', () => {
    expect(roleName({ role: 'approver', kind: 'redeem' })).toBe('the *approver* role for redeem requests');
  });

  it('says to try again when the person could not be checked', () => {
    expect(refusalMessage('button', { why: 'unchecked' }).text).toContain('try again in a moment');
  });
});
