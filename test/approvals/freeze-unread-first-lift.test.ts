// Where a store writer breaks the signed audit chain so that the freeze read has no entry to name the
// hold by that it vouches for, the first `/cngn unfreeze` filed for the hold still lifts it: the append
// that files it records a finding that keeps the hold's name (docs/decisions/freeze-on-the-signed-chain.md).
// The head and the list gone (the bot's head marks kept): named by the mark's time, which the finding
// records. The last entry edited under a head whose signature still holds: the append records that as
// a finding, chained onto that entry, whose time names the hold before and after.
import { expect } from 'vitest';
import type { AuditEntry } from '../../src/audit/index.js';
import { auditHeadKey, auditListKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest,
  twoNetworks,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const list = auditListKey('sandbox');
const headKey = auditHeadKey('sandbox');

type Engine = Pick<EngineFixture, 'engine'>;

/** A withdrawal filed and approved (one approval is enough below ₦1,000,000), and what that started. */
async function approvedWithdrawal(fx: Engine, networkId: string): Promise<string> {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500.50'));
  expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
  await fx.engine.idle();
  return request.id;
}

/**
 * Held by the chain: the first unfreeze filed (by A; its filing is the first append since the break)
 * and approved by B lifts the hold, and a withdrawal approved after it is sent.
 */
async function liftedByFirstUnfreeze(fx: Engine, networkId: string, sentBefore: () => number) {
  const held = await fx.engine.currentFreeze();
  expect(held).toMatchObject({ by: 'the audit chain' });
  const filed = await fx.engine.fileUnfreeze(APPROVER_A);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  expect(filed.request.payload.frozenAt).toBe(held?.at);
  expect(await fx.engine.currentFreeze()).toMatchObject({ by: 'the audit chain', at: held?.at });
  expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_B)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect(await fx.engine.get(filed.request.id)).toMatchObject({ state: 'completed' });
  expect(await fx.engine.currentFreeze()).toBeUndefined();
  const sent = sentBefore();
  const w = await approvedWithdrawal(fx, networkId);
  expect(await fx.engine.get(w)).toMatchObject({ state: 'sent' });
  expect(sentBefore()).toBe(sent + 1);
}

engineTest(
  'the head and the list gone, the marks kept: the first unfreeze filed lifts the hold',
  async ({ startEngine }) => {
    const seal = { signer: newSigner(), marks: new HeadMarks() };
    const first = await startEngine({ engine: { auditSeal: seal } });
    const [networkId = ''] = await twoNetworks(first.client);
    await approvedWithdrawal(first, networkId);
    expect(withdrawCalls(first)).toBe(1);
    await first.store.deleteList(list);
    await first.store.delete(headKey);
    // The bot started again (same key and head marks), nothing read yet.
    const again = { ...first, ...(await first.another({ engine: { auditSeal: seal } })) };
    await liftedByFirstUnfreeze(again, networkId, () => withdrawCalls(first));
    const [finding] = await first.store.readList<AuditEntry>(list, 0, 0);
    expect(finding).toMatchObject({ action: 'head-unverified', seq: 0 });
    expect(finding?.note).toMatch(/^head-missing: /);
    await again.engine.stop();
  },
);

engineTest(
  'the last entry edited under a head whose signature holds: the append records it, and the first unfreeze filed lifts the hold',
  async ({ startEngine }) => {
    const seal = { signer: newSigner(), marks: new HeadMarks() };
    const first = await startEngine({ engine: { auditSeal: seal } });
    const [networkId = ''] = await twoNetworks(first.client);
    await approvedWithdrawal(first, networkId);
    expect(withdrawCalls(first)).toBe(1);
    const entries = await first.store.readList<AuditEntry>(list, 0, -1);
    const last = entries.at(-1) as AuditEntry;
    await first.store.deleteList(list);
    for (const entry of entries.slice(0, -1)) await first.store.appendToList(list, entry);
    await first.store.appendToList(list, { ...last, note: 'nothing happened here' });
    // The bot started again (same key and head marks), nothing read yet.
    const again = { ...first, ...(await first.another({ engine: { auditSeal: seal } })) };
    await liftedByFirstUnfreeze(again, networkId, () => withdrawCalls(first));
    const after = await first.store.readList<AuditEntry>(list, 0, -1);
    const finding = after[entries.length];
    expect(finding).toMatchObject({ action: 'head-unverified', prev: last.hash, seq: (last.seq ?? 0) + 1 });
    expect(finding?.note).toMatch(/^entry-edited: /);
    await again.engine.stop();
  },
);
