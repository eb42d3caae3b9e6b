// Who the recorded settings let approve, read from policy entries alone: only the settings in force at
// an approval's step place the approver in; a step before every settings, or none in the archive,
// places no one; a group's join recorded after the step leaves it untold, naming the group.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { RecordedPools } from '../../src/audit/approver-pool.js';
import { canonicalJson } from '../../src/audit/chain.js';
import type { AuditEntry } from '../../src/audit/types.js';

const settingsAt = (seq: number, approvers: string[]): AuditEntry => ({
  at: new Date(Date.UTC(2026, 10, 30, 0, seq)).toISOString(),
  kind: 'policy',
  action: 'recorded',
  seq,
  policy: { changes: [], settings: [{ name: 'approvers', value: approvers }] },
});

const joinedAt = (seq: number, group: string, user: string): AuditEntry => ({
  at: new Date(Date.UTC(2026, 10, 30, 0, seq)).toISOString(),
  kind: 'policy',
  action: 'group-changed',
  seq,
  policy: { changes: [], group, added: [user] },
});

const fingerprintOf = (entry: AuditEntry): string =>
  createHash('sha256').update(canonicalJson(entry.policy?.settings), 'utf8').digest('hex');

function pools(...entries: AuditEntry[]): RecordedPools {
  const read = new RecordedPools();
  for (const entry of entries) read.read(entry);
  return read;
}

describe('the approvers the recorded settings let approve', () => {
  test('places in only by the settings in force at the step', () => {
    const read = pools(settingsAt(1, ['UA']), settingsAt(5, ['UB']));
    expect(read.standing('withdraw', 'UA', { step: 3, sent: 4 })?.standing).toBe('in');
    expect(read.standing('withdraw', 'UB', { step: 3, sent: 6 })?.standing).toBe('unknown');
    expect(read.standing('withdraw', 'UC', { step: 3, sent: 6 })?.standing).toBe('out');
  });

  test('places no one in, and no one out, for a step before every settings recorded', () => {
    const read = pools(settingsAt(5, ['UA']), settingsAt(8, ['UB']));
    const early = { standing: 'unknown', groups: [], early: true };
    expect(read.standing('withdraw', 'UA', { step: 3, sent: 6 })).toEqual(early);
    expect(read.standing('withdraw', 'UC', { step: 3, sent: 6 })).toEqual(early);
  });

  test('reads settings up to the first recorded after the sending, and no further', () => {
    const read = pools(settingsAt(1, ['UA']), settingsAt(4, ['UB']), settingsAt(6, ['UC']));
    expect(read.standing('withdraw', 'UB', { step: 2, sent: 3 })?.standing).toBe('unknown');
    expect(read.standing('withdraw', 'UC', { step: 2, sent: 3 })?.standing).toBe('out');
  });

  test('calls no one out whom a group of earlier settings may have held', () => {
    const read = pools(settingsAt(1, ['SGROUP1']), settingsAt(3, ['UB']));
    expect(read.standing('withdraw', 'UA', { step: 4, sent: 5 })).toEqual({
      standing: 'unknown',
      groups: ['SGROUP1'],
    });
  });

  test('leaves a member whose join was followed by a leaving before the step untold', () => {
    const read = pools(settingsAt(1, ['SGROUP1']), joinedAt(2, 'SGROUP1', 'UA'), {
      ...joinedAt(3, 'SGROUP1', 'UA'),
      policy: { changes: [], group: 'SGROUP1', removed: ['UA'] },
    });
    expect(read.standing('withdraw', 'UA', { step: 4, sent: 5 })).toEqual({
      standing: 'unknown',
      groups: ['SGROUP1'],
    });
  });

  test('places no one in for an approval whose step is not in the archive', () => {
    const read = pools(settingsAt(1, ['UA']));
    expect(read.standing('withdraw', 'UA', { step: undefined, sent: 4 })?.standing).toBe('unknown');
  });

  test('leaves a group member whose join was recorded after the step untold, naming the group', () => {
    const read = pools(settingsAt(1, ['SGROUP1']), joinedAt(4, 'SGROUP1', 'UA'));
    expect(read.standing('withdraw', 'UA', { step: 3, sent: 5 })).toEqual({
      standing: 'unknown',
      groups: ['SGROUP1'],
    });
    expect(read.standing('withdraw', 'UA', { step: 6, sent: 7 })?.standing).toBe('in');
  });

  test('judges a step only by settings with its fingerprint recorded before it, never after', () => {
    const naming = settingsAt(5, ['UA']);
    const print = fingerprintOf(naming);
    const read = pools(settingsAt(1, ['UB']), naming);
    const late = read.standing('withdraw', 'UA', { step: 3, sent: 2, settings: print });
    expect(late).toEqual({ standing: 'unknown', groups: [], late: print });
    expect(read.holderStanding('UA', { step: 3, sent: 2, settings: print })).toBe('unknown');
    // The same settings recorded before the step again: those judge it.
    const again = pools(settingsAt(1, ['UA']), settingsAt(2, ['UB']), naming);
    expect(again.standing('withdraw', 'UA', { step: 3, sent: 2, settings: print })?.standing).toBe('in');
  });
});
