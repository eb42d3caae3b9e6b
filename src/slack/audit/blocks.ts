// Answers of `/cngn audit verify`, `audit archive` and `audit export`, and the notice of a break posted
// to the approvals channel: what the checks found, in words an auditor can act on, and what was
// written or sent. Pure: data in, message out.
import type { KnownBlock } from '@slack/types';
import type {
  ArchiveOutcome,
  AuditCheck,
  AuditEntry,
  AuditExportRecord,
  BreakKind,
  ChainReport,
} from '../../audit/index.js';
import { lagosTime } from '../../format/display.js';
import { clipMrkdwn, escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
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
  const named = entry.actorName ? ` (${escapeMrkdwn(entry.actorName)})` : '';
  const by = entry.actor ? ` by ${mentionUser(entry.actor)}${named}` : '';
  const seq = entry.seq !== undefined ? ` (seq ${entry.seq})` : '';
  return `entry #${index + 1}${seq} · ${lagosTime(entry.at)} · ${escapeMrkdwn(what)} *${escapeMrkdwn(entry.action)}*${by}`;
}

/** What the check of the chain's links found, as one paragraph. */
function chainParagraph(report: ChainReport): string {
  const older =
    report.unchained > 0
      ? ` The ${report.unchained} oldest entries were written before the chain existed: the chain starts after them and seals them.`
      : '';
  const cut = report.cut
    ? ` The log was cut on ${lagosTime(report.cut.at)} under the retention period (${report.cut.count} archived entries removed in all): it resumes after entry seq ${report.cut.seq} (hash \`${report.cut.hash.slice(0, 12)}…\`).`
    : '';
  if (report.ok) {
    return `${report.total} entries checked, ${report.chained} of them chained; every link holds.${older}${cut}`;
  }
  const broken = report.broken;
  const where = broken?.entry ? describeAuditEntry(broken.entry, broken.index) : 'the whole log is gone';
  const missing = broken?.kind === 'deleted' && broken.missing ? ` (${broken.missing} missing)` : '';
  return `First broken link: ${where}.\nWhy: ${broken ? WHY[broken.kind] : 'unknown'}${missing}.\nEntries before it check out (${report.chained} chained).${older}${cut}`;
}

/** The signing key and the archive, as verify shows them. */
function keyAndArchive(check: AuditCheck): string {
  const key = check.signing
    ? `Each head is signed with the audit key; its public key is \`${check.signing.publicKey}\`. An auditor checks a copy of the archive folder with it: \`npm run audit:verify -- FOLDER --key ${check.signing.publicKey}\`.`
    : 'Heads are not signed: the bot has no audit signing key (a memory store without CNGN_AUDIT_SIGNING_KEY).';
  const archive = !check.archive
    ? 'No archive is written (CNGN_AUDIT_ARCHIVE).'
    : check.archive.through === undefined
      ? `Archive: nothing archived yet in ${escapeMrkdwn(check.archive.folder)}.`
      : `Archive: ${check.archive.segments} segment${check.archive.segments === 1 ? '' : 's'} in ${escapeMrkdwn(check.archive.folder)}, through seq ${check.archive.through}, the last written ${lagosTime(check.archive.lastAt ?? '')}${check.archive.lastSegment ? ` (the verifier should say it ends at segment \`${escapeMrkdwn(check.archive.lastSegment)}\`)` : ''}.`;
  return `${key}\n${archive}`;
}

/** Heads an append found unverified, recorded in the chain (newest last, at most 5). */
function incidentLines(incidents: AuditEntry[]): string {
  if (incidents.length === 0) return '';
  const shown = incidents
    .slice(-5)
    .map((e) => `• seq ${e.seq ?? '?'} · ${lagosTime(e.at)} · ${escapeMrkdwn(e.note ?? '')}`);
  const more = incidents.length > 5 ? `\n…and ${incidents.length - 5} earlier.` : '';
  return `Recorded in the chain: the head was found unverified and a signed head started again after it:\n${shown.join('\n')}${more}`;
}

export function auditVerifyMessage(check: AuditCheck, environment: string): SlackMessage {
  const text = check.ok
    ? `:white_check_mark: *Audit chain intact* · ${environment}`
    : `:rotating_light: *Audit chain broken* · ${environment}`;
  const problems = check.problems.map((p) => `• ${escapeMrkdwn(p.text)}`).join('\n');
  const blocks = [
    section(text),
    section(chainParagraph(check.chain)),
    ...(problems ? [section(`${check.chain.ok ? 'The links hold, but:' : 'Also:'}\n${problems}`)] : []),
    section(keyAndArchive(check)),
  ];
  const incidents = incidentLines(check.incidents);
  if (incidents) blocks.push(section(incidents));
  return { text, blocks };
}

/** Posted to the approvals channel when a check finds a new break, or an append recorded an unverified head. */
export function auditAlarmMessage(
  check: AuditCheck,
  incidents: AuditEntry[],
  environment: string,
): SlackMessage {
  const text = check.ok
    ? `:warning: *The audit head was found unverified, and recorded* · ${environment}`
    : `:rotating_light: *Audit chain broken* · ${environment}`;
  const what = [
    ...(check.chain.ok ? [] : [chainParagraph(check.chain)]),
    ...check.problems.map((p) => `• ${escapeMrkdwn(p.text)}`),
  ].join('\n');
  const blocks = [section(text)];
  if (what) blocks.push(section(what));
  const recorded = incidentLines(incidents);
  if (recorded) blocks.push(section(recorded));
  // The chain records the one start that seals requests standing unsealed (approvals/sealing-once.ts).
  // Said alike of a break found at a start, in a daily check or after an append: it holds for each.
  const sealing = check.ok
    ? ''
    : ' While the chain does not verify, no start seals a request that stands without a filing seal: sealing happens only at a start that finds it whole.';
  blocks.push(
    section(
      `Someone may have changed the audit log in the store. Nothing was repaired.${sealing} \`/cngn audit verify\` shows the whole check; docs/audit.md says what each finding means.`,
    ),
  );
  return { text, blocks };
}

export function auditArchiveMessage(
  outcome: ArchiveOutcome,
  where: { folder?: string | undefined; publicKey?: string | undefined },
  environment: string,
): SlackMessage {
  const folder = where.folder ? ` in ${escapeMrkdwn(where.folder)}` : '';
  let text: string;
  if (outcome.written) {
    text = `:white_check_mark: Archived seq ${outcome.firstSeq} to ${outcome.lastSeq} (${outcome.count} entries) as segment \`${outcome.segment}\`${folder}, signed with key \`${where.publicKey ?? '?'}\` · ${environment}`;
  } else if (outcome.reason === 'refused') {
    text = `:rotating_light: Nothing was archived: ${escapeMrkdwn(outcome.why)} · ${environment}`;
  } else if (outcome.reason === 'taken') {
    text = `Nothing was archived by this replica: ${escapeMrkdwn(outcome.why)} · ${environment}`;
  } else {
    const through =
      outcome.through !== undefined ? `: the archive holds everything through seq ${outcome.through}` : '';
    text = `Nothing new to archive${through}${folder} · ${environment}`;
  }
  return { text, blocks: [section(text)] };
}

export function auditExportMessage(
  count: number,
  range: { from?: Date | undefined; to: Date },
  environment: string,
): SlackMessage {
  const from = range.from ? lagosTime(range.from) : 'the start';
  const text =
    count === 0
      ? `No audit entries from ${from} to ${lagosTime(range.to)} · ${environment}`
      : `Sent you ${count} audit entries from ${from} to ${lagosTime(range.to)} as CSV and JSON Lines, in a direct message. · ${environment}`;
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
  return { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(text) } };
}
