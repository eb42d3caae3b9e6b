// Retention cuts one after another: each cut links its record to the true last entry of the log (the
// previous cut's own record included), so however many cuts follow each other, with or without entries
// between them, the chain in the store, the bot's check and the standalone verifier all agree it holds.
import { describe, expect } from 'vitest';
import { runVerifier } from '../../src/audit/verify-cli.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft as draft } from '../support/engine.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const SECOND = 1000;

/** The standalone verifier's verdict on the archive, against the bot's key. */
function verifierSays(dir: string, key: string): { status: number; lines: string[] } {
  const lines: string[] = [];
  const status = runVerifier([dir, '--key', key], (line) => lines.push(line));
  return { status, lines };
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`retention cuts on ${kind.name}`, () => {
    auditTest.override('storeKind', kind.name);

    auditTest(
      'five cuts in a row, with and without entries between, leave a chain that verifies',
      async ({ oneReplica, auditReplica, auditDir, signer }) => {
        const a = await oneReplica('audit-cuts-in-a-row');
        let now = new Date('2026-11-01T09:00:00.000Z');
        const replica = auditReplica(a, { retentionMs: 8 * SECOND, now: () => now });
        let n = 0;
        const append = async () => {
          await replica.log.append('sandbox', draft(n, now));
          n += 1;
        };
        // Entries of two ages: the first cut removes the older ones and keeps the newer.
        await append();
        await append();
        now = new Date(now.getTime() + 5 * SECOND);
        await append();
        now = new Date(now.getTime() + 4 * SECOND);
        for (let cut = 0; cut < 5; cut++) {
          if (cut === 2 || cut === 4) {
            await append();
            now = new Date(now.getTime() + 9 * SECOND);
          }
          const outcome = await replica.keeper.archiveNow('schedule');
          expect(outcome, `cut ${cut}`).toMatchObject({ written: true });
          const check = await replica.keeper.check();
          expect(check.chain.broken, `cut ${cut}`).toBeUndefined();
          expect(check.problems, `cut ${cut}`).toEqual([]);
          const seqs = (await replica.log.entries('sandbox')).map((e) => e.seq);
          expect(new Set(seqs).size, `cut ${cut}: no seq twice (${seqs.join(',')})`).toBe(seqs.length);
          now = new Date(now.getTime() + 9 * SECOND);
        }
        const verdict = verifierSays(`${auditDir}/archive`, signer.publicKey);
        expect(verdict.lines.filter((line) => line.startsWith('PROBLEM'))).toEqual([]);
        expect(verdict.status).toBe(0);
        expect((await replica.keeper.check()).chain.cut?.count).toBeGreaterThan(4);
      },
    );
  });
}
