// The engine's API as any caller meets it (a Slack form, a web page, a script): every rule is the
// engine's, so a caller that only passes what the person saw and confirmed gets all of them. The type
// test pins that the engine's parts stay inside it.
import { describe, expect, expectTypeOf } from 'vitest';
import {
  type ActionResult,
  type ApprovalEngine,
  type ApprovalReadiness,
  type ApprovalRequest,
  type ApproveOptions,
  type FileConfirmations,
  type FileResult,
  figuresDigest,
  type RejectOptions,
  type RequestDraft,
  StaleRoundError,
} from '../../src/approvals/index.js';
import { seenOf } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, DEST, engineTest, REQUESTER, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

// This file's own fixtures: an override at a file's top level would outlive the file in its worker.
const test = engineTest.extend('engineOptions', { tiers: '0:2' });

describe('the engine API', () => {
  test('keeps its parts private: nothing outside approvals/ reaches past its methods', () => {
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('core');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('executor');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('tracker');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('reminders');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('auditExports');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('auditKeeper');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('policyRecorder');
    expectTypeOf<ApprovalEngine>().not.toHaveProperty('options');
  });

  test('takes what the person saw and confirmed, and answers in types', () => {
    expectTypeOf<ApprovalEngine['file']>().parameters.toEqualTypeOf<
      [draft: RequestDraft, confirmations?: FileConfirmations]
    >();
    expectTypeOf<ApprovalEngine['file']>().returns.resolves.toEqualTypeOf<FileResult>();
    expectTypeOf<FileConfirmations>().toEqualTypeOf<{
      lookAlikeConfirmedFor?: string | undefined;
      sameConfirmedFor?: string | undefined;
    }>();
    expectTypeOf<Parameters<ApprovalEngine['approve']>[2]>().toMatchTypeOf<
      { round?: number; figuresDigest?: string } | undefined
    >();
    // The binding is required: an approval says the round and figures seen, a rejection the round.
    expectTypeOf<Parameters<ApprovalEngine['approve']>[2]>().toMatchTypeOf<{
      round: number;
      figuresDigest: string;
    }>();
    expectTypeOf<Parameters<ApprovalEngine['reject']>[3]>().toMatchTypeOf<{ round: number }>();
    // @ts-expect-error an approval without the round and figures seen does not type-check
    expectTypeOf<ApprovalEngine['approve']>().toBeCallableWith('AR-1', APPROVER_A, {});
    // @ts-expect-error nor one with the round alone
    expectTypeOf<ApprovalEngine['approve']>().toBeCallableWith('AR-1', APPROVER_A, { round: 1 });
    // @ts-expect-error nor a rejection without the round seen
    expectTypeOf<ApprovalEngine['reject']>().toBeCallableWith('AR-1', APPROVER_A, 'wrong', {});
    expectTypeOf<ApprovalEngine['mayReject']>().parameters.toEqualTypeOf<
      [id: string, user: string, round: number]
    >();
    expectTypeOf<ApprovalEngine['approve']>().returns.resolves.toEqualTypeOf<ActionResult>();
    expectTypeOf<ApprovalEngine['canApprove']>().parameters.toEqualTypeOf<
      [id: string, user: string, round: number]
    >();
    expectTypeOf<ApprovalEngine['canApprove']>().returns.resolves.toEqualTypeOf<ApprovalReadiness>();
    expectTypeOf<ApprovalEngine['expireIfDue']>().parameters.toEqualTypeOf<[id: string]>();
    expectTypeOf<ApprovalEngine['expireIfDue']>().returns.resolves.toEqualTypeOf<
      ApprovalRequest | undefined
    >();
  });
});

const withdrawal = (networkId: string, amount: string, address = DEST, network = networkId): RequestDraft =>
  withdrawalDraft(network, amount, address);

/** The same address with its middle changed: same first six and last four characters. */
function poisoned(address: string): string {
  const body = address.slice(2).toLowerCase();
  const middle = [...body.slice(4, -4)].map((c) => (c === 'a' ? 'b' : 'a')).join('');
  return `0x${body.slice(0, 4)}${middle}${body.slice(-4)}`;
}

describe('approving from outside Slack', () => {
  test('counts an approval only for the round and the figures the approver saw', async ({
    fx,
    networkId,
  }) => {
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '2000'));
    const seen = { round: filed.round, figuresDigest: figuresDigest(filed) };
    await expect(
      fx.engine.approve(filed.id, APPROVER_A, { ...seen, round: filed.round + 1 }),
    ).rejects.toBeInstanceOf(StaleRoundError);
    await expect(
      fx.engine.approve(filed.id, APPROVER_A, { ...seen, figuresDigest: '0'.repeat(64) }),
    ).rejects.toBeInstanceOf(StaleRoundError);
    expect((await fx.engine.get(filed.id))?.approvals).toEqual([]);
    expect(await fx.engine.approve(filed.id, APPROVER_A, seen)).toMatchObject({ ok: true });
  });

  test('refuses an approval of an earlier round, or one that does not say what it saw', async ({
    fx,
    networkId,
  }) => {
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '2000'));
    const seen = seenOf(filed);
    await expect(
      fx.engine.approve(filed.id, APPROVER_A, { ...seen, round: filed.round - 1 }),
    ).rejects.toBeInstanceOf(StaleRoundError);
    // A caller the types do not reach (plain JavaScript, a cast) is refused the same way.
    await expect(fx.engine.approve(filed.id, APPROVER_A, {} as ApproveOptions)).rejects.toBeInstanceOf(
      StaleRoundError,
    );
    expect((await fx.engine.get(filed.id))?.approvals).toEqual([]);
  });

  test('refuses a rejection of a round other than the one the rejecter saw, before and after the modal', async ({
    fx,
    networkId,
  }) => {
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '2000'));
    expect(await fx.engine.mayReject(filed.id, APPROVER_A, filed.round + 1)).toMatchObject({
      stale: { id: filed.id },
    });
    await expect(
      fx.engine.reject(filed.id, APPROVER_A, 'wrong address', { round: filed.round + 1 }),
    ).rejects.toBeInstanceOf(StaleRoundError);
    await expect(
      fx.engine.reject(filed.id, APPROVER_A, 'wrong address', {} as RejectOptions),
    ).rejects.toBeInstanceOf(StaleRoundError);
    expect(await fx.engine.get(filed.id)).toMatchObject({ state: 'pending' });
    expect(await fx.engine.mayReject(filed.id, APPROVER_A, filed.round)).toEqual({
      request: expect.objectContaining({ id: filed.id }),
    });
    expect(
      await fx.engine.reject(filed.id, APPROVER_A, 'wrong address', { round: filed.round }),
    ).toMatchObject({ ok: true, request: { state: 'rejected' } });
  });

  test('still refuses the requester and a second click by the same approver, whatever they saw', async ({
    fx,
    networkId,
  }) => {
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '2000'));
    const seen = { round: filed.round, figuresDigest: figuresDigest(filed) };
    expect(await fx.engine.approve(filed.id, REQUESTER, seen)).toMatchObject({ ok: false });
    await fx.engine.approve(filed.id, APPROVER_A, seen);
    expect(await fx.engine.approve(filed.id, APPROVER_A, seen)).toMatchObject({ ok: false });
  });

  test('answers the review’s pre-check in the engine’s order: ended, then round, then who', async ({
    fx,
    networkId,
  }) => {
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '2000'));
    expect(await fx.engine.canApprove(filed.id, APPROVER_B, filed.round)).toMatchObject({ ok: true });
    expect(await fx.engine.canApprove(filed.id, APPROVER_B, filed.round + 1)).toMatchObject({
      ok: false,
      stale: { id: filed.id },
    });
    expect(await fx.engine.canApprove(filed.id, REQUESTER, filed.round)).toMatchObject({ ok: false });
    expect(await fx.engine.canApprove('AR-0000000000', APPROVER_B, 1)).toEqual({
      ok: false,
      refusal: 'not-found',
    });
  });

  test('expires a request past its time when asked, as the sweep would', async ({ fx, networkId }) => {
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '2000'));
    expect((await fx.engine.expireIfDue(filed.id))?.state).toBe('pending');
    fx.clock.advance(Date.parse(filed.expiresAt) - Date.now() + 1_000);
    expect((await fx.engine.expireIfDue(filed.id))?.state).toBe('expired');
    expect(await fx.engine.canApprove(filed.id, APPROVER_B, filed.round)).toMatchObject({
      refusal: 'not-pending',
    });
  });
});

describe('filing from outside Slack', () => {
  test('always runs the pre-flight: a balance that does not cover it is a typed problem, nothing filed', async ({
    fx,
    networkId,
  }) => {
    const result = await fx.engine.file(withdrawal(networkId, '1250000.01'));
    expect(result).toMatchObject({ ok: false, problems: [{ kind: 'balance' }] });
    expect(await fx.engine.openRequests()).toHaveLength(0);
  });

  test('counts a look-alike confirmation only for the address it names', async ({ fx, networkId }) => {
    const [entry] = await fx.client.getWhitelisted();
    if (!entry) throw new Error('the sandbox whitelists nothing');
    const draft = withdrawal(networkId, '2000', poisoned(entry.publicKey), entry.networkId);
    const unconfirmed = await fx.engine.file(draft);
    expect(unconfirmed).toMatchObject({ ok: false, problems: [{ kind: 'look-alike' }] });
    const candidate = unconfirmed.ok ? '' : (unconfirmed.checks?.lookAlike?.candidate ?? '');
    expect(await fx.engine.file(draft, { lookAlikeConfirmedFor: entry.publicKey })).toMatchObject({
      ok: false,
      problems: [{ kind: 'look-alike' }],
    });
    const filed = await fx.engine.file(draft, { lookAlikeConfirmedFor: candidate });
    expect(filed).toMatchObject({ ok: true, request: { preflight: { lookAlike: { compared: true } } } });
  });

  test('counts a "file it again" only for the request it names; one filed meanwhile is a problem too', async ({
    fx,
    networkId,
  }) => {
    const first = await fileDraft(fx.engine, withdrawal(networkId, '2222'));
    expect(await fx.engine.file(withdrawal(networkId, '2222'))).toMatchObject({
      ok: false,
      problems: [{ kind: 'same-request', sameAs: { id: first.id } }],
    });
    expect(
      await fx.engine.file(withdrawal(networkId, '2222'), { sameConfirmedFor: 'AR-0000000000' }),
    ).toMatchObject({
      ok: false,
      problems: [{ kind: 'same-request', sameAs: { id: first.id } }],
    });
    const again = await fx.engine.file(withdrawal(networkId, '2222'), { sameConfirmedFor: first.id });
    expect(again).toMatchObject({
      ok: true,
      request: { earlier: { same: { id: first.id, confirmed: true } } },
    });
  });
});
