// A delegation's revocation holds from the signed audit chain as well as from its request's history,
// where the bot holds the audit signing key: a store writer (write access to the store, not the key)
// who takes the revocation step out of the request does not bring the delegation back; one who breaks
// the chain makes the delegations filed before the break count for none, until granted again. Without
// the key, delegations are read from the store alone, as they always were.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { REVOKED_ACTION } from '../../src/approvals/delegation-requests.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { type ChainHead, entryHash } from '../../src/audit/chain.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { auditHeadKey, auditListKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { fileDraft } from '../support/filing.js';
import { liftFreeze } from '../support/unfreeze.js';
import {
  ADE,
  BOLA,
  CHIDI,
  DAYO,
  delegate,
  delegateApproves,
  test as delegationTest,
  policy,
  auditKeyTest as test,
  withdrawal,
  withdrawCalls,
} from './delegation-support.js';
import { rewrite } from './signed-support.js';

/** The revocation step taken out of the delegation request's history, with no audit entry. */
const withoutRevocation = (stored: ApprovalRequest) =>
  ({
    ...stored,
    history: stored.history.filter((step) => step.action !== REVOKED_ACTION),
  }) as ApprovalRequest;

/** A store writer deletes one entry from the middle of the audit log (the head, signed, is left as it is). */
async function deleteAuditEntry(store: Store, index: number): Promise<void> {
  const list = auditListKey('sandbox');
  const entries = await store.readList<AuditEntry>(list, 0, -1);
  expect(entries.length).toBeGreaterThan(index + 1);
  await store.deleteList(list);
  for (const entry of entries.filter((_, i) => i !== index)) await store.appendToList(list, entry);
}

/**
 * A store writer takes the revocation's entry out of the audit log, links the later entries again (no
 * key is needed for the links) and points the head at the last of them under its old signature.
 */
async function rewriteChainWithoutRevocation(store: Store): Promise<void> {
  const list = auditListKey('sandbox');
  const entries = await store.readList<AuditEntry>(list, 0, -1);
  const at = entries.findIndex((e) => e.action === REVOKED_ACTION);
  expect(at).toBeGreaterThan(0);
  const relinked = entries.slice(0, at);
  for (const entry of entries.slice(at + 1)) {
    const before = relinked.at(-1) as AuditEntry;
    const { hash: _old, ...rest } = { ...entry, seq: (before.seq ?? 0) + 1, prev: before.hash };
    relinked.push({ ...rest, hash: entryHash(rest) });
  }
  await store.deleteList(list);
  for (const entry of relinked) await store.appendToList(list, entry);
  const head = await store.get<ChainHead>(auditHeadKey('sandbox'));
  const last = relinked.at(-1) as AuditEntry;
  await store.set<ChainHead>(auditHeadKey('sandbox'), {
    seq: last.seq ?? 0,
    hash: last.hash ?? '',
    ...(head?.signature ? { signature: head.signature } : {}),
  });
}

/** The audit log's entries replaced by these (a store writer with no key). */
async function setAuditList(store: Store, entries: readonly AuditEntry[]): Promise<void> {
  const list = auditListKey('sandbox');
  await store.deleteList(list);
  for (const entry of entries) await store.appendToList(list, entry);
}

describe('with the audit signing key', () => {
  test('a revocation taken out of the delegation’s request in the store still holds: the delegate’s approval is refused', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    expect((await engine.revokeDelegations(CHIDI, BOLA)).map((r) => r.id)).toEqual([id]);
    await rewrite(fx.store, id, withoutRevocation, { audited: false });
    expect((await engine.get(id))?.history.some((step) => step.action === REVOKED_ACTION)).toBe(false);

    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false, reason: 'delegation-ended' });
    expect(await engine.liveDelegations()).toEqual([]);
    expect((await engine.delegations()).find((d) => d.id === id)?.revoked).toMatchObject({ by: CHIDI });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('a break in the audit chain makes a delegation filed before it count for none, until granted again', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    await deleteAuditEntry(fx.store, 1);
    fx.clock.advance(1000);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false });
    expect(await engine.liveDelegations()).toEqual([]);

    await delegate(fx, CHIDI, BOLA);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    await engine.idle();
    // The break hides the chain's freezes too: sends are held until an approved unfreeze lifts them.
    expect(withdrawCalls(fx)).toBe(0);
    await liftFreeze(engine, ADE, DAYO);
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('a revocation taken out of the request and of a relinked chain under a forged head: once the bot records the head it could not verify, the delegation counts for none', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    expect(await engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
    await rewrite(fx.store, id, withoutRevocation, { audited: false });
    await rewriteChainWithoutRevocation(fx.store);
    fx.clock.advance(1000);

    // Filing appends: the bot records the head it could not verify, then signs on from it.
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false });
    const entries = await engine.auditRange(undefined, undefined);
    expect(entries.some((e) => e.action === 'head-unverified')).toBe(true);
    expect(entries.some((e) => e.action === REVOKED_ACTION)).toBe(false);
    expect(await engine.liveDelegations()).toEqual([]);
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('revoked and granted again, the delegate approves only while it is granted', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    // Sent before the revocation: one revoked before its claim goes back to the approvers instead.
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
    expect(await engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false, reason: 'delegation-ended' });
    const again = await delegate(fx, CHIDI, BOLA);
    expect((await engine.liveDelegations()).map((d) => d.id)).toEqual([again]);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(2);
  });
});

/** Engines sharing one marks file, as replicas on one host do. */
const sharedSigner = newSigner();
let marksFile = '';
const sharingMarks = delegationTest.extend('engineOptions', () => {
  marksFile = join(mkdtempSync(join(tmpdir(), 'marks-')), 'marks.json');
  return {
    engine: { policy: policy(), auditSeal: { signer: sharedSigner, marks: new HeadMarks(marksFile) } },
  };
});

describe('with the audit signing key, against a store writer who puts things back', () => {
  test('the revocation entry swapped (same seq and hash, another action) while it is the head, then restored: the delegation stays revoked', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    expect(await engine.liveDelegations()).toHaveLength(1); // read at the head before the revocation
    expect(await engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
    const original = await fx.store.readList<AuditEntry>(auditListKey('sandbox'), 0, -1);
    const at = original.findIndex((e) => e.action === REVOKED_ACTION);
    expect(at).toBe(original.length - 1);
    await setAuditList(
      fx.store,
      original.map((e, i) => (i === at ? { ...e, action: 'noted' } : e)),
    );
    await rewrite(fx.store, id, withoutRevocation, { audited: false });
    expect(await engine.liveDelegations()).toEqual([]);
    await setAuditList(fx.store, original);

    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false });
    expect(await engine.liveDelegations()).toEqual([]);
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  sharingMarks(
    'an older signed head and list put back, read by a running replica sharing the marks file: both count the delegation for none, and the rollback is recorded',
    async ({ fx, engine, networkId }) => {
      const id = await delegate(fx, CHIDI, BOLA);
      const b = await fx.another({
        engine: { policy: policy(), auditSeal: { signer: sharedSigner, marks: new HeadMarks(marksFile) } },
      });
      const oldHead = await fx.store.get<ChainHead>(auditHeadKey('sandbox'));
      const oldList = await fx.store.readList<AuditEntry>(auditListKey('sandbox'), 0, -1);
      expect(await engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
      expect(await b.engine.liveDelegations()).toEqual([]);

      await setAuditList(fx.store, oldList);
      await fx.store.set(auditHeadKey('sandbox'), oldHead);
      await rewrite(fx.store, id, withoutRevocation, { audited: false });
      expect(await b.engine.liveDelegations()).toEqual([]);
      expect(await engine.liveDelegations()).toEqual([]);

      const request = await fileDraft(b.engine, withdrawal(networkId, '1500'));
      expect(await approveAsSeen(b.engine, request.id, BOLA)).toMatchObject({ ok: false });
      await b.engine.idle();
      expect(withdrawCalls(fx)).toBe(0);
      const entries = await b.engine.auditRange(undefined, undefined);
      expect(entries.some((e) => e.action === 'head-unverified')).toBe(true);
      expect(await engine.liveDelegations()).toEqual([]);
    },
  );

  sharingMarks(
    'an older signed head and list put back and signed past the mark by a replica without the marks file: the next append records the fork, and after a restart the delegation counts for none',
    async ({ fx, engine, networkId }) => {
      const id = await delegate(fx, CHIDI, BOLA);
      const oldHead = await fx.store.get<ChainHead>(auditHeadKey('sandbox'));
      const oldList = await fx.store.readList<AuditEntry>(auditListKey('sandbox'), 0, -1);
      expect(await engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
      expect(await engine.liveDelegations()).toEqual([]);

      await setAuditList(fx.store, oldList);
      await fx.store.set(auditHeadKey('sandbox'), oldHead);
      await rewrite(fx.store, id, withoutRevocation, { audited: false });
      // Another host: the same key, no marks file; it signs on past the mark over the rolled-back chain.
      const other = await fx.another({
        engine: { policy: policy(), auditSeal: { signer: sharedSigner, marks: new HeadMarks() } },
      });
      await fileDraft(other.engine, withdrawal(networkId, '1'));
      await fileDraft(other.engine, withdrawal(networkId, '2'));
      await fileDraft(engine, withdrawal(networkId, '3'));
      const entries = await fx.store.readList<AuditEntry>(auditListKey('sandbox'), 0, -1);
      expect(entries.some((e) => e.action === 'head-unverified')).toBe(true);

      const restarted = await fx.another({
        engine: { policy: policy(), auditSeal: { signer: sharedSigner, marks: new HeadMarks(marksFile) } },
      });
      expect(await restarted.engine.liveDelegations()).toEqual([]);
      const request = await fileDraft(restarted.engine, withdrawal(networkId, '1500'));
      expect(await approveAsSeen(restarted.engine, request.id, BOLA)).toMatchObject({ ok: false });
      await restarted.engine.idle();
      expect(withdrawCalls(fx)).toBe(0);
    },
  );
});

describe('without the audit signing key', () => {
  delegationTest(
    'delegations are read from the store alone: a break in the audit chain leaves them counting',
    async ({ fx, engine, networkId }) => {
      const id = await delegate(fx, CHIDI, BOLA);
      await deleteAuditEntry(fx.store, 1);
      fx.clock.advance(1000);
      expect((await engine.liveDelegations()).map((d) => d.id)).toEqual([id]);
      expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
      expect(await engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
      expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false, reason: 'delegation-ended' });
      await engine.idle();
      expect(withdrawCalls(fx)).toBe(1);
    },
  );
});
