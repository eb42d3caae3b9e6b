// What the signed audit chain says of a request (closed, called, claimed, open, or not shown open), and
// whether a process's own claim comes right before its call's entry, read only from entries that verify
// up to a signed head at or past the mark: a head put back behind the mark, or one whose chain holds
// another entry at the mark's seq, vouches for nothing, so no request is shown open and none is sent.
import { expect } from 'vitest';
import type { AuditDraft, RequestState } from '../../src/audit/index.js';
import { auditHeadKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { CALL_ACTION, CLAIM_NOT_TAKEN, VerifiedClosings } from '../../src/audit/verified-closings.js';
import { holdsMark } from '../../src/audit/verified-read.js';
import { auditTest } from '../support/audit-archive.js';

const NOW = new Date('2026-11-01T09:00:00.000Z');

/** The entry of step `step` of withdrawal `requestId`, moving it to `state`. */
const stepOf = (requestId: string, step: number, state: RequestState): AuditDraft => ({
  at: NOW.toISOString(),
  requestId,
  kind: 'withdraw',
  action: step === 0 ? 'filed' : state,
  state,
  step,
});

auditTest(
  'reads each request as closed, called, open, or not shown open',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('closings-words');
    const replica = auditReplica(a, { now: () => NOW });
    const onChain = new VerifiedClosings(replica.log, 'sandbox', replica.seal);
    await replica.log.append('sandbox', stepOf('AR-DONE', 0, 'pending'));
    await replica.log.append('sandbox', stepOf('AR-DONE', 1, 'sent'));
    await replica.log.append('sandbox', stepOf('AR-DONE', 2, 'completed'));
    await replica.log.append('sandbox', stepOf('AR-SENT', 0, 'pending'));
    await replica.log.append('sandbox', stepOf('AR-SENT', 1, 'outcome-unknown'));
    await replica.log.append('sandbox', stepOf('AR-OPEN', 0, 'pending'));
    await replica.log.append('sandbox', stepOf('AR-OPEN', 1, 'approved'));

    expect(await onChain.wordOn('AR-DONE')).toMatchObject({ closed: { state: 'completed' } });
    expect(await onChain.wordOn('AR-SENT')).toMatchObject({ called: { state: 'outcome-unknown' } });
    expect(await onChain.wordOn('AR-OPEN')).toBe('open');
    expect(await onChain.wordOn('AR-NEVER-FILED')).toBe('unknown');
  },
);

/** The step of `requestId` taking action `action` into `state`. */
const actionOf = (requestId: string, step: number, action: string, state: RequestState): AuditDraft => ({
  ...stepOf(requestId, step, state),
  action,
});

auditTest(
  'reads a request whose last claim nothing hands back as claimed, and one handed back as open',
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('closings-claims');
    const replica = auditReplica(a, { now: () => NOW });
    const onChain = new VerifiedClosings(replica.log, 'sandbox', replica.seal);
    for (const id of ['AR-CLAIMED', 'AR-RELEASED', 'AR-HELD', 'AR-AGAIN', 'AR-CALLED']) {
      await replica.log.append('sandbox', stepOf(id, 0, 'pending'));
      await replica.log.append('sandbox', actionOf(id, 1, 'approved', 'approved'));
      await replica.log.append('sandbox', actionOf(id, 2, 'executing', 'executing'));
    }
    await replica.log.append('sandbox', actionOf('AR-CLAIMED', 3, 'held-frozen', 'executing'));
    await replica.log.append('sandbox', actionOf('AR-RELEASED', 3, 'released', 'approved'));
    await replica.log.append('sandbox', actionOf('AR-HELD', 3, 'held-frozen', 'approved'));
    await replica.log.append('sandbox', actionOf('AR-AGAIN', 3, 'released', 'approved'));
    await replica.log.append('sandbox', actionOf('AR-CALLED', 3, CALL_ACTION, 'executing'));
    await replica.log.append('sandbox', actionOf('AR-CALLED', 4, 'released', 'approved'));
    expect(await onChain.wordOn('AR-AGAIN')).toBe('open'); // read, then read on from the cached head
    await replica.log.append('sandbox', actionOf('AR-AGAIN', 4, 'executing', 'executing'));

    expect(await onChain.wordOn('AR-CLAIMED')).toMatchObject({ claimed: { state: 'executing' } });
    expect(await onChain.wordOn('AR-RELEASED')).toBe('open');
    expect(await onChain.wordOn('AR-HELD')).toBe('open');
    expect(await onChain.wordOn('AR-AGAIN')).toMatchObject({ claimed: { state: 'executing' } });
    // A call's own entry is never handed back.
    expect(await onChain.wordOn('AR-CALLED')).toMatchObject({ called: { state: 'executing' } });
  },
);

auditTest(
  'a head put back behind the mark vouches for nothing: a closed request is not shown open, nor is an open one',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('closings-rolled-back');
    const replica = auditReplica(a, { now: () => NOW });
    await replica.log.append('sandbox', stepOf('AR-OPEN', 0, 'pending'));
    await replica.log.append('sandbox', stepOf('AR-DONE', 0, 'pending'));
    const behind = await a.get(auditHeadKey('sandbox'));
    await replica.log.append('sandbox', stepOf('AR-DONE', 1, 'completed'));
    const onChain = new VerifiedClosings(replica.log, 'sandbox', replica.seal);
    expect(await onChain.wordOn('AR-DONE')).toMatchObject({ closed: { state: 'completed' } });

    // A store writer puts back the signed head from before the closing: the read has raised the mark past it.
    await a.set(auditHeadKey('sandbox'), behind);
    expect(await onChain.wordOn('AR-DONE')).toBe('unknown');
    expect(await onChain.wordOn('AR-OPEN')).toBe('unknown');
    // Nor does a reader with nothing cached, on the same mark.
    const fresh = new VerifiedClosings(replica.log, 'sandbox', replica.seal);
    expect(await fresh.wordOn('AR-DONE')).toBe('unknown');
  },
);

auditTest(
  'a chain holding another entry at the mark’s seq is another chain: nothing in it is shown open',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('closings-fork');
    const replica = auditReplica(a, { now: () => NOW });
    await replica.log.append('sandbox', stepOf('AR-OPEN', 0, 'pending'));
    await replica.log.append('sandbox', stepOf('AR-OPEN', 1, 'approved'));
    const [first] = await replica.log.entries('sandbox');
    if (first?.seq === undefined || !first.hash) throw new Error('the first entry is not chained');
    const agrees = new HeadMarks();
    agrees.raise('sandbox', { seq: first.seq, hash: first.hash }, NOW);
    const read = new VerifiedClosings(replica.log, 'sandbox', { ...replica.seal, marks: agrees });
    expect(await read.wordOn('AR-OPEN')).toBe('open');

    const other = new HeadMarks();
    other.raise('sandbox', { seq: first.seq, hash: 'f'.repeat(64) }, NOW);
    const forked = new VerifiedClosings(replica.log, 'sandbox', { ...replica.seal, marks: other });
    expect(await forked.wordOn('AR-OPEN')).toBe('unknown');
  },
);

auditTest(
  'holdsMark: the mark’s entry, or a chain cut past the mark; never another entry at its seq',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('closings-holds-mark');
    const replica = auditReplica(a, { now: () => NOW });
    for (let step = 0; step < 3; step += 1) {
      await replica.log.append('sandbox', stepOf('AR-OPEN', step, step === 0 ? 'pending' : 'approved'));
    }
    const chain = await replica.log.entries('sandbox');
    const [first, second] = chain;
    if (first?.seq === undefined || !first.hash || second?.seq === undefined || !second.hash) {
      throw new Error('the entries are not chained');
    }
    const at = NOW.toISOString();
    const mark = { seq: second.seq, hash: second.hash, at };
    expect(holdsMark(chain, mark)).toBe(true);
    expect(holdsMark(chain, { ...mark, hash: first.hash })).toBe(false);
    // The mark's entry edited in place: its hash no longer reads as the mark's.
    const edited = chain.map((e) => (e.seq === second.seq ? { ...e, note: 'edited' } : e));
    expect(holdsMark(edited, mark)).toBe(false);
    // Cut by retention: every entry left is past the mark.
    expect(holdsMark(chain.slice(2), mark)).toBe(true);
    // Rolled back: the chain ends before the mark's seq.
    expect(holdsMark(chain.slice(0, 1), mark)).toBe(false);
  },
);

auditTest(
  "tells a process whose own claim comes right before its call's entry from one another claim or call came between",
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('closings-own-claims');
    const replica = auditReplica(a, { now: () => NOW });
    const onChain = new VerifiedClosings(replica.log, 'sandbox', replica.seal);
    const call = (requestId: string): AuditDraft => ({
      at: NOW.toISOString(),
      requestId,
      kind: 'withdraw',
      action: CALL_ACTION,
      state: 'executing',
    });
    const at = NOW.toISOString();
    for (const id of ['AR-RACE', 'AR-MINE', 'AR-SETTLED']) {
      await replica.log.append('sandbox', stepOf(id, 0, 'pending'));
      await replica.log.append('sandbox', actionOf(id, 1, 'approved', 'approved'));
      await replica.log.append('sandbox', actionOf(id, 2, 'executing', 'executing'));
    }
    expect(await onChain.ownClaimHolds('AR-RACE', { step: 2, at })).toBe(true);
    // A's claim handed back (a forged lapse), B's claim and call, then A's call.
    await replica.log.append('sandbox', actionOf('AR-RACE', 3, 'released', 'approved'));
    await replica.log.append('sandbox', actionOf('AR-RACE', 4, 'executing', 'executing'));
    const callB = await replica.log.append('sandbox', call('AR-RACE'));
    const callA = await replica.log.append('sandbox', call('AR-RACE'));
    const mine = await replica.log.append('sandbox', call('AR-MINE'));

    expect(await onChain.ownClaimHolds('AR-RACE', { step: 4, at }, callB)).toBe(true);
    expect(await onChain.ownClaimHolds('AR-RACE', { step: 2, at }, callA)).toBe(false);
    expect(await onChain.ownClaimHolds('AR-RACE', { step: 2, at })).toBe(false);
    expect(await onChain.ownClaimHolds('AR-RACE', { step: 4, at })).toBe(false); // a call came after it
    expect(await onChain.ownClaimHolds('AR-MINE', { step: 2, at }, mine)).toBe(true);
    expect(await onChain.ownClaimHolds('AR-MINE', { step: 3, at }, mine)).toBe(false);
    expect(await onChain.ownClaimHolds('AR-MINE', { step: 2, at }, callA)).toBe(false); // not its call
    // The tracker settled the claim (outcome unknown) before the process's call entry landed.
    await replica.log.append('sandbox', actionOf('AR-SETTLED', 3, 'outcome-unknown', 'outcome-unknown'));
    const late = await replica.log.append('sandbox', call('AR-SETTLED'));
    expect(await onChain.ownClaimHolds('AR-SETTLED', { step: 2, at }, late)).toBe(false);
    expect(await onChain.ownClaimHolds('AR-SETTLED', { step: 2, at })).toBe(false);
  },
);

auditTest(
  'a claim given back untaken hands back only the claim it names, while that claim is the last one',
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('closings-not-taken');
    const replica = auditReplica(a, { now: () => NOW });
    const onChain = new VerifiedClosings(replica.log, 'sandbox', replica.seal);
    const at = NOW.toISOString();
    const claimOf = (id: string, step: number, generation: number): AuditDraft => ({
      ...actionOf(id, step, 'executing', 'executing'),
      claim: { round: 0, generation },
    });
    const notTaken = (requestId: string, generation: number): AuditDraft => ({
      at,
      requestId,
      kind: 'withdraw',
      action: CLAIM_NOT_TAKEN,
      state: 'approved',
      claim: { round: 0, generation },
    });
    const call = (requestId: string): AuditDraft => ({
      at,
      requestId,
      kind: 'withdraw',
      action: CALL_ACTION,
      state: 'executing',
    });
    for (const id of ['AR-MINE', 'AR-THEIRS', 'AR-NEVER']) {
      await replica.log.append('sandbox', stepOf(id, 0, 'pending'));
      await replica.log.append('sandbox', actionOf(id, 1, 'approved', 'approved'));
    }
    // Its own claim's write failed: given back, the request is open again.
    await replica.log.append('sandbox', claimOf('AR-MINE', 2, 0));
    await replica.log.append('sandbox', notTaken('AR-MINE', 0));
    // A's claim (generation 0), then B's takeover (1); A gives back its own: B's stays claimed, and B's
    // call still follows its own claim.
    await replica.log.append('sandbox', claimOf('AR-THEIRS', 2, 0));
    await replica.log.append('sandbox', claimOf('AR-THEIRS', 2, 1));
    await replica.log.append('sandbox', notTaken('AR-THEIRS', 0));
    // A claim whose entry never went in, given back after B's claim: B's is not handed back.
    await replica.log.append('sandbox', claimOf('AR-NEVER', 2, 1));
    await replica.log.append('sandbox', notTaken('AR-NEVER', 0));

    expect(await onChain.wordOn('AR-MINE')).toBe('open');
    expect(await onChain.wordOn('AR-THEIRS')).toMatchObject({ claimed: { state: 'executing' } });
    expect(await onChain.wordOn('AR-NEVER')).toMatchObject({ claimed: { state: 'executing' } });
    const theirs = { step: 2, at, claim: { round: 0, generation: 1 } };
    expect(await onChain.ownClaimHolds('AR-THEIRS', theirs)).toBe(true);
    const callB = await replica.log.append('sandbox', call('AR-THEIRS'));
    expect(await onChain.ownClaimHolds('AR-THEIRS', theirs, callB)).toBe(true);
    // A's claim, the same step and time as B's, is not B's.
    expect(
      await onChain.ownClaimHolds('AR-THEIRS', { ...theirs, claim: { round: 0, generation: 0 } }, callB),
    ).toBe(false);
  },
);
