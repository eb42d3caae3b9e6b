// Answers of `/cngn audit verify` and `/cngn audit export`: what the chain check found, in words an
// auditor can act on, and what was sent to the person who asked. Pure: data in, message out.
import type { KnownBlock } from '@slack/types';
import type { AuditExportRecord, BreakKind, ChainReport } from '../../approvals/index.js';
import type { AuditEntry } from '../../approvals/types.js';
import { lagosTime } from '../../format/display.js';
import { escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

const WHY: Record<BreakKind, string> = {
  edited: 'it was edited: its content no longer matches its hash',
  deleted: 'entries were deleted',
  reordered: 'entries were reordered: the entry that belongs here is elsewhere in the log',
  rewritten: 'it does not follow the entry before it: one of them was rewritten with a new hash, or replaced',
  unchained: 'it carries no hash inside the chain (written by an older version, or inserted by hand)',
  'legacy-edited': 'the entries written before the chain began were changed after it sealed them',
  'unrecorded-cut':
    'the log starts with a cut marker that no entry of the chain records: old entries were removed by hand',
};

/** `#12 · Mon 2 Nov 2026, 10:15 WAT · AR-… withdraw approved by @x` */
export function describeAuditEntry(entry: AuditEntry, index: number): string {
  const what = entry.requestId
    ? `${entry.requestId} ${entry.kind}`
    : `${entry.kind} ${entry.subject ?? ''}`.trim();
  const by = entry.actor ? ` by ${mentionUser(entry.actor)}` : '';
  const seq = entry.seq !== undefined ? ` (seq ${entry.seq})` : '';
  return `entry #${index + 1}${seq} · ${lagosTime(entry.at)} · ${escapeMrkdwn(what)} *${escapeMrkdwn(entry.action)}*${by}`;
}

export function auditVerifyMessage(report: ChainReport, environment: string): SlackMessage {
  const older =
    report.unchained > 0
      ? ` The ${report.unchained} oldest entries were written before the chain existed: the chain starts after them and seals them.`
      : '';
  const cut = report.cut
    ? ` The log was cut on ${lagosTime(report.cut.at)} under the retention period (${report.cut.count} exported entries removed in all): it resumes after entry seq ${report.cut.seq} (hash \`${report.cut.hash.slice(0, 12)}…\`).`
    : '';
  if (report.ok) {
    const text = `:white_check_mark: *Audit chain intact* · ${environment}`;
    const body = `${report.total} entries checked, ${report.chained} of them chained; every link holds.${older}${cut}`;
    return { text, blocks: [section(text), section(body)] };
  }
  const broken = report.broken;
  const where = broken?.entry ? describeAuditEntry(broken.entry, broken.index) : 'the whole log is gone';
  const missing = broken?.kind === 'deleted' && broken.missing ? ` (${broken.missing} missing)` : '';
  const text = `:rotating_light: *Audit chain broken* · ${environment}`;
  const body = `First broken link: ${where}.\nWhy: ${broken ? WHY[broken.kind] : 'unknown'}${missing}.\nEntries before it check out (${report.chained} chained).${older}${cut}`;
  return { text, blocks: [section(text), section(body)] };
}

export function auditExportMessage(
  count: number,
  range: { from?: Date | undefined; to: Date },
  environment: string,
  removed = 0,
): SlackMessage {
  const from = range.from ? lagosTime(range.from) : 'the start';
  const cut =
    removed > 0
      ? ` The retention period then removed the ${removed} oldest exported entries; the chain records the cut.`
      : '';
  const text =
    count === 0
      ? `No audit entries from ${from} to ${lagosTime(range.to)} · ${environment}`
      : `Sent you ${count} audit entries from ${from} to ${lagosTime(range.to)} as CSV and JSON Lines, in a direct message.${cut} · ${environment}`;
  return { text, blocks: [section(text)] };
}

/**
 * Said to the asker when their export was interrupted by a restart before its delivery was recorded.
 * The files may have reached them just before: they are the one to know, and to run it again.
 */
export function undeliveredExportNotice(record: AuditExportRecord, environment: string): SlackMessage {
  const [from, to] = record.subject.split('..');
  const range = `${from && from !== 'start' ? lagosTime(from) : 'the start'} to ${to ? lagosTime(to) : 'then'}`;
  const command = `/cngn audit export${record.words ? ` ${record.words}` : ''}`;
  const text = `:warning: Your audit log export was not delivered · ${environment}`;
  const body = `You asked for it at ${lagosTime(record.requestedAt)} (\`${escapeMrkdwn(command.replace(/`/g, "'"))}\`: ${record.entries} entries from ${range}). The bot restarted before it recorded the files as sent, so the export is recorded as not delivered. If the CSV and JSON Lines files are not in this conversation, run the command again (a range given as a duration, like \`30d\`, counts back from the time you run it).`;
  return { text: `${text}: ${body}`, blocks: [section(text), section(body)] };
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}
