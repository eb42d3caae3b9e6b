// The audit log as files for an auditor: CSV for a spreadsheet (every cell inert, see format/csv.ts,
// and every hidden or reordering character shown as the same marker Slack shows, `⟨U+202E⟩`, so a
// name reads in the sheet as it is) and JSON Lines with each entry exactly as chained (canonical JSON)
// plus whether it took effect, so its hashes can be re-checked with nothing but SHA-256.
import { toCsv } from '../format/csv.js';
import { markHiddenCharacters } from '../format/hidden-characters.js';
import { canonicalJson } from './chain.js';
import type { AuditEntry } from './types.js';

const AUDIT_CSV_COLUMNS = [
  'seq',
  'at',
  'environment',
  'request',
  'kind',
  'action',
  'state',
  'took_effect',
  'actor',
  'actor_name',
  'actor_email',
  'on_behalf_of',
  'amount',
  'purpose',
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

/**
 * `tookEffect[i]` says whether entry i is a step that happened: an entry written just before a request
 * save that lost (another replica got there first) stays in the chain, marked `no` here. A policy
 * entry's note holds people and groups as `@ID` tokens: `people` writes them as the reader is to see
 * them (as they are by default).
 */
export function auditCsv(
  entries: AuditEntry[],
  tookEffect: boolean[] = [],
  people: (note: string) => string = (note) => note,
): string {
  const rows = entries.map((e, i) => [
    e.seq,
    e.at,
    e.environment,
    e.requestId,
    e.kind,
    e.action,
    e.state,
    tookEffect[i] === false ? 'no' : 'yes',
    e.actor,
    e.actorName,
    e.actorEmail,
    e.onBehalfOf,
    e.amount,
    e.figures?.purpose,
    e.kind === 'policy' && e.note ? people(e.note) : e.note,
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
  const shown = rows.map((row) =>
    row.map((cell) => (typeof cell === 'string' ? markHiddenCharacters(cell) : cell)),
  );
  return toCsv([[...AUDIT_CSV_COLUMNS], ...shown]);
}

/**
 * One line per entry: the entry exactly as chained, plus `took_effect` (as in the CSV). The flag is the
 * export's finding, not part of the entry: to re-check a hash, leave out `hash` and `took_effect`.
 */
export function auditJsonLines(entries: AuditEntry[], tookEffect: boolean[] = []): string {
  return entries
    .map((entry, i) => `${canonicalJson({ ...entry, took_effect: tookEffect[i] !== false })}\n`)
    .join('');
}
