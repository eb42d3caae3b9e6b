// A store writer without the audit signing key puts back an unfreeze that already lifted a freeze, or
// was given up on, as approved with its claims gone: the signed chain names that request as spent, so
// it lifts nothing (one the chain records completed ends so again, and nothing says sends resume), and
// an unfreeze of one episode the chain cannot be read in never lifts the next.
import { expect } from 'vitest';
import { CLOSED_ON_CHAIN } from '../../src/approvals/closed-on-chain.js';
import type { FreezeChange } from '../../src/approvals/freeze.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { type ChainHead, entryHash } from '../../src/audit/chain.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { auditHeadKey, auditListKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { requesterNotice } from '../../src/slack/approvals/blocks/steps.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import {
  APPROVER_A,
  APPROVER_B,
  engineTest,
  twoNetworks,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

const FREEZE_KEY = 'approvals:freeze:sandbox';
const list = auditListKey('sandbox');
const headKey = auditHeadKey('sandbox');

/** The store writer's replay: the freeze record deleted, `id` put back as approved with no claims. */
async function replay(store: Store, id: string): Promise<void> {
  await store.delete(FREEZE_KEY);
  const stored = (await store.get<ApprovalRequest>(`approval:${id}`)) as ApprovalRequest;
  const {
    outcome: _o,
    execution: _e,
    ...rest
  } = stored as ApprovalRequest & {
    outcome?: unknown;
    execution?: unknown;
  };
  const ran = ['executing', 'outcome-unknown', 'failed', 'completed', 'sending', 'claimed'];
  const history = stored.history.filter((h) => !ran.includes(h.action));
  const expiresAt = new Date(Date.now() + 3600_000).toISOString();
  await store.set(`approval:${id}`, { ...rest, state: 'approved', history, expiresAt });
  await store.delete(`approval-exec:${id}:${stored.round}`);
  for (let g = 1; g < 5; g++) await store.delete(`approval-exec:${id}:${stored.round}:${g}`);
  await store.addToSet('approvals:open:sandbox', id);
}

engineTest(
  'an unfreeze given up on and put back as approved lifts nothing',
  async ({ startEngine, defer }) => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const controls = new StoreControls();
    const fx = await startEngine({
      store: controls.wrap(memory),
      engine: { auditSeal: { signer: newSigner(), marks: new HeadMarks() } },
    });
    const [networkId = ''] = await twoNetworks(fx.client);
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const w = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500.50'));
    await approveAsSeen(fx.engine, w.id, APPROVER_A);
    await fx.engine.idle();
    // The lift's write is left unanswered: the sweep gives it up on the chain and fails it.
    const late = controls.answerLate(FREEZE_KEY, (next) => (next as { state?: string }).state === 'lifted');
    const filed = await fx.engine.fileUnfreeze(APPROVER_B);
    if (!filed.ok) throw new Error('the unfreeze was not filed');
    const u = filed.request.id;
    expect(await approveAsSeen(fx.engine, u, APPROVER_A)).toMatchObject({ ok: true });
    await fx.engine.idle();
    await fx.engine.tick();
    await fx.engine.idle();
    expect(await fx.engine.get(u)).toMatchObject({ state: 'failed' });
    expect(await late.landed()).toBe(false);

    await replay(memory, u);
    for (let k = 0; k < 2; k++) {
      await fx.engine.tick();
      await fx.engine.idle();
    }
    expect((await fx.engine.get(u))?.state).not.toBe('completed');
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B });
    expect(withdrawCalls(fx)).toBe(0);
  },
);

engineTest('an unfreeze of one unreadable episode never lifts a later freeze', async ({ startEngine }) => {
  const signer = newSigner();
  const fx = await startEngine({ engine: { auditSeal: { signer, marks: new HeadMarks() } } });
  const [networkId = ''] = await twoNetworks(fx.client);
  const dropEntry = async (pick: (i: number, all: AuditEntry[]) => boolean) => {
    const entries = await fx.store.readList<AuditEntry>(list, 0, -1);
    await fx.store.deleteList(list);
    for (const [i, e] of entries.entries()) if (!pick(i, entries)) await fx.store.appendToList(list, e);
  };
  const w0 = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500.50'));
  await approveAsSeen(fx.engine, w0.id, APPROVER_A);
  await fx.engine.idle();
  // An incident: a break; sends held; an approved unfreeze U0 lifts that episode.
  await dropEntry((i) => i === 1);
  const marks = () => ({ engine: { auditSeal: { signer, marks: new HeadMarks() } } });
  const again = { ...fx, ...(await fx.another(marks())) };
  expect(await again.engine.currentFreeze()).toMatchObject({ by: 'the audit chain' });
  const filed = await again.engine.fileUnfreeze(APPROVER_A);
  if (!filed.ok) throw new Error('the unfreeze was not filed');
  const u0 = filed.request.id;
  expect(await approveAsSeen(again.engine, u0, APPROVER_B)).toMatchObject({ ok: true });
  await again.engine.idle();
  expect(await again.engine.currentFreeze()).toBeUndefined();
  // Later, a genuine freeze holds an approved withdrawal.
  await again.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
  const w = await fileDraft(again.engine, withdrawalDraft(networkId, '1500.50'));
  await approveAsSeen(again.engine, w.id, APPROVER_A);
  await again.engine.idle();
  const sent = withdrawCalls(fx);
  // The store writer breaks the chain after that freeze's entry and puts U0 back as approved.
  await dropEntry((i, all) => i === all.length - 2);
  await replay(fx.store, u0);
  const third = { ...fx, ...(await fx.another(marks())) };
  const held = await third.engine.currentFreeze();
  expect(held).toMatchObject({ by: 'the audit chain' });
  expect(held?.at).not.toBe(filed.request.payload.frozenAt);
  for (let k = 0; k < 3; k++) {
    await third.engine.tick();
    await third.engine.idle();
  }
  expect((await third.engine.get(u0))?.state).not.toBe('completed');
  expect(await third.engine.currentFreeze()).toBeDefined();
  expect(withdrawCalls(fx)).toBe(sent);
  expect((await third.engine.get(w.id))?.state).toBe('approved');
  await again.engine.stop();
  await third.engine.stop();
});

engineTest(
  'a head that does not verify, written to bear an old episode’s name, lets no spent unfreeze lift it',
  async ({ startEngine }) => {
    const seal = { signer: newSigner(), marks: new HeadMarks() };
    const first = await startEngine({ engine: { auditSeal: seal } });
    const [networkId = ''] = await twoNetworks(first.client);
    let fx = first;
    const sweep = async () => {
      await fx.engine.tick();
      await fx.engine.idle();
    };
    const approved = async () => {
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500.50'));
      await approveAsSeen(fx.engine, request.id, APPROVER_A);
      await fx.engine.idle();
      return request.id;
    };
    await approved();
    // An incident: the head's signature stripped; an approved unfreeze U lifts that episode.
    const head = (await fx.store.get<ChainHead>(headKey)) as ChainHead;
    await fx.store.set(headKey, { seq: head.seq, hash: head.hash, entry: head.entry });
    await sweep();
    const episode = await fx.engine.currentFreeze();
    expect(episode).toMatchObject({ by: 'the audit chain' });
    const filed = await fx.engine.fileUnfreeze(APPROVER_A);
    if (!filed.ok) throw new Error('the unfreeze was not filed');
    expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_B)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    const sent = withdrawCalls(fx);

    // The store writer writes an unsigned head whose own entry bears that episode's time, and puts U back.
    const [last] = await fx.store.readList<AuditEntry>(list, -1, -1);
    const { hash: _h, ...rest } = last as AuditEntry;
    const draft = { ...rest, seq: (last?.seq ?? 0) + 1, prev: last?.hash, at: episode?.at ?? '' };
    const minted = { ...draft, hash: entryHash(draft) };
    await fx.store.set(headKey, { seq: minted.seq, hash: minted.hash, entry: minted });
    await replay(fx.store, filed.request.id);
    // Another replica, or the bot started again, with the same head marks and nothing read yet.
    fx = { ...first, ...(await first.another({ engine: { auditSeal: seal } })) };
    const changes: FreezeChange[] = [];
    fx.engine.onFreezeChange(async (change) => {
      changes.push(change);
    });
    const w = await approved();
    for (let k = 0; k < 3; k++) await sweep();
    // U ends as the chain records it (completed, once), without lifting anything again or saying so.
    const after = (await fx.engine.get(filed.request.id)) as ApprovalRequest;
    expect(after.history.at(-1)).toMatchObject({ state: 'completed' });
    expect(after.history.at(-1)?.action).not.toBe('completed');
    expect(after.history.at(-1)?.note).toContain(`${CLOSED_ON_CHAIN} (completed,`);
    expect(requesterNotice(after)).toBeUndefined();
    expect(changes.filter((change) => 'lifted' in change)).toEqual([]);
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: 'the audit chain' });
    expect((await fx.engine.get(w))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(sent);
    await fx.engine.stop();
  },
);
