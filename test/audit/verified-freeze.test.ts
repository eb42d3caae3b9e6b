// The freeze of sends as the signed chain records it: read from entries that verify up to the signed
// head, and kept by a retention cut while the freeze is in effect (a barred lift leaves it in effect).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AuditDraft, AuditEntry } from '../../src/audit/index.js';
import { auditListKey, HEAD_UNVERIFIED } from '../../src/audit/log.js';
import { VerifiedFreeze } from '../../src/audit/verified-freeze.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

const SECOND = 1000;

/** A freeze entry: `frozen` by U_BOLA, or a lift (`unfrozen`) or its bar naming the unfreeze request. */
const freezeStep = (action: string, at: Date, subject?: string): AuditDraft => ({
  at: at.toISOString(),
  kind: 'freeze',
  action,
  ...(action === 'frozen' ? { actor: 'U_BOLA', note: 'checking a look-alike address' } : {}),
  ...(subject ? { subject } : {}),
});

auditTest(
  'a retention cut keeps the entry of a freeze still in effect, a barred lift’s too, and lets it go once lifted',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-freeze-kept');
    let now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { retentionMs: 8 * SECOND, now: () => now });
    const onChain = new VerifiedFreeze(replica.log, 'sandbox', replica.seal);
    await replica.log.append('sandbox', auditDraft(0, now));
    await replica.log.append('sandbox', freezeStep('frozen', now));
    await replica.log.append('sandbox', freezeStep('unfrozen', now, 'AR-LIFT'));
    await replica.log.append('sandbox', freezeStep('unfreeze-barred', now, 'AR-LIFT'));
    await replica.log.append('sandbox', auditDraft(1, now));
    now = new Date(now.getTime() + 10 * SECOND);

    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    const kept = await replica.log.entries('sandbox');
    expect(kept.map((e) => e.action)).toContain('frozen');
    expect(kept.map((e) => e.requestId)).not.toContain(auditDraft(0).requestId);
    expect((await replica.keeper.check()).ok).toBe(true);
    expect(await onChain.read()).toMatchObject({ state: 'frozen', freeze: { by: 'U_BOLA' } });

    await replica.log.append('sandbox', freezeStep('unfrozen', now, 'AR-LIFT-2'));
    now = new Date(now.getTime() + 10 * SECOND);
    expect(await onChain.read()).toMatchObject({ state: 'lifted' });
    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    expect((await replica.log.entries('sandbox')).map((e) => e.kind)).not.toContain('freeze');
    expect((await replica.keeper.check()).ok).toBe(true);
    expect(await new VerifiedFreeze(replica.log, 'sandbox', replica.seal).read()).toMatchObject({
      state: 'lifted',
    });
  },
);

auditTest(
  'a retention cut stops at the finding that holds sends frozen as unknown',
  async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-freeze-unknown-cut');
    let now = new Date('2026-11-01T09:00:00.000Z');
    const replica = auditReplica(a, { retentionMs: 8 * SECOND, now: () => now });
    await replica.log.append('sandbox', auditDraft(0, now));
    await replica.log.append('sandbox', {
      at: now.toISOString(),
      kind: 'audit',
      action: 'head-unverified',
      subject: 'no head',
      note: 'head-rolled-back: the head was older than the mark',
    });
    await replica.log.append('sandbox', auditDraft(1, now));
    const onChain = new VerifiedFreeze(replica.log, 'sandbox', replica.seal);
    expect(await onChain.read()).toMatchObject({ state: 'unknown' });
    now = new Date(now.getTime() + 10 * SECOND);
    expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true });
    const after = new VerifiedFreeze(replica.log, 'sandbox', replica.seal);
    expect(await after.read()).toMatchObject({ state: 'unknown' });
  },
);

auditTest(
  'what the bot’s own crash leaves is read past, never as a break: a head ahead of the list, a marks file behind',
  async ({ oneReplica, auditReplica, auditDir }) => {
    const a = await oneReplica('audit-freeze-crash-left');
    const now = new Date('2026-11-01T09:00:00.000Z');
    const marks = join(auditDir, 'crashed-heads.json');
    const bot = auditReplica(a, { marks });
    await bot.log.append('sandbox', auditDraft(0, now));
    copyFileSync(marks, `${marks}.behind`);
    await bot.log.append('sandbox', freezeStep('frozen', now));
    await bot.log.append('sandbox', auditDraft(1, now));
    // Killed after the head moved (carrying its entry), before the entry went into the list.
    const list = auditListKey('sandbox');
    const listed = await a.readList<AuditEntry>(list, 0, -1);
    await a.deleteList(list);
    for (const entry of listed.slice(0, -1)) await a.appendToList(list, entry);

    // Restarted with its marks file as the crash left it, and with one further behind.
    for (const file of [marks, `${marks}.behind`]) {
      const again = auditReplica(a, { marks: file });
      const read = await new VerifiedFreeze(again.log, 'sandbox', again.seal).read();
      expect(read).toMatchObject({ state: 'frozen', freeze: { by: 'U_BOLA' } });
    }
    const again = auditReplica(a, { marks: `${marks}.behind` });
    await again.log.append('sandbox', auditDraft(2, now));
    const entries = await again.log.entries('sandbox');
    expect(entries.map((e) => e.action)).not.toContain(HEAD_UNVERIFIED);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i));
    const fresh = auditReplica(a, { marks });
    expect(await new VerifiedFreeze(fresh.log, 'sandbox', fresh.seal).read()).toMatchObject({
      state: 'frozen',
    });
  },
);
