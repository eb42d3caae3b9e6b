// An appender whose lock lapsed after it moved the head, and that stalls while another replica finishes
// its append and chains many more after it, never puts its entry in again when it wakes, however far
// back the list holds it now; and an append that finds the list ending behind the head does not put the
// head's entry in a second time when the list holds it further back. Only a hash proves an entry
// listed: a store writer's entry at a far seq keeps neither later entries nor a finding out. One that
// stalls between its check and its write puts its entry in again after others: reads and the chain
// check drop that exact copy, and only an exact copy (an entry under a listed hash with other content
// stays, and the chain does not verify).
import { describe, expect } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import type { AuditDraft, RequestState } from '../../src/audit/index.js';
import { AuditLog, HEAD_UNVERIFIED } from '../../src/audit/log.js';
import { VerifiedClosings } from '../../src/audit/verified-closings.js';
import { VerifiedFreeze } from '../../src/audit/verified-freeze.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';
import { STORE_KINDS } from '../support/shared-stores.js';
import {
  forgePastHead,
  LIST,
  loggedReplica,
  stallingAfterHeadMoves,
  stallingBeforeListWrite,
} from './past-head-support.js';

/** More entries than an append looks through at the list's end. */
const MANY = 10;

const stepOf = (requestId: string, step: number, state: RequestState): AuditDraft => ({
  at: new Date().toISOString(),
  requestId,
  kind: 'withdraw',
  action: step === 0 ? 'filed' : state,
  state,
  step,
});

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a stalled appender past a lapsed lock on ${kind.name}`, () => {
    auditTest.override('storeKind', kind.name);

    auditTest(
      `does not put its entry in again once ${MANY} more were chained after it`,
      async ({ oneReplica }) => {
        const store = await oneReplica(`audit-stale-append-${kind.name}`);
        const other = new AuditLog(store);
        await other.append('sandbox', auditDraft(0));
        const stalling = stallingAfterHeadMoves(store);
        const stalled = new AuditLog(stalling.store).append('sandbox', auditDraft(1));
        await stalling.reached;
        for (let n = 2; n < 2 + MANY; n++) await other.append('sandbox', auditDraft(n));
        stalling.release();
        expect((await stalled).seq).toBe(1);
        await other.append('sandbox', auditDraft(2 + MANY));

        const seqs = (await other.entries('sandbox')).map((e) => e.seq);
        expect(seqs).toEqual(Array.from({ length: MANY + 3 }, (_, n) => n));
        expect((await other.verify('sandbox')).ok).toBe(true);
      },
    );

    auditTest(
      'that stalls between its check and its write leaves a chain that verifies',
      async ({ oneReplica }) => {
        const store = await oneReplica(`audit-check-then-write-${kind.name}`);
        const other = new AuditLog(store);
        for (let n = 0; n < 2; n++) await other.append('sandbox', auditDraft(n));
        const stalling = stallingBeforeListWrite(store);
        const stalled = new AuditLog(stalling.store).append('sandbox', auditDraft(2));
        await stalling.reached;
        await other.append('sandbox', auditDraft(3));
        stalling.release();
        expect((await stalled).seq).toBe(2);
        for (let n = 4; n < 6; n++) await other.append('sandbox', auditDraft(n));

        const listed = await store.readList<AuditEntry>(LIST, 0, -1);
        expect(listed.map((e) => e.seq)).toEqual([0, 1, 2, 3, 2, 4, 5]);
        const entries = await other.entries('sandbox');
        expect(entries.map((e) => [e.seq, e.requestId])).toEqual(
          [0, 1, 2, 3, 4, 5].map((n) => [n, auditDraft(n).requestId]),
        );
        expect(await other.verify('sandbox')).toMatchObject({ ok: true, total: 6, chained: 6 });
      },
    );
  });
}

auditTest(
  'a stalled signed appender leaves the chain whole: an approved request still reads open, sends are not held',
  async ({ oneReplica, auditReplica }) => {
    const store = await oneReplica('audit-stale-append-signed');
    const b = auditReplica(store);
    const stalling = stallingAfterHeadMoves(store);
    const a = auditReplica(stalling.store);
    await b.log.append('sandbox', stepOf('AR-OPEN', 0, 'pending'));
    await b.log.append('sandbox', stepOf('AR-OPEN', 1, 'approved'));
    const closings = new VerifiedClosings(b.log, 'sandbox', b.seal);
    const freeze = new VerifiedFreeze(b.log, 'sandbox', b.seal);
    expect(await closings.wordOn('AR-OPEN')).toBe('open');

    const stalled = a.log.append('sandbox', auditDraft(1));
    await stalling.reached;
    for (let n = 2; n < 2 + MANY; n++) await b.log.append('sandbox', auditDraft(n));
    stalling.release();
    await stalled;
    await b.log.append('sandbox', auditDraft(2 + MANY));

    const check = await b.keeper.check();
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    expect((await freeze.read()).state).toBe('lifted');
    expect(await closings.wordOn('AR-OPEN')).toBe('open');
  },
);

auditTest(
  'an older entry put in again after the head’s own does not bring the head’s entry in a second time',
  async ({ oneReplica }) => {
    const store = await oneReplica('audit-stale-append-behind');
    const log = new AuditLog(store);
    for (let n = 0; n < 4; n++) await log.append('sandbox', auditDraft(n));
    const listed = await store.readList<AuditEntry>(LIST, 0, -1);
    await store.appendToList(LIST, listed[1]);

    const next = await log.append('sandbox', auditDraft(4));
    const after = await store.readList<AuditEntry>(LIST, 0, -1);
    expect(after.map((e) => e.seq)).toEqual([0, 1, 2, 3, 1, 4]);
    expect(next.prev).toBe(listed[3]?.hash);
    expect((await log.entries('sandbox')).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect((await log.verify('sandbox')).ok).toBe(true);
  },
);

auditTest(
  'a forged entry at a far seq, not the list’s last, keeps no later entry out of the list',
  async ({ oneReplica }) => {
    const store = await oneReplica('audit-stale-append-forged-seq');
    const log = new AuditLog(store);
    for (let n = 0; n < 5; n++) await log.append('sandbox', auditDraft(n));
    const listed = await store.readList<AuditEntry>(LIST, 0, -1);
    await store.appendToList(LIST, { ...listed[4], seq: 1e9, hash: 'f'.repeat(64) });
    await store.appendToList(LIST, listed[4]);

    for (let n = 5; n < 5 + 2 * MANY; n++) await log.append('sandbox', auditDraft(n));
    const seqs = (await store.readList<AuditEntry>(LIST, 0, -1)).map((e) => e.seq);
    const later = Array.from({ length: 2 * MANY }, (_, n) => n + 5);
    expect(seqs).toEqual([0, 1, 2, 3, 4, 1e9, 4, ...later]);
  },
);

auditTest(
  'a finding recorded after a forged entry at a far seq is put in the list',
  async ({ replicas, auditReplica }) => {
    const fixtures = { replicas, auditReplica };
    const { store, replica } = await loggedReplica(fixtures, 'audit-stale-append-forged-finding', 5);
    const listed = await store.readList<AuditEntry>(LIST, 0, -1);
    await store.appendToList(LIST, { ...listed[4], seq: 1e9, hash: 'f'.repeat(64) });
    await store.appendToList(LIST, listed[4]);
    await forgePastHead(store, 40);

    await replica.log.append('sandbox', auditDraft(6));
    const after = await store.readList<AuditEntry>(LIST, 0, -1);
    expect(after.slice(7).map((e) => [e.seq, e.action])).toEqual([
      [5, 'approved'],
      [6, HEAD_UNVERIFIED],
      [7, 'approved'],
    ]);
  },
);

auditTest(
  'a signed appender stalled between its check and its write holds no send: the freeze reads lifted',
  async ({ oneReplica, auditReplica }) => {
    const store = await oneReplica('audit-check-then-write-signed');
    const b = auditReplica(store);
    const stalling = stallingBeforeListWrite(store);
    const a = auditReplica(stalling.store);
    await b.log.append('sandbox', stepOf('AR-OPEN', 0, 'pending'));
    await b.log.append('sandbox', stepOf('AR-OPEN', 1, 'approved'));
    const closings = new VerifiedClosings(b.log, 'sandbox', b.seal);
    const freeze = new VerifiedFreeze(b.log, 'sandbox', b.seal);

    const stalled = a.log.append('sandbox', auditDraft(2));
    await stalling.reached;
    await b.log.append('sandbox', auditDraft(3));
    stalling.release();
    await stalled;
    for (let n = 4; n < 6; n++) await b.log.append('sandbox', auditDraft(n));

    const check = await b.keeper.check();
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    expect((await freeze.read()).state).toBe('lifted');
    expect(await closings.wordOn('AR-OPEN')).toBe('open');
  },
);

auditTest(
  'an entry under a listed hash with other content is kept, and the chain does not verify',
  async ({ oneReplica }) => {
    const store = await oneReplica('audit-copy-edited');
    const log = new AuditLog(store);
    for (let n = 0; n < 4; n++) await log.append('sandbox', auditDraft(n));
    const listed = await store.readList<AuditEntry>(LIST, 0, -1);
    await store.appendToList(LIST, { ...listed[1], amount: '5000000.00' });
    for (let n = 4; n < 6; n++) await log.append('sandbox', auditDraft(n));

    expect((await log.entries('sandbox')).map((e) => e.seq)).toEqual([0, 1, 2, 3, 1, 4, 5]);
    expect((await log.verify('sandbox')).broken).toMatchObject({ kind: 'edited', index: 4 });
  },
);
