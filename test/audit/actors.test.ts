// Audit entries name their actor as the directory (Slack) gives them when the step is taken: the name
// and e-mail are under the entry's hash, the chain and its signed head check out with entries written
// before anyone was named, and a directory that fails or does not answer in time never stops the entry.
import { expect } from 'vitest';
import type { ActorDirectory } from '../../src/approvals/ports.js';
import type { AuditEntry } from '../../src/approvals/types.js';
import { AuditLog, auditListKey } from '../../src/audit/log.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

const ADA = { name: 'Ada Obi', email: 'ada@example.com' };

auditTest(
  'names the actor before the entry is hashed; the chain and its signed head check out beside older entries',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-actors-chain');
    const { log, keeper } = auditReplica(a);
    await keeper.start();
    await log.append('sandbox', auditDraft(0));
    const asked: string[] = [];
    log.describeActorsWith({
      directory: async (id) => {
        asked.push(id);
        return ADA;
      },
    });
    const named = await log.append('sandbox', auditDraft(1));
    // The system's own entries have no actor: nobody is looked up for them.
    await log.append('sandbox', { at: auditDraft(2).at, kind: 'audit', action: 'archived', subject: 'x' });
    expect(asked).toEqual(['UAPPROVERA']);
    expect(named).toMatchObject({ actor: 'UAPPROVERA', actorName: 'Ada Obi', actorEmail: 'ada@example.com' });

    const entries = await log.entries('sandbox');
    expect(entries.map((e) => e.actorName)).toEqual([undefined, 'Ada Obi', undefined]);
    const check = await keeper.check();
    expect(check.ok).toBe(true);
    expect(check.chain).toMatchObject({ total: 3, chained: 3 });

    // Someone with store access changes the name: the entry no longer matches its hash.
    await a.set(`list:${auditListKey('sandbox')}#1`, {
      ...(entries[1] as AuditEntry),
      actorName: 'Someone Else',
    });
    expect((await log.verify('sandbox')).broken).toMatchObject({ kind: 'edited', index: 1 });
  },
);

auditTest(
  'writes the entry with the id alone when the directory fails or does not answer in time',
  async ({ oneReplica }) => {
    const a = await oneReplica('audit-actors-fail');
    const log = new AuditLog(a);
    const debug: string[] = [];
    let answer: ActorDirectory = async () => {
      throw new Error('user_not_found');
    };
    log.describeActorsWith({
      directory: (id) => answer(id),
      timeoutMs: 20,
      log: { debug: (message) => debug.push(message) },
    });
    const failed = await log.append('sandbox', auditDraft(0));
    answer = () => new Promise(() => undefined); // never answers
    const unanswered = await log.append('sandbox', auditDraft(1));
    answer = async () => ({ name: 'UAPPROVERA' }); // Slack had no name: the id is not a name
    const nameless = await log.append('sandbox', auditDraft(2));

    for (const entry of [failed, unanswered, nameless]) {
      expect(entry.actor).toBe('UAPPROVERA');
      expect(entry).not.toHaveProperty('actorName');
      expect(entry).not.toHaveProperty('actorEmail');
    }
    expect(debug).toEqual([
      'audit entry written with the actor id only: the directory lookup failed',
      'audit entry written with the actor id only: the directory did not answer in time',
    ]);
    expect((await log.verify('sandbox')).ok).toBe(true);
  },
);
