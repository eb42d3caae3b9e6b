// The grants and revocations of delegations as the signed chain records them: read from entries that
// verify up to the signed head, and kept by a retention cut until the delegation has ended by its own date.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { expect } from 'vitest';
import type { AuditDraft } from '../../src/audit/index.js';
import { auditHeadKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { holdsLiveDelegation, VerifiedDelegations } from '../../src/audit/verified-read.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';
import { bundled } from '../support/node-entry.js';
import type { LongChainSaid } from './long-chain-worker.js';

const SECOND = 1000;
const DAY = 86_400_000;

/** The entry of a delegation request's step `action` (in state completed), its delegation ending at `until`. */
const delegationStep = (action: string, requestId: string, at: Date, until: Date): AuditDraft => ({
  at: at.toISOString(),
  requestId,
  kind: 'delegation',
  action,
  state: 'completed',
  ...(action === 'delegation-revoked' ? { actor: 'U_CHIDI' } : {}),
  figures: {
    payload: { delegator: 'U_CHIDI', delegate: 'U_BOLA', until: until.toISOString() },
    display: {},
    requiredApprovals: 1,
    approvals: ['U_ADE'],
  },
});

/** The entry of a delegation's revocation step. */
const revocation = (requestId: string, at: Date, until: Date) =>
  delegationStep('delegation-revoked', requestId, at, until);

/** The entry of a delegation request's completion: its grant. */
const grant = (requestId: string, at: Date, until: Date) => delegationStep('completed', requestId, at, until);

auditTest(
  'a retention cut keeps the revocation of a delegation not yet ended, and lets it go once it ended',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-revocation-kept');
    let now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { retentionMs: 8 * SECOND, now: () => now });
    const onChain = new VerifiedDelegations(replica.log, 'sandbox', replica.seal);
    await replica.log.append('sandbox', auditDraft(0, now));
    await replica.log.append('sandbox', revocation('AR-DELEGATED', now, new Date(now.getTime() + 3 * DAY)));
    await replica.log.append('sandbox', auditDraft(1, now));
    now = new Date(now.getTime() + 10 * SECOND);

    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    const kept = await replica.log.entries('sandbox');
    expect(kept.map((e) => e.requestId)).toContain('AR-DELEGATED');
    expect(kept.map((e) => e.requestId)).not.toContain(auditDraft(0).requestId);
    expect((await replica.keeper.check()).ok).toBe(true);
    const read = await onChain.read();
    expect(read.revoked.get('AR-DELEGATED')).toMatchObject({ actor: 'U_CHIDI' });
    expect(read.filedAfter).toBe(Number.NEGATIVE_INFINITY);

    now = new Date(now.getTime() + 4 * DAY);
    await replica.log.append('sandbox', auditDraft(2, now));
    now = new Date(now.getTime() + 10 * SECOND);
    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    expect((await replica.log.entries('sandbox')).map((e) => e.requestId)).not.toContain('AR-DELEGATED');
    expect((await replica.keeper.check()).ok).toBe(true);
  },
);

auditTest(
  'a head that does not verify vouches for nothing, however the entries read',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-revocation-forged-head');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    const onChain = new VerifiedDelegations(replica.log, 'sandbox', replica.seal);
    await replica.log.append('sandbox', revocation('AR-DELEGATED', now, new Date(now.getTime() + DAY)));
    expect((await onChain.read()).revoked.has('AR-DELEGATED')).toBe(true);

    const head = await replica.log.head('sandbox');
    if (!head?.signature) throw new Error('the head is not signed');
    const forged = {
      ...head,
      signature: {
        ...head.signature,
        value: head.signature.value.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
      },
    };
    await a.set(auditHeadKey('sandbox'), forged);
    const read = await onChain.read();
    expect(read.filedAfter).toBe(Number.POSITIVE_INFINITY);
    expect(read.revoked.size).toBe(0);
  },
);

auditTest(
  'a head past the mark whose chain holds another entry at the mark’s seq is another chain: it vouches for nothing',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-revocation-fork');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    await replica.log.append('sandbox', auditDraft(0, now));
    await replica.log.append('sandbox', revocation('AR-DELEGATED', now, new Date(now.getTime() + DAY)));
    await replica.log.append('sandbox', auditDraft(1, now));
    const [first] = await replica.log.entries('sandbox');
    if (first?.seq === undefined || !first.hash) throw new Error('the first entry is not chained');

    const agrees = new HeadMarks();
    agrees.raise('sandbox', { seq: first.seq, hash: first.hash }, now);
    const read = await new VerifiedDelegations(replica.log, 'sandbox', {
      ...replica.seal,
      marks: agrees,
    }).read();
    expect(read.filedAfter).toBe(Number.NEGATIVE_INFINITY);
    expect(read.revoked.has('AR-DELEGATED')).toBe(true);

    const other = new HeadMarks();
    other.raise('sandbox', { seq: first.seq, hash: 'f'.repeat(64) }, now);
    const forked = await new VerifiedDelegations(replica.log, 'sandbox', {
      ...replica.seal,
      marks: other,
    }).read();
    expect(forked.filedAfter).toBe(Number.POSITIVE_INFINITY);
  },
);

auditTest(
  'a long chain broken near its start reads the entries the head vouches for (no stack overflow)',
  async () => {
    // Past what one call's arguments can spread on the worker's stack (some 38,000 on half a megabyte,
    // a third of the main thread's): a read that spread the chain into Math.max would throw. The chain's
    // length, not the stack's size, is what the read's cost grows with, so the stack is the smaller.
    const worker = new Worker(await bundled('test/audit/long-chain-worker.ts'), {
      workerData: { count: 48_000 },
      resourceLimits: { stackSizeMb: 0.5 },
    });
    const [said] = (await once(worker, 'message')) as [LongChainSaid];
    await worker.terminate();
    // The size's premise, on that stack: spreading the chain into one call overflows.
    expect(said.spreadOverflows).toBe(true);
    expect(said.filedAfter).toBe(said.at);
    expect(said.revoked).toBe(true);
  },
);

auditTest(
  'a revocation whose delegation’s end cannot be read is kept as long as any delegation may run',
  () => {
    const at = new Date('2026-11-01T09:00:00.000Z');
    const { figures: _figures, ...unreadable } = revocation('AR-OLD', at, at);
    const entry = { ...unreadable, environment: 'sandbox' as const };
    expect(holdsLiveDelegation(entry, new Date(at.getTime() + 89 * DAY))).toBe(true);
    expect(holdsLiveDelegation(entry, new Date(at.getTime() + 91 * DAY))).toBe(false);
    const ended = {
      ...revocation('AR-ENDED', at, new Date(at.getTime() + DAY)),
      environment: 'sandbox' as const,
    };
    expect(holdsLiveDelegation(ended, new Date(at.getTime() + 2 * DAY))).toBe(false);
  },
);

auditTest(
  'a retention cut keeps the grant of a delegation not yet ended, and lets it go once it ended',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-grant-kept');
    let now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { retentionMs: 8 * SECOND, now: () => now });
    const onChain = new VerifiedDelegations(replica.log, 'sandbox', replica.seal);
    await replica.log.append('sandbox', auditDraft(0, now));
    await replica.log.append('sandbox', grant('AR-GRANTED', now, new Date(now.getTime() + 3 * DAY)));
    await replica.log.append('sandbox', auditDraft(1, now));
    now = new Date(now.getTime() + 10 * SECOND);

    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    const kept = await replica.log.entries('sandbox');
    expect(kept.map((e) => e.requestId)).toContain('AR-GRANTED');
    expect(kept.map((e) => e.requestId)).not.toContain(auditDraft(0).requestId);
    const read = await onChain.read();
    expect(read.granted.get('AR-GRANTED')).toEqual({ at: '2026-11-01T09:00:00.000Z' });
    expect(read.revoked.size).toBe(0);

    now = new Date(now.getTime() + 4 * DAY);
    await replica.log.append('sandbox', auditDraft(2, now));
    now = new Date(now.getTime() + 10 * SECOND);
    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    expect((await replica.log.entries('sandbox')).map((e) => e.requestId)).not.toContain('AR-GRANTED');
    expect((await onChain.read()).granted.has('AR-GRANTED')).toBe(false);
  },
);

auditTest(
  'a grant appended after the head was read is read on from the cached head, not from the whole list',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-grant-read-on');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    let wholeReads = 0;
    const reader = {
      head: (environment: 'sandbox') => replica.log.head(environment),
      latest: (environment: 'sandbox', count: number) => replica.log.latest(environment, count),
      entries: (environment: 'sandbox') => {
        wholeReads += 1;
        return replica.log.entries(environment);
      },
    };
    const onChain = new VerifiedDelegations(reader, 'sandbox', replica.seal);
    await replica.log.append('sandbox', auditDraft(0, now));
    expect((await onChain.read()).granted.size).toBe(0);

    await replica.log.append('sandbox', grant('AR-GRANTED', now, new Date(now.getTime() + DAY)));
    await replica.log.append('sandbox', auditDraft(1, now));
    const read = await onChain.read();
    expect(read.granted.has('AR-GRANTED')).toBe(true);
    expect(read.filedAfter).toBe(Number.NEGATIVE_INFINITY);
    expect(wholeReads).toBe(1);
  },
);

auditTest(
  'an entry of a delegation request that is not its completion grants nothing',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-grant-other-steps');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    const until = new Date(now.getTime() + DAY);
    await replica.log.append('sandbox', delegationStep('approved', 'AR-APPROVED', now, until));
    await replica.log.append('sandbox', { ...grant('AR-REJECTED', now, until), state: 'rejected' });
    await replica.log.append('sandbox', { ...grant('AR-A-WITHDRAWAL', now, until), kind: 'withdraw' });
    await replica.log.append('sandbox', grant('AR-GRANTED', now, until));
    const read = await new VerifiedDelegations(replica.log, 'sandbox', replica.seal).read();
    expect([...read.granted.keys()]).toEqual(['AR-GRANTED']);
  },
);

auditTest(
  'the cached head, put back after the bot signed past it, vouches for nothing: the mark is checked on every read',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-cached-head-rolled-back');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    const onChain = new VerifiedDelegations(replica.log, 'sandbox', replica.seal);
    await replica.log.append('sandbox', grant('AR-GRANTED', now, new Date(now.getTime() + 3 * DAY)));
    expect((await onChain.read()).granted.has('AR-GRANTED')).toBe(true);
    const cached = await a.get(auditHeadKey('sandbox'));
    await replica.log.append('sandbox', auditDraft(1, now));
    await a.set(auditHeadKey('sandbox'), cached);
    expect((await onChain.read()).granted.size).toBe(0);
  },
);
