// A store forked by the retention cut that linked its record past the previous cut's record (made
// here the way that cut made it) is mended at start, on the record, so the chain, the archive and
// the standalone verifier agree again; a fork that is not provably that fault is left and reported.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import { type ChainHead, chainEntry, entryHash, sealOf } from '../../src/audit/chain.js';
import { FORK_REPAIRED } from '../../src/audit/fork.js';
import { AuditLog, auditHeadKey, auditListKey } from '../../src/audit/log.js';
import type { AuditSigner } from '../../src/audit/signing.js';
import { runVerifier } from '../../src/audit/verify-cli.js';
import type { Store } from '../../src/store/index.js';
import { type AuditReplica, auditTest, type ReplicaOptions } from '../support/audit-archive.js';
import { auditDraft as draft } from '../support/engine.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const SECOND = 1000;
const START = Date.parse('2026-11-01T09:00:00.000Z');
const GENERATION = 'approvals:audit-generation:sandbox';
const listOf = (generation: number) =>
  generation === 0 ? auditListKey('sandbox') : `${auditListKey('sandbox')}:g${generation}`;

/**
 * The cut as it was before the fix: it took the previous cut's record for the marker, so it linked
 * its own record to the entry before it. `edit` changes the record, for a fork that is not that fault.
 */
async function oldCut(
  store: Store,
  signer: AuditSigner,
  olderThan: Date,
  now: Date,
  archived: Map<number, string>,
  edit: (record: AuditEntry) => AuditEntry = (record) => record,
): Promise<void> {
  const generation = (await store.get<number>(GENERATION)) ?? 0;
  const entries = await store.readList<AuditEntry>(listOf(generation), 0, -1);
  const isCut = (e: AuditEntry) => e.kind === 'audit' && e.action === 'cut';
  const start = entries[0] && isCut(entries[0]) ? 1 : 0;
  let end = start;
  while (end < entries.length) {
    const e = entries[end] as AuditEntry;
    if (Date.parse(e.at) >= olderThan.getTime() || archived.get(e.seq ?? -1) !== e.hash) break;
    end += 1;
  }
  const removed = entries.slice(start, end);
  const lastRemoved = removed.at(-1) as AuditEntry;
  const tail = entries.findLast((e) => e.hash && !isCut(e));
  const earlier = start === 1 ? (entries[0]?.cut?.count ?? 0) : 0;
  const cut = {
    seq: lastRemoved.seq ?? -1,
    hash: lastRemoved.hash ?? sealOf(removed),
    count: removed.length + earlier,
  };
  const body = {
    at: now.toISOString(),
    kind: 'audit' as const,
    action: 'cut',
    environment: 'sandbox' as const,
    cut,
  };
  const marker: AuditEntry = { ...body, note: 'removed', hash: '' };
  marker.hash = entryHash(marker);
  const linked = chainEntry({ ...body, note: 'removed' }, tail);
  const record = edit(linked);
  await store.deleteList(listOf(generation + 1));
  for (const e of [marker, ...entries.slice(end), record])
    await store.appendToList(listOf(generation + 1), e);
  await store.set(GENERATION, generation + 1);
  await store.set<ChainHead>(
    auditHeadKey('sandbox'),
    signer.signHead('sandbox', { seq: record.seq ?? 0, hash: record.hash ?? '' }),
  );
  await store.deleteList(listOf(generation));
}

/** What the tests of a forked store start from: the store, its bot, the archiver and their clock. */
interface Forked {
  a: Store;
  /** The bot, with an 8-second retention; `options` start it again. */
  bot: AuditReplica;
  options: ReplicaOptions;
  /** The replica that archived without retention before the old cut. */
  archiver: AuditReplica;
  folder: string;
  /** Moves the clock they all read (`now()`) to `seconds` past the start. */
  at: (seconds: number) => Date;
  now: () => Date;
}

/**
 * A store on `oneReplica(name)` forked by the old cut: the bot archives and cuts its first entries,
 * another replica archives without retention, the old cut forks the chain (`edit` as oldCut takes it),
 * and the bot appends an entry after the fork.
 */
async function forkedByOldCut(
  {
    oneReplica,
    auditReplica,
    auditDir,
    signer,
  }: {
    oneReplica: (name: string) => Promise<Store>;
    auditReplica: (store: Store, options?: ReplicaOptions) => AuditReplica;
    auditDir: string;
    signer: AuditSigner;
  },
  name: string,
  edit?: (record: AuditEntry) => AuditEntry,
): Promise<Forked> {
  const a = await oneReplica(name);
  const folder = join(auditDir, `archive-${name}`);
  const marks = join(auditDir, `marks-${name}.json`);
  let now = new Date(START);
  const clock = () => now;
  const at = (seconds: number) => new Date(START + seconds * SECOND);
  const options: ReplicaOptions = { retentionMs: 8 * SECOND, now: clock, archiveDir: folder, marks };
  const bot = auditReplica(a, options);
  await bot.log.append('sandbox', draft(0, now));
  await bot.log.append('sandbox', draft(1, now));
  now = at(5);
  await bot.log.append('sandbox', draft(2, now));
  now = at(9);
  await bot.keeper.archiveNow('schedule'); // seq 0–2; the cut removes 0 and 1, keeps 2
  now = at(18);
  const archiver = auditReplica(a, { now: clock, archiveDir: folder, marks });
  expect(await archiver.keeper.archiveNow('schedule')).toMatchObject({ written: true, lastSeq: 3 });
  const archived = archiver.keeper.archive?.read().verified ?? new Map();
  await oldCut(a, signer, at(10), now, archived, edit);
  await bot.log.append('sandbox', draft(3, now)); // an entry after the fork
  return {
    a,
    bot,
    options,
    archiver,
    folder,
    at: (seconds) => {
      now = at(seconds);
      return now;
    },
    now: clock,
  };
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a store forked by the old retention cut, on ${kind.name}`, () => {
    auditTest.override('storeKind', kind.name);

    auditTest(
      'is mended at start, on the record; one not provably that fault is reported as before',
      async ({ oneReplica, auditReplica, auditDir, signer }) => {
        for (const mendable of [true, false]) {
          const { a, bot, options, folder, at } = await forkedByOldCut(
            { oneReplica, auditReplica, auditDir, signer },
            `audit-fork-${mendable}`,
            (record) =>
              mendable
                ? record
                : chainEntry({ ...record, note: 'removed, said otherwise' }, {
                    seq: 2,
                    hash: record.prev,
                  } as AuditEntry),
          );
          const forked = await bot.keeper.check();
          expect(forked.chain.broken?.kind).toBe('reordered');

          const restarted = auditReplica(a, options);
          await restarted.keeper.start();
          const check = await restarted.keeper.check();
          if (!mendable) {
            expect(check.ok).toBe(false);
            expect(check.chain.broken?.kind).toBe('reordered');
            continue;
          }
          expect(check.chain.broken).toBeUndefined();
          expect(check.problems).toEqual([]);
          const entries = await restarted.log.entries('sandbox');
          const seqs = entries.flatMap((e) => (e.seq === undefined ? [] : [e.seq]));
          expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
          const finding = entries.at(-1);
          expect(finding).toMatchObject({ kind: 'audit', action: FORK_REPAIRED });
          expect(finding?.note).toContain('a known fault of the cut, not an edit');
          // Everything after the fork (the entry appended, the finding about the head) kept its content.
          expect(entries.some((e) => e.requestId === 'AR-0000000003' && e.amount === '1003.00')).toBe(true);

          at(19);
          expect(await restarted.keeper.archiveNow('schedule')).toMatchObject({ written: true });
          expect((await restarted.keeper.check()).ok).toBe(true);
          const lines: string[] = [];
          expect(runVerifier([folder, '--key', signer.publicKey], (line) => lines.push(line))).toBe(0);
        }
      },
    );
  });
}

describe('a fork repair stopped between the head and the generation pointer', () => {
  auditTest(
    'is finished by the next append: no finding, and the chain verifies',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const { a, bot, archiver, now } = await forkedByOldCut(
        { oneReplica, auditReplica, auditDir, signer },
        'audit-fork-stopped',
      );
      const findings = (await bot.keeper.check()).incidents.length;

      // The repair's process, killed at its second write of the head or the generation pointer.
      let writes = 0;
      const killing =
        (method: 'set' | 'compareAndSet') =>
        async (key: string, ...rest: unknown[]) => {
          if ((key === auditHeadKey('sandbox') || key === GENERATION) && ++writes === 2)
            throw new Error('killed');
          return (a[method] as (...args: unknown[]) => Promise<unknown>).call(a, key, ...rest);
        };
      const crashing = new Proxy(a, {
        get: (target, property) => {
          if (property === 'set' || property === 'compareAndSet') return killing(property);
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const mender = new AuditLog(crashing);
      mender.signWith(bot.seal);
      const report = archiver.keeper.archive?.read();
      const hashes = {
        hashAt: (seq: number) => report?.verified.get(seq),
        through: report?.verifiedHead?.seq ?? -1,
      };
      await expect(mender.mendFork('sandbox', hashes, now())).rejects.toThrow('killed');

      await bot.log.append('sandbox', draft(4, now()));
      await bot.keeper.idle();
      const check = await bot.keeper.check();
      expect(check.chain.broken).toBeUndefined();
      expect(check.problems).toEqual([]);
      expect(check.incidents).toHaveLength(findings);
      const entries = await bot.log.entries('sandbox');
      expect(entries.at(-2)).toMatchObject({ kind: 'audit', action: FORK_REPAIRED });
      expect(entries.at(-1)?.requestId).toBe(draft(4).requestId);
    },
  );
});

describe('a fork whose head carries an entry other than the one it names', () => {
  auditTest(
    'is not mended: the check reports the head',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const { a, bot, options } = await forkedByOldCut(
        { oneReplica, auditReplica, auditDir, signer },
        'audit-fork-foreign-head',
      );
      // A store writer puts another entry in the head, outside its signature.
      const head = await a.get<ChainHead>(auditHeadKey('sandbox'));
      const [first] = await bot.log.entries('sandbox');
      await a.set(auditHeadKey('sandbox'), { ...head, entry: first });

      const restarted = auditReplica(a, options);
      await restarted.keeper.start();
      const check = await restarted.keeper.check();
      expect(check.chain.broken?.kind).toBe('reordered');
      expect(check.problems.map((p) => p.kind)).toContain('head-entry-foreign');
      const entries = await restarted.log.entries('sandbox');
      expect(entries.some((e) => e.action === FORK_REPAIRED)).toBe(false);
    },
  );
});
