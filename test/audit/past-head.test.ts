// The bot moves the signed head before it writes the entry, so the list is never ahead of a head whose
// signature holds by the bot's own hand: entries past it were written by someone with access to the
// store but not the key. The next append records that in the chain before linking anything to them,
// and tells it. A retention cut moves the head before the generation pointer, so a cut stopped part-way
// never looks like that; nor do two appends past a lapsed lock.
import { describe, expect } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import { type ChainHead, chainEntry } from '../../src/audit/chain.js';
import { AuditLog, HEAD_UNVERIFIED } from '../../src/audit/log.js';
import { auditVerifyMessage } from '../../src/slack/audit/blocks.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';
import {
  afterHeadMoves,
  appendMany,
  forgePastHead,
  HEAD,
  LIST,
  lapsedLog,
  listen,
  lockLapsed,
  loggedReplica,
  wrapped,
} from './past-head-support.js';

const GENERATION = 'approvals:audit-generation:sandbox';
const itemKey = (index: number) => `list:${LIST}#${index}`;

/** A promise and what settles it. */
function signal() {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

describe('entries past the signed head', () => {
  auditTest(
    'a correctly chained entry a store writer appended is recorded before the next entry links to it, and told',
    async ({ replicas, auditReplica }) => {
      const { store, replica, told } = await loggedReplica({ replicas, auditReplica }, 'audit-past-head', 0);
      const alarms: number[][] = [];
      replica.keeper.onAlarm(
        async (_check, incidents) => void alarms.push(incidents.map((e) => e.seq ?? -1)),
      );
      await appendMany(replica, 3);
      const [last] = await store.readList<AuditEntry>(LIST, -1, -1);
      const forged = await forgePastHead(store, 40);

      await replica.log.append('sandbox', auditDraft(7));
      await replica.keeper.idle();
      const after = await store.readList<AuditEntry>(LIST, 0, -1);
      expect(after.slice(3).map((e) => [e.seq, e.action])).toEqual([
        [3, 'approved'],
        [4, HEAD_UNVERIFIED],
        [5, 'approved'],
      ]);
      expect(after[3]?.hash).toBe(forged.hash);
      expect(after[4]?.note).toContain(
        'entries-past-head: the log holds entries at seq 3 that the signed head at seq 2',
      );
      expect(after[4]?.subject).toBe(`seq 2 hash ${last?.hash}`);
      expect(told).toEqual([['entries-past-head', 4]]);
      const check = await replica.keeper.check();
      expect(check.incidents.map((e) => e.seq)).toEqual([4]);
      expect(alarms).toEqual([[4]]);
      expect(JSON.stringify(auditVerifyMessage(check, 'sandbox'))).toContain(
        'entries-past-head: the log holds entries at seq 3',
      );
    },
  );

  auditTest(
    'another entry put at the signed head’s seq is recorded too',
    async ({ replicas, auditReplica }) => {
      const { store, replica, told } = await loggedReplica(
        { replicas, auditReplica },
        'audit-past-head-replaced',
        3,
      );
      const entries = await store.readList<AuditEntry>(LIST, 0, -1);
      const swapped = chainEntry({ ...auditDraft(41), environment: 'sandbox' }, entries[1]);
      await store.set(itemKey(2), swapped);

      await replica.log.append('sandbox', auditDraft(7));
      const after = await store.readList<AuditEntry>(LIST, 0, -1);
      expect(after.slice(3).map((e) => [e.seq, e.action])).toEqual([
        [3, HEAD_UNVERIFIED],
        [4, 'approved'],
      ]);
      expect(after[3]?.note).toContain(
        'entries-past-head: the log holds entries at seq 2 that the signed head',
      );
      expect(told).toEqual([['entries-past-head', 3]]);
    },
  );
});

describe('a retention cut stopped between its writes', () => {
  for (const [stop, what] of [
    [1, 'before its first write of the head or the pointer'],
    [2, 'between the head and the pointer'],
    [3, 'between the pointer and deleting the old list'],
  ] as const) {
    auditTest(
      `${what}: the next append finds no incident and the chain verifies`,
      async ({ replicas, auditReplica }) => {
        const { store, replica, told } = await loggedReplica(
          { replicas, auditReplica },
          `audit-cut-stopped-${stop}`,
          4,
        );
        expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
        // The cut's process, killed at its `stop`th write of the head or the generation pointer, or (3)
        // as it deletes the old list.
        let writes = 0;
        const killing =
          (method: 'set' | 'compareAndSet') =>
          async (key: string, ...rest: unknown[]) => {
            if ((key === HEAD || key === GENERATION) && ++writes === stop) throw new Error('killed');
            return (store[method] as (...a: unknown[]) => Promise<unknown>).call(store, key, ...rest);
          };
        const cutter = new AuditLog(
          wrapped(store, {
            set: killing('set'),
            compareAndSet: killing('compareAndSet'),
            deleteList: (async (key: string) => {
              if (key === LIST && stop === 3) throw new Error('killed');
              return store.deleteList(key);
            }) as never,
          }),
        );
        cutter.signWith(replica.seal);
        const olderThan = new Date(Date.parse(auditDraft(2).at));
        await expect(cutter.cut('sandbox', olderThan, new Date(), () => true)).rejects.toThrow('killed');

        await replica.log.append('sandbox', auditDraft(9));
        await replica.keeper.idle();
        const check = await replica.keeper.check();
        expect(check.ok, check.problems.map((p) => p.text).join('; ')).toBe(true);
        expect(check.incidents).toEqual([]);
        expect(told).toEqual([]);
        const entries = await replica.log.entries('sandbox');
        expect(entries.some((e) => e.action === HEAD_UNVERIFIED)).toBe(false);
        // Stopped before the head moved: the old log is whole. After: the cut completed.
        expect(check.chain.cut?.count).toBe(stop === 1 ? undefined : 2);
        expect(entries.at(-1)?.requestId).toBe(auditDraft(9).requestId);
        expect((await store.get<ChainHead>(HEAD))?.seq).toBe(entries.at(-1)?.seq);
        // Another cut goes through either way.
        expect(
          await replica.log.cut(
            'sandbox',
            new Date(Date.parse(auditDraft(3).at) + 1),
            new Date(),
            () => true,
          ),
        ).toBe(stop === 1 ? 4 : 2);
        expect((await replica.keeper.check()).ok).toBe(true);
        // Nothing of the first generation is left behind.
        expect(await store.readList(LIST, 0, -1)).toEqual([]);
      },
    );
  }
});

describe('appends past a lapsed lock', () => {
  auditTest(
    'an appender that moved the head while another put its entry in and chained after it does not put it in again',
    async ({ replicas, auditReplica }) => {
      const { a: store } = await replicas('audit-lapsed-holds');
      const first = auditReplica(store);
      const second = auditReplica(store);
      const told = [first, second].map((r) => listen(r.log));
      await appendMany(first, 1);
      // `first`'s lock lapsed: it stalls right after moving the head, before writing its entry.
      const moved = signal();
      const resume = signal();
      let stalled = false;
      const stalling = wrapped(store, {
        ...lockLapsed,
        ...afterHeadMoves(store, async () => {
          if (stalled) return;
          stalled = true;
          moved.open();
          await resume.done;
        }),
      });
      const stalledLog = new AuditLog(stalling);
      stalledLog.signWith(first.seal);
      const appending = stalledLog.append('sandbox', auditDraft(1));
      await moved.done;
      await second.log.append('sandbox', auditDraft(2));
      resume.open();
      await appending;

      const entries = await second.log.entries('sandbox');
      expect(entries.map((e) => [e.seq, e.requestId])).toEqual(
        [0, 1, 2].map((n) => [n, auditDraft(n).requestId]),
      );
      expect((await second.log.verify('sandbox')).ok).toBe(true);
      await second.log.append('sandbox', auditDraft(3));
      expect((await second.keeper.check()).ok).toBe(true);
      expect(told).toEqual([[], []]);
    },
  );

  auditTest(
    'an entry another appender wrote between reading the head and the list is no finding',
    async ({ replicas, auditReplica }) => {
      const { a: store } = await replicas('audit-lapsed-past-head');
      const first = auditReplica(store);
      const second = auditReplica(store);
      const told = [first, second].map((r) => listen(r.log));
      await appendMany(first, 1);
      // `second` stalls right after reading the head; `first`, whose lock lapsed, appends meanwhile.
      const read = signal();
      const resume = signal();
      let stalled = false;
      const stalling = wrapped(store, {
        get: (async (key: string) => {
          const value = await store.get(key);
          if (key === HEAD && !stalled) {
            stalled = true;
            read.open();
            await resume.done;
          }
          return value;
        }) as never,
      });
      const slow = new AuditLog(stalling);
      slow.signWith(second.seal);
      const slowTold = listen(slow);
      const lapsed = lapsedLog(store, first.seal);
      const appending = slow.append('sandbox', auditDraft(1));
      await read.done;
      await lapsed.append('sandbox', auditDraft(2));
      resume.open();
      await appending;

      const entries = await first.log.entries('sandbox');
      expect(entries.map((e) => e.action)).not.toContain(HEAD_UNVERIFIED);
      expect(entries.map((e) => e.seq)).toEqual([0, 1, 2]);
      expect([...told, slowTold]).toEqual([[], [], []]);
      expect((await first.keeper.check()).ok).toBe(true);
    },
  );
});
