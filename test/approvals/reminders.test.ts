// Reminder points and the one Extend in the engine (no Slack): when each point falls, that only the
// latest passed point is sent, that approvers who acted are left out, and the Extend's rules.
import { describe, expect } from 'vitest';
import { parseReminderPoints, type RequestDraft } from '../../src/approvals/index.js';
import { dueReminder, reminderTimes } from '../../src/approvals/reminders.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  type EngineFixture,
  engineTest,
  OUTSIDER,
  REQUESTER,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const HOUR = 3_600_000;

// This file's own fixtures: an override at a file's top level would outlive the file in its worker.
const test = engineTest.extend('engineOptions', {
  ttlMs: 10 * HOUR,
  tiers: '0:1,1000000:2',
  engine: { reminderPoints: parseReminderPoints('50%,90%') },
});

const withdrawal = (networkId: string, amount: string): RequestDraft => ({
  kind: 'withdraw',
  amount,
  payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
  display: { networkName: 'Base' },
  purpose: 'Supplier payout INV-2231',
  requester: REQUESTER,
});
const reminders = async (fx: EngineFixture, id: string) =>
  ((await fx.engine.get(id))?.history ?? []).filter((s) => s.action === 'reminder').map((s) => s.reminder);

describe('reminder points', () => {
  test('fall at their shares of the lifetime, and only the latest passed one is due', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
    const points = parseReminderPoints('50%,90%');
    const filed = Date.parse(request.createdAt);
    expect(reminderTimes(request, points)).toEqual([filed + 5 * HOUR, filed + 9 * HOUR]);
    expect(dueReminder(request, points, new Date(filed + 4 * HOUR))).toBeUndefined();
    expect(dueReminder(request, points, new Date(filed + 5 * HOUR))).toBe(0);
    expect(dueReminder(request, points, new Date(filed + 9.5 * HOUR))).toBe(1);
    expect(dueReminder(request, points, new Date(filed + 10 * HOUR))).toBeUndefined(); // due to expire instead
  });

  test('names the approvers who have not acted and how many approvals are still needed', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '2000000')); // two approvals
    expect((await approveAsSeen(fx.engine, request.id, APPROVER_A)).ok).toBe(true);
    fx.clock.advance(5 * HOUR + 1000);
    await fx.engine.tick();
    expect(await reminders(fx, request.id)).toEqual([
      { point: 1, of: 2, share: '50%', waiting: [APPROVER_B], needed: 1 },
    ]);
    await fx.engine.tick();
    expect(await reminders(fx, request.id)).toHaveLength(1);
  });

  test('sends none once the request has ended', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
    await fx.engine.cancel(request.id, REQUESTER);
    fx.clock.advance(9 * HOUR + 1000);
    await fx.engine.tick();
    expect(await reminders(fx, request.id)).toHaveLength(0);
  });

  test('sends none with reminders turned off', async ({ fx, networkId }) => {
    const off = await fx.another({ engine: { reminderPoints: parseReminderPoints('none') } });
    const request = await fileDraft(off.engine, withdrawal(networkId, '1500'));
    fx.clock.advance(9 * HOUR + 1000);
    await off.engine.tick();
    expect(await reminders(fx, request.id)).toHaveLength(0);
  });
});

describe('Extend', () => {
  test('is the requester’s, once, by at most the original lifetime, and audited', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
    expect(await fx.engine.extend(request.id, OUTSIDER)).toMatchObject({
      ok: false,
      reason: 'not-requester',
    });
    expect(await fx.engine.extend(request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'not-requester',
    });
    expect(await fx.engine.extend(request.id, REQUESTER, 10 * HOUR + 1)).toMatchObject({
      ok: false,
      reason: 'too-long',
      maxMs: 10 * HOUR,
    });
    const done = await fx.engine.extend(request.id, REQUESTER, 3 * HOUR);
    expect(done.ok).toBe(true);
    const extended = await fx.engine.get(request.id);
    expect(Date.parse(extended?.expiresAt ?? '')).toBe(Date.parse(request.expiresAt) + 3 * HOUR);
    expect(await fx.engine.extend(request.id, REQUESTER, HOUR)).toMatchObject({
      ok: false,
      reason: 'already-extended',
    });
    const audited = (await fx.engine.audit(20)).filter((e) => e.requestId === request.id);
    expect(audited.map((e) => e.action)).toEqual(['filed', 'extended']);
    // It only moves the expiry: nothing is approved or sent.
    expect(extended?.state).toBe('pending');
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('keeps a request alive past its first expiry, and it then expires at the new one', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
    await fx.engine.extend(request.id, REQUESTER);
    fx.clock.advance(10 * HOUR + 1000);
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('pending');
    expect((await approveAsSeen(fx.engine, request.id, APPROVER_A)).ok).toBe(true);
    const other = await fileDraft(fx.engine, withdrawal(networkId, '1600'));
    await fx.engine.extend(other.id, REQUESTER, HOUR);
    fx.clock.advance(10 * HOUR + 1000); // past its first expiry, before the new one
    await fx.engine.tick();
    expect((await fx.engine.get(other.id))?.state).toBe('pending');
    fx.clock.advance(HOUR);
    await fx.engine.tick();
    expect((await fx.engine.get(other.id))?.state).toBe('expired');
    expect(await fx.engine.extend(other.id, REQUESTER)).toMatchObject({ ok: false, reason: 'not-pending' });
  });
});
