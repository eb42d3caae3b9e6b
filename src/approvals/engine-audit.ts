// The audit trail's side of the approval engine (ApprovalEngine extends it): reading, checking,
// archiving and exporting the trail, and putting policy changes on it. Its parts stay inside: callers
// ask the engine, never the keeper, the exports or the recorder.
import type { ActorLookup, ArchiveOutcome, AuditDraft, AuditSeal } from '../audit/index.js';
import {
  type AuditAlarmListener,
  type AuditCheck,
  type AuditExportRecord,
  AuditExports,
  type AuditHealth,
  AuditKeeper,
  type UndeliveredListener,
} from '../audit/index.js';
import { ApprovalCore, type EngineOptions } from './approval-core.js';
import { PolicyRecorder, type PolicyRecordListener } from './policy-recorder.js';
import type { AuditEntry } from './types.js';

export interface AuditSideOptions extends EngineOptions {
  /** CNGN_AUDIT_RETENTION: archived audit entries older than this are removed; unset keeps everything. */
  auditRetentionMs?: number | undefined;
  /** The audit signing key and this process's marks: heads are signed, and archive segments. */
  auditSeal?: AuditSeal | undefined;
  /** CNGN_AUDIT_ARCHIVE's folder (needs auditSeal) and CNGN_AUDIT_ARCHIVE_EVERY. */
  auditArchive?: { dir: string; everyMs: number } | undefined;
  /** Who actors are (the Slack directory): each audit entry records its actor's name and e-mail then. */
  actorLookup?: ActorLookup | undefined;
}

/** What an audit export is about: who asked, their words, the range, how many entries. */
export type AuditExportAsk = Pick<AuditExportRecord, 'actor' | 'words' | 'subject' | 'entries'>;

export class EngineAuditSide {
  protected readonly core: ApprovalCore;
  /** Audit exports under way; one a crash interrupted is told to the person who asked. */
  protected readonly auditExports: AuditExports;
  /** Checks, signs, archives and retains the audit trail (see AuditKeeper). */
  protected readonly auditKeeper: AuditKeeper;
  /** Puts policy changes (settings at start, user group members) on the record. */
  protected readonly policyRecorder: PolicyRecorder;

  constructor(options: AuditSideOptions) {
    const core = new ApprovalCore(options);
    this.core = core;
    const { repo, now } = core;
    if (options.actorLookup) repo.auditLog.describeActorsWith(options.actorLookup);
    this.auditExports = new AuditExports(options.store, repo.auditLog, repo.environment, now);
    this.auditKeeper = new AuditKeeper({
      store: options.store,
      log: repo.auditLog,
      environment: repo.environment,
      openRequests: () => repo.openRequests(),
      seal: options.auditSeal,
      archiveDir: options.auditArchive?.dir,
      archiveEveryMs: options.auditArchive?.everyMs,
      retentionMs: options.auditRetentionMs,
      now,
      logger: options.log,
    });
    this.policyRecorder = new PolicyRecorder({
      store: options.store,
      log: repo.auditLog,
      environment: repo.environment,
      now,
      logger: options.log,
    });
  }

  /** Record that the bot saw a user group's members change (see PolicyRecorder). */
  recordMembershipChange(
    group: string,
    added: readonly string[],
    removed: readonly string[],
  ): Promise<AuditEntry | undefined> {
    return this.policyRecorder.recordMembershipChange(group, added, removed);
  }

  /** Told of each policy change once it is in the audit chain. */
  onPolicyRecorded(listener: PolicyRecordListener): void {
    this.policyRecorder.onRecorded(listener);
  }

  /** The newest `n` audit entries. */
  audit(n: number): Promise<AuditEntry[]> {
    return this.core.audit(n);
  }

  /**
   * Check this environment's audit trail: the chain's links (naming the first broken one), its signed
   * head, this process's mark, the archive.
   */
  verifyAudit(): Promise<AuditCheck> {
    return this.auditKeeper.check();
  }

  /** Write an audit archive segment now, with what is new since the last one. */
  archiveAudit(reason: string): Promise<ArchiveOutcome> {
    return this.auditKeeper.archiveNow(reason);
  }

  /** Where segments go and the key that signs them (each unset when not configured). */
  auditArchivePlace(): { folder?: string | undefined; publicKey?: string | undefined } {
    return { folder: this.auditKeeper.archive?.folder, publicKey: this.auditKeeper.publicKey };
  }

  /** The last audit check, for /healthz. */
  auditHealth(): AuditHealth {
    return this.auditKeeper.health();
  }

  /** Told of each new audit break (at start, daily, or found by an append). */
  onAuditAlarm(listener: AuditAlarmListener): void {
    this.auditKeeper.onAlarm(listener);
  }

  /** This environment's audit entries with `at` in [from, to), oldest first, as stored (chain fields too). */
  async auditRange(from: Date | undefined, to: Date | undefined): Promise<AuditEntry[]> {
    const entries = await this.core.repo.auditLog.entries(this.core.repo.environment);
    return entries.filter((entry) => {
      const at = Date.parse(entry.at);
      return (!from || at >= from.getTime()) && (!to || at < to.getTime());
    });
  }

  /** For each entry, whether its step took effect (see ApprovalRepository.tookEffect). */
  auditTookEffect(entries: AuditEntry[]): Promise<boolean[]> {
    return this.core.repo.tookEffect(entries);
  }

  /** Audit a step that is no request's own (an alert re-posted, the log exported). */
  recordAudit(draft: AuditDraft): Promise<AuditEntry> {
    return this.core.repo.auditLog.append(this.core.repo.environment, draft);
  }

  /**
   * An audit export about to be made, recorded with its `export-requested` entry (see AuditExports):
   * from here on a crash leaves something that says it was asked for. Returns its id.
   */
  beginAuditExport(ask: AuditExportAsk, requested: AuditDraft): Promise<string> {
    return this.auditExports.begin(ask, requested);
  }

  /** The export was delivered: its `exported` entry is written, and the record goes. */
  finishAuditExport(id: string, exported: AuditDraft): Promise<void> {
    return this.auditExports.finish(id, exported);
  }

  /** The export was not delivered and the asker was told so: nothing is left to say. */
  abandonAuditExport(id: string): Promise<void> {
    return this.auditExports.abandon(id);
  }

  /** This process stops working on the export (however that went); an unsettled one is told later. */
  endAuditExport(id: string): void {
    this.auditExports.end(id);
  }

  /** Told of an export a stopped process left undelivered (to tell the person who asked). */
  onUndeliveredAuditExport(listener: UndeliveredListener): void {
    this.auditExports.onUndelivered(listener);
  }

  /**
   * Apply the audit retention: remove the entries older than it that a verified archive segment holds,
   * and record the cut in the chain. Returns how many were removed (always 0 without a retention or an
   * archive).
   */
  applyAuditRetention(): Promise<number> {
    return this.auditKeeper.retention();
  }
}
