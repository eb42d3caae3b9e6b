// The audit log as files for an auditor: CSV for a spreadsheet (every cell inert, see format/csv.ts)
// and JSON Lines with each entry exactly as chained (canonical JSON), so its hashes can be re-checked
// with nothing but SHA-256.
import { toCsv } from '../format/csv.js';
import { canonicalJson } from './audit-chain.js';
import type { AuditEntry } from './types.js';

export const AUDIT_CSV_COLUMNS = [
  'seq',
  'at',
  'environment',
  'request',
  'kind',
  'action',
  'state',
  'actor',
  'amount',
  'note',
  'subject',
  'reference',
  'service_status',
  'service_reason',
  'figures',
  'answer',
  'key_id',
  'prev',
  'hash',
] as const;

export function auditCsv(entries: AuditEntry[]): string {
  const rows = entries.map((e) => [
    e.seq,
    e.at,
    e.environment,
    e.requestId,
    e.kind,
    e.action,
    e.state,
    e.actor,
    e.amount,
    e.note,
    e.subject,
    e.answer?.reference ?? e.answer?.transactionId,
    e.answer?.status,
    e.answer?.reason,
    e.figures ? canonicalJson(e.figures) : undefined,
    e.answer ? canonicalJson(e.answer) : undefined,
    e.keyId,
    e.prev,
    e.hash,
  ]);
  return toCsv([[...AUDIT_CSV_COLUMNS], ...rows]);
}

export function auditJsonLines(entries: AuditEntry[]): string {
  return entries.map((entry) => `${canonicalJson(entry)}\n`).join('');
}
