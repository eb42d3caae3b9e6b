// Builders of the audit trail, every outside value set to one text.

import type { AuditEntry } from '../../../src/approvals/types.js';
import type { BreakKind, ChainReport } from '../../../src/audit/chain.js';
import type { AuditCheck } from '../../../src/audit/keeper.js';
import {
  auditAlarmMessage,
  auditArchiveMessage,
  auditExportMessage,
  auditVerifyMessage,
  describeAuditEntry,
} from '../../../src/slack/audit/blocks.js';
import { auditList } from '../../../src/slack/audit/list-blocks.js';
import type { Add } from './inputs.js';
import { ACTIONS, NOW } from './support.js';

/** The audit trail as listed, verified, archived, alarmed about and exported. */
export function auditBuilders(text: string, add: Add): void {
  const entries: AuditEntry[] = ACTIONS.map((action) => ({
    at: '2026-11-23T07:00:00.000Z',
    requestId: text,
    kind: 'redeem',
    action,
    state: 'pending',
    actor: 'UAPPROVERA',
    amount: text,
    note: text,
  }));
  entries.push({ ...(entries[0] as AuditEntry), action: text });
  // A step sent back because an approver left the pool names them as its subject.
  entries.push({ ...(entries[0] as AuditEntry), action: 'sent-back', subject: text });
  add('audit list', auditList(entries, 'LIVE'));
  const breaks: BreakKind[] = ['edited', 'deleted', 'reordered', 'rewritten', 'unchained', 'legacy-edited'];
  const checked = (chain: ChainReport, more: Partial<AuditCheck> = {}): AuditCheck => ({
    ok: chain.ok,
    environment: 'live',
    checkedAt: NOW.toISOString(),
    chain,
    problems: [],
    incidents: [],
    ...more,
  });
  for (const [index, entry] of [
    ...entries,
    { ...(entries[0] as AuditEntry), requestId: undefined, subject: text },
  ].entries()) {
    add(`audit entry ${entry.action}`, describeAuditEntry(entry as AuditEntry, index));
    for (const kind of breaks) {
      add(
        `audit verify ${kind}`,
        auditVerifyMessage(
          checked({
            ok: false,
            total: 3,
            unchained: 1,
            chained: 2,
            broken: { kind, index, entry: entry as AuditEntry, missing: 2 },
          }),
          'LIVE',
        ),
      );
    }
  }
  const incident = { ...(entries[0] as AuditEntry), action: 'head-unverified', note: text, seq: 4 };
  const withEverything = checked(
    { ok: true, total: 3, unchained: 0, chained: 3 },
    {
      ok: false,
      problems: [{ kind: 'archive-invalid', text }],
      incidents: [incident],
      signing: { publicKey: 'ab'.repeat(32), origin: text },
      archive: { folder: text, segments: 2, through: 7, lastAt: NOW.toISOString() },
    },
  );
  add(
    'audit verify intact',
    auditVerifyMessage(checked({ ok: true, total: 3, unchained: 0, chained: 3 }), 'LIVE'),
  );
  add('audit verify with findings', auditVerifyMessage(withEverything, 'LIVE'));
  add('audit alarm', auditAlarmMessage(withEverything, [incident], 'LIVE'));
  add(
    'audit archive refused',
    auditArchiveMessage({ written: false, reason: 'refused', why: text }, { folder: text }, 'LIVE'),
  );
  add(
    'audit archive written',
    auditArchiveMessage(
      { written: true, segment: '0000000000-0000000003-20261102T101500Z', firstSeq: 0, lastSeq: 3, count: 4 },
      { folder: text, publicKey: 'ab'.repeat(32) },
      'LIVE',
    ),
  );
  add('audit export', auditExportMessage(3, { from: NOW, to: NOW }, 'LIVE'));
}
