// `/cngn audit [n]`: the last n steps of the audit log (default 20, at most 100).
// `/cngn audit verify`: check the chain, its signed head and the archive; name the first broken link
// and show the public key an auditor checks the archive with (approvers).
// `/cngn audit archive`: write an archive segment of what is new now (approvers).
// `/cngn audit export [from] [to]`: CSV and JSON Lines of a range, sent to the person who asked in a
// direct message (approvers); the export is itself audited.
import { TZDate } from '@date-fns/tz';
import { auditCsv, auditJsonLines } from '../../audit/index.js';
import { escapeMrkdwn, mentionsAsMarkup } from '../../format/mrkdwn.js';
import { SlackUploadError, sendFilesToUser, uploadFailureText } from '../runtime/files.js';
import type { ApprovalSlackDeps } from '../types.js';
import { AUDITORS, type CommandContext, type FeatureSubcommand, type SlackMessage } from '../types.js';
import { errorMessage } from '../ui/messages.js';
import { auditArchiveMessage, auditExportMessage, auditVerifyMessage } from './blocks.js';
import { auditList } from './list-blocks.js';

const AUDIT_EXPORT_USAGE =
  'Usage: `/cngn audit export [from] [to]` with dates like `2026-11-01` (Lagos days, both included) or durations back from now like `7d`, `24h` — e.g. `/cngn audit export 2026-11-01 2026-11-30` or `/cngn audit export 30d`';

function auditCount(arg: string | undefined): number {
  const n = Number.parseInt(arg ?? '', 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 100) : 20;
}

async function auditListCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const entries = await deps.engine.audit(auditCount(command.args[0]));
  return auditList(entries, deps.environmentLabel);
}

async function verifyAudit(_command: CommandContext, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const check = await deps.engine.verifyAudit();
  if (!check.ok) {
    deps.log?.error?.('audit chain broken', {
      kind: check.chain.broken?.kind,
      index: check.chain.broken?.index,
      problems: check.problems.map((p) => p.kind),
    });
  }
  return auditVerifyMessage(check, deps.environmentLabel);
}

async function archiveAudit(command: CommandContext, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const outcome = await deps.engine.archiveAudit(`command by ${command.userId}`);
  return auditArchiveMessage(outcome, deps.engine.auditArchivePlace(), deps.environmentLabel);
}

/** `[from] [to]` are the words after `audit export`. */
async function exportAudit(command: CommandContext, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const now = deps.now?.() ?? new Date();
  const range = parseAuditRange(command.args, now);
  if ('error' in range) return errorMessage(`${range.error} ${AUDIT_EXPORT_USAGE}`);
  const entries = await deps.engine.auditRange(range.from, range.to);
  if (entries.length === 0) return auditExportMessage(0, range, deps.environmentLabel);
  const name = `cngn-audit-${deps.environmentLabel.toLowerCase()}-${day(range.from ?? new Date(entries[0]?.at ?? now))}-to-${day(range.to)}`;
  const seqs = entries.map((e) => e.seq).filter((s): s is number => s !== undefined);
  const lastSeq = seqs.length ? Math.max(...seqs) : undefined;
  const tookEffect = await deps.engine.auditTookEffect(entries);
  const subject = `${range.from?.toISOString() ?? 'start'}..${range.to.toISOString()}`;
  // Recorded before anything is sent, so no export goes unrecorded, and one a crash interrupts is told
  // to the asker at the next start. The `export-requested` entry holds no range: only the `exported`
  // entry written once Slack has the files lets retention count the export.
  const id = await deps.engine.beginAuditExport(
    { actor: command.userId, words: command.args.join(' '), subject, entries: entries.length },
    {
      at: now.toISOString(),
      kind: 'audit',
      action: 'export-requested',
      actor: command.userId,
      subject,
      note: `${entries.length} entries to be sent as CSV and JSON Lines`,
    },
  );
  try {
    try {
      await sendFilesToUser(
        command.client,
        command.userId,
        [
          {
            filename: `${name}.csv`,
            title: `Audit log ${name} (CSV)`,
            content: auditCsv(entries, tookEffect, mentionsAsMarkup),
          },
          {
            filename: `${name}.jsonl`,
            title: `Audit log ${name} (JSON Lines)`,
            content: auditJsonLines(entries, tookEffect),
          },
        ],
        `Audit log export, ${entries.length} entries · ${deps.environmentLabel}`,
      );
    } catch (error) {
      if (!(error instanceof SlackUploadError)) throw error;
      await deps.engine.abandonAuditExport(id); // the answer says it was not sent
      return errorMessage(uploadFailureText(error));
    }
    await deps.engine.finishAuditExport(id, {
      at: now.toISOString(),
      kind: 'audit',
      action: 'exported',
      actor: command.userId,
      subject,
      note: `${entries.length} entries sent as CSV and JSON Lines`,
      exported: {
        ...(range.from ? { from: range.from.toISOString() } : {}),
        to: range.to.toISOString(),
        ...(lastSeq !== undefined ? { lastSeq } : {}),
      },
    });
  } finally {
    // Neither finished nor abandoned (an unexpected failure): the next sweep tells the asker.
    deps.engine.endAuditExport(id);
  }
  return auditExportMessage(entries.length, range, deps.environmentLabel);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const AGO = /^(\d+)(m|h|d|w)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** A Lagos day's start, or undefined when the text is no real date. */
function lagosDay(text: string): Date | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const start = new TZDate(year, month, date, 'Africa/Lagos');
  return start.getFullYear() === year && start.getMonth() === month && start.getDate() === date
    ? new Date(start.getTime())
    : undefined;
}

/**
 * `[from] [to]`: dates (Lagos days; `to` includes its whole day) or durations back from now (`7d`).
 * Nothing given: everything up to now.
 */
export function parseAuditRange(
  args: string[],
  now: Date,
): { from?: Date | undefined; to: Date } | { error: string } {
  if (args.length > 2) return { error: 'Give at most two bounds: from and to.' };
  const read = (word: string, end: boolean): Date | string => {
    const w = word.toLowerCase();
    if (w === 'now') return now;
    const ago = AGO.exec(w);
    if (ago) {
      const at = new Date(now.getTime() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]);
      // A Date past ±8.64e15 ms is invalid and compares false with everything; long before it, the
      // year is one no day or file name can show. No audit entry is older than 1970.
      if (at.getTime() >= 0) return at;
      return `\`${escapeMrkdwn(word)}\` (${end ? 'to' : 'from'}) reaches back before 1970: give a shorter duration or a date (2026-11-01).`;
    }
    const day = lagosDay(w);
    if (day) return end ? new Date(day.getTime() + 86_400_000) : day;
    return `\`${escapeMrkdwn(word)}\` is not a date (2026-11-01) or a duration (7d, 24h).`;
  };
  const from = args[0] ? read(args[0], false) : undefined;
  const to = args[1] ? read(args[1], true) : now;
  if (typeof from === 'string') return { error: from };
  if (typeof to === 'string') return { error: to };
  if (from && from.getTime() >= to.getTime()) return { error: 'The start must come before the end.' };
  return { from, to };
}

const day = (date: Date) => new TZDate(date, 'Africa/Lagos').toISOString().slice(0, 10);

/** The audit log's /cngn subcommands; the registry puts them in the help's order. */
export const AUDIT_SUBCOMMANDS = {
  list: {
    name: 'audit',
    usage: 'audit [n]',
    summary: 'the last n steps of the audit log',
    who: AUDITORS,
    example: 'audit 50',
    needs: 'approvals',
    run: auditListCommand,
  },
  verify: {
    name: 'audit verify',
    usage: 'audit verify',
    summary: "check the audit log's hash chain, its signed head and the archive; name the first broken link",
    who: AUDITORS,
    example: 'audit verify',
    needs: 'approvals',
    run: verifyAudit,
  },
  archive: {
    name: 'audit archive',
    usage: 'audit archive',
    summary: 'write what is new in the audit log to the signed archive now',
    who: AUDITORS,
    example: 'audit archive',
    needs: 'approvals',
    run: archiveAudit,
  },
  export: {
    name: 'audit export',
    usage: 'audit export [from] [to]',
    summary: 'the audit log as CSV and JSON Lines, sent to you in a DM (dates or 7d, 24h)',
    who: AUDITORS,
    example: 'audit export 2026-11-01 2026-11-30',
    needs: 'approvals',
    run: exportAudit,
  },
} satisfies Record<string, FeatureSubcommand<'approvals', ApprovalSlackDeps>>;
