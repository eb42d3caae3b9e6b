// The revocations of delegations as the signed chain records them: read from entries that verify up to
// the signed head, and kept by a retention cut until the delegation they end has ended by its own date.
import { expect } from 'vitest';
import { chainEntry } from '../../src/audit/chain.js';
import type { AuditDraft, AuditEntry } from '../../src/audit/index.js';
import { auditHeadKey, auditListKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { revokesLiveDelegation, VerifiedRevocations } from '../../src/audit/verified-read.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

const SECOND = 1000;
const DAY = 86_400_000;

/** The entry of a delegation's revocation step, its delegation ending at `until`. */
const revocation = (requestId: string, at: Date, until: Date): AuditDraft => ({
  at: at.toISOString(),
  requestId,
  kind: 'delegation',
  action: 'delegation-revoked',
  state: 'completed',
  actor: 'U_CHIDI',
  figures: {
    payload: { delegator: 'U_CHIDI', delegate: 'U_BOLA', until: until.toISOString() },
    display: {},
    requiredApprovals: 1,
    approvals: ['U_ADE'],
  },
});

auditTest(
  'a retention cut keeps the revocation of a delegation not yet ended, and lets it go once it ended',
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('audit-revocation-kept');
    let now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { retentionMs: 8 * SECOND, now: () => now });
    const onChain = new VerifiedRevocations(replica.log, 'sandbox', replica.seal);
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
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('audit-revocation-forged-head');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    const onChain = new VerifiedRevocations(replica.log, 'sandbox', replica.seal);
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
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('audit-revocation-fork');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    await replica.log.append('sandbox', auditDraft(0, now));
    await replica.log.append('sandbox', revocation('AR-DELEGATED', now, new Date(now.getTime() + DAY)));
    await replica.log.append('sandbox', auditDraft(1, now));
    const [first] = await replica.log.entries('sandbox');
    if (first?.seq === undefined || !first.hash) throw new Error('the first entry is not chained');

    const agrees = new HeadMarks();
    agrees.raise('sandbox', { seq: first.seq, hash: first.hash }, now);
    const read = await new VerifiedRevocations(replica.log, 'sandbox', {
      ...replica.seal,
      marks: agrees,
    }).read();
    expect(read.filedAfter).toBe(Number.NEGATIVE_INFINITY);
    expect(read.revoked.has('AR-DELEGATED')).toBe(true);

    const other = new HeadMarks();
    other.raise('sandbox', { seq: first.seq, hash: 'f'.repeat(64) }, now);
    const forked = await new VerifiedRevocations(replica.log, 'sandbox', {
      ...replica.seal,
      marks: other,
    }).read();
    expect(forked.filedAfter).toBe(Number.POSITIVE_INFINITY);
  },
);

auditTest(
  'a long chain broken near its start reads the entries the head vouches for (no stack overflow)',
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('audit-revocation-long');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { now: () => now });
    const entries: AuditEntry[] = [];
    // Past what one call's arguments can spread on Node's default stack (some 123,000 to 125,000):
    // a read that spread the chain into Math.max would throw.
    for (let i = 0; i < 150_000; i += 1) {
      const draft = i === 1 ? revocation('AR-DELEGATED', now, now) : auditDraft(i, now);
      entries.push(chainEntry({ ...draft, environment: 'sandbox' }, entries.at(-1)));
    }
    // The size's premise, on this Node and stack: spreading the chain into one call overflows.
    expect(() => Math.max(...entries.map((e) => e.seq ?? 0))).toThrow(RangeError);
    const last = entries.at(-1) as AuditEntry;
    const list = auditListKey('sandbox');
    await a.deleteList(list);
    for (const [i, entry] of entries.entries()) {
      await a.appendToList(list, i === 0 ? { ...entry, note: 'rewritten' } : entry);
    }
    const head = { seq: last.seq ?? 0, hash: last.hash ?? '' };
    await a.set(auditHeadKey('sandbox'), replica.seal.signer.signHead('sandbox', head));
    const read = await new VerifiedRevocations(replica.log, 'sandbox', {
      ...replica.seal,
      marks: new HeadMarks(),
    }).read();
    expect(read.filedAfter).toBe(now.getTime());
    expect(read.revoked.has('AR-DELEGATED')).toBe(true);
  },
);

auditTest(
  'a revocation whose delegation’s end cannot be read is kept as long as any delegation may run',
  () => {
    const at = new Date('2026-11-01T09:00:00.000Z');
    const { figures: _figures, ...unreadable } = revocation('AR-OLD', at, at);
    const entry = { ...unreadable, environment: 'sandbox' as const };
    expect(revokesLiveDelegation(entry, new Date(at.getTime() + 89 * DAY))).toBe(true);
    expect(revokesLiveDelegation(entry, new Date(at.getTime() + 91 * DAY))).toBe(false);
    const ended = {
      ...revocation('AR-ENDED', at, new Date(at.getTime() + DAY)),
      environment: 'sandbox' as const,
    };
    expect(revokesLiveDelegation(ended, new Date(at.getTime() + 2 * DAY))).toBe(false);
  },
);
