// The freeze of sends as the signed chain records it: read from entries that verify up to the signed
// head, and kept by a retention cut while the freeze is in effect (a barred lift leaves it in effect).
import { expect } from 'vitest';
import type { AuditDraft } from '../../src/audit/index.js';
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
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('audit-freeze-kept');
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
  async ({ replicas, auditReplica }) => {
    const { a } = await replicas('audit-freeze-unknown-cut');
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
