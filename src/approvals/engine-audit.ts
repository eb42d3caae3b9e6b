// The audit trail's side of the approval engine (ApprovalEngine holds one and passes the audit
// questions on to it): reading, checking, archiving and exporting the trail, and putting policy changes
// on it, with their part of the engine's start, sweep and stop. Its parts are private: callers ask the
// engine, never the keeper, the exports or the recorder.
import type { ActorLookup, ArchiveOutcome, AuditDraft } from '../audit/index.js';
import {
  type AuditAlarmListener,
  type AuditCheck,
  type AuditExportRecord,
  AuditExports,
  type AuditHealth,
  AuditKeeper,
  AuditKeyMismatch,
  type UndeliveredListener,
} from '../audit/index.js';
import type { ApprovalCore, EngineOptions } from './approval-core.js';
import { ApprovalErrorCode } from './error-codes.js';
import { fingerprint, type PolicySnapshot } from './policy-record.js';
import { PolicyRecorder, type PolicyRecordListener } from './policy-recorder.js';
import type { SealingChain } from './sealing-once.js';
import type { AuditEntry } from './types.js';

export interface AuditSideOptions extends EngineOptions {
  /** CNGN_AUDIT_RETENTION: archived audit entries older than this are removed; unset keeps everything. */
  auditRetentionMs?: number | undefined;
  /** CNGN_AUDIT_ARCHIVE's folder (needs auditSeal) and CNGN_AUDIT_ARCHIVE_EVERY. */
  auditArchive?: { dir: string; everyMs: number } | undefined;
  /** Who actors are (the Slack directory): each audit entry records its actor's name and e-mail then. */
  actorLookup?: ActorLookup | undefined;
}

/** What an audit export is about: who asked, their words, the range, how many entries. */
export type AuditExportAsk = Pick<AuditExportRecord, 'actor' | 'words' | 'subject' | 'entries'>;

/** The settings in effect could not be put on the record at start: the start stops, taking no approvals. */
export class PolicyNotRecorded extends Error {
  override name = 'PolicyNotRecorded';
  readonly code = ApprovalErrorCode.PolicyNotRecorded;

  constructor(cause: unknown) {
    super(
      `The settings this bot runs with could not be recorded in the audit trail, so it does not start: a bot that cannot record which settings judged its approvals must not take any. Cause: ${String(cause)}`,
      { cause },
    );
  }
}

export class EngineAudit {
  readonly #core: ApprovalCore;
  /** Audit exports under way; one a crash interrupted is told to the person who asked. */
  readonly #exports: AuditExports;
  /** Checks, signs, archives and retains the audit trail (see AuditKeeper). */
  readonly #keeper: AuditKeeper;
  /** Puts policy changes (settings at start, user group members) on the record. */
  readonly #recorder: PolicyRecorder;
  readonly #log: AuditSideOptions['log'];
  /** From open() until start(), what the listeners are told waits: they are there once the bot listens. */
  #held: Array<() => Promise<void>> | undefined;
  /** The settings recorded and not yet told, being told (start()). */
  #telling: Promise<void> | undefined;
  readonly #alarmListeners: AuditAlarmListener[] = [];
  readonly #policyListeners: PolicyRecordListener[] = [];

  constructor(core: ApprovalCore, options: AuditSideOptions) {
    this.#core = core;
    this.#log = options.log;
    const { repo, now } = core;
    if (options.actorLookup) repo.auditLog.describeActorsWith(options.actorLookup);
    this.#exports = new AuditExports(options.store, repo.auditLog, repo.environment, now);
    this.#keeper = new AuditKeeper({
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
    this.#recorder = new PolicyRecorder({
      store: options.store,
      log: repo.auditLog,
      environment: repo.environment,
      now,
      logger: options.log,
    });
    this.#keeper.onAlarm(this.#relay(this.#alarmListeners, 'an audit break could not be told'));
    this.#recorder.onRecorded(
      this.#relay(this.#policyListeners, 'a policy change was recorded but could not be told'),
    );
  }

  /** The audit parts, for the engine's registry of parts (engine-parts.ts: tests only). */
  parts(): { auditExports: AuditExports; auditKeeper: AuditKeeper; policyRecorder: PolicyRecorder } {
    return { auditExports: this.#exports, auditKeeper: this.#keeper, policyRecorder: this.#recorder };
  }

  /**
   * The trail's part of a start that comes before the bot takes a click or sends anything: checked (and
   * its head signed) before anything is appended to it, then the settings this start runs with on the
   * record when they changed. A signing key that differs from the store's stops the start, and so do
   * settings that cannot be recorded (PolicyNotRecorded): every approval step must have the settings
   * that judged it on the record before it. What the listeners are to hear waits for start(). Returns
   * the fingerprint of the settings recorded (undefined: none to record).
   */
  async open(snapshot: PolicySnapshot | undefined): Promise<string | undefined> {
    this.#held ??= [];
    await this.#keeper.start().catch((error: unknown) => {
      if (error instanceof AuditKeyMismatch) throw error;
      this.#log?.warn('the audit trail could not be checked at start; checked again daily', {
        error: String(error),
      });
    });
    if (!snapshot) return undefined;
    await this.#recorder.recordAtStart(snapshot).catch((error: unknown) => {
      throw new PolicyNotRecorded(error);
    });
    return fingerprint(snapshot);
  }

  /**
   * The rest of the trail's start, once the bot listens: the settings recorded at a start and not yet
   * told (this one's, or those of a start that failed after open()), then what open() held, then an
   * export a crash interrupted, even when the rest of the resume fails.
   */
  async start(): Promise<void> {
    const held = this.#held ?? [];
    this.#held = undefined;
    // In the background: Slack may take a minute over a post, and the resume does not wait for it.
    this.#telling = this.#recorder
      .tellUntold(async (entry) => {
        for (const listener of this.#policyListeners) await listener(entry);
      })
      .catch((error: unknown) => {
        this.#log?.warn('recorded settings could not be told; told at the next start', {
          error: String(error),
        });
      });
    for (const tell of held) await tell();
    await this.#settleExports();
  }

  /** The trail's part of a sweep: interrupted exports told, then the keeper's sweep. */
  async sweep(): Promise<void> {
    await this.#settleExports();
    await this.#keeper.sweep();
  }

  /** The daily check of the trail, which each process makes whichever replica takes the sweeps. */
  daily(): Promise<void> {
    return this.#keeper.daily();
  }

  /**
   * A clean stop archives what is new (see AuditKeeper.stop). A settings post under way is not waited
   * for: Slack may hold it for a minute; if its mark is lost with the store, the next start posts it.
   */
  stop(): Promise<void> {
    return this.#keeper.stop();
  }

  /** Resolves when the keeper's background work, and the telling of recorded settings, has finished. */
  async idle(): Promise<void> {
    await this.#telling;
    return this.#keeper.idle();
  }

  /** Tells `listeners` each piece of news, or holds it from open() until start(); a failure is only logged. */
  #relay<A extends unknown[]>(listeners: Array<(...news: A) => Promise<void>>, failed: string) {
    const tellAll = async (...news: A) => {
      for (const listener of listeners) {
        await listener(...news).catch((error: unknown) => this.#log?.warn(failed, { error: String(error) }));
      }
    };
    return async (...news: A): Promise<void> => {
      if (this.#held) this.#held.push(() => tellAll(...news));
      else await tellAll(...news);
    };
  }

  /** Audit exports a stopped process left undelivered: marked and told (see AuditExports). Never throws. */
  async #settleExports(): Promise<void> {
    await this.#exports.settle().catch((error: unknown) => {
      this.#log?.warn('interrupted audit exports could not be told; tried again next sweep', {
        error: String(error),
      });
    });
  }

  /** Record that the bot saw a user group's members change (see PolicyRecorder). */
  recordMembershipChange(
    group: string,
    added: readonly string[],
    removed: readonly string[],
  ): Promise<AuditEntry | undefined> {
    return this.#recorder.recordMembershipChange(group, added, removed);
  }

  /**
   * Record settings switched while the bot runs (see PolicyRecorder.recordSwitch); throws when they
   * could not be. Returns their fingerprint, for the approval steps judged by them, and the entry
   * written (undefined: they were the last recorded), to tell once the switch holds (tellSwitch).
   */
  async recordSwitch(
    snapshot: PolicySnapshot,
    subject: string,
  ): Promise<{ fingerprint: string; written: AuditEntry | undefined }> {
    const written = await this.#recorder.recordSwitch(snapshot, subject);
    return { fingerprint: fingerprint(snapshot), written };
  }

  /** Tell the approvals channel of a switch recorded by recordSwitch, once it holds. */
  tellSwitch(entry: AuditEntry): Promise<void> {
    return this.#recorder.tellSwitch(entry);
  }

  /** Record a user group's members as first read (see PolicyRecorder). */
  recordGroupMembers(group: string, members: readonly string[]): Promise<AuditEntry | undefined> {
    return this.#recorder.recordMembers(group, members);
  }

  /** Told of each policy change once it is in the audit chain. */
  onPolicyRecorded(listener: PolicyRecordListener): void {
    this.#policyListeners.push(listener);
  }

  /** The newest `n` audit entries. */
  audit(n: number): Promise<AuditEntry[]> {
    return this.#core.audit(n);
  }

  /**
   * Check this environment's audit trail: the chain's links (naming the first broken one), its signed
   * head, this process's mark, the archive.
   */
  verifyAudit(): Promise<AuditCheck> {
    return this.#keeper.check();
  }

  /** Write an audit archive segment now, with what is new since the last one. */
  archiveAudit(reason: string): Promise<ArchiveOutcome> {
    return this.#keeper.archiveNow(reason);
  }

  /** Where segments go and the key that signs them (each unset when not configured). */
  auditArchivePlace(): { folder?: string | undefined; publicKey?: string | undefined } {
    return { folder: this.#keeper.archive?.folder, publicKey: this.#keeper.publicKey };
  }

  /** The last audit check, for /healthz. */
  auditHealth(): AuditHealth {
    return this.#keeper.health();
  }

  /** Told of each new audit break (at start, daily, or found by an append). */
  onAuditAlarm(listener: AuditAlarmListener): void {
    this.#alarmListeners.push(listener);
  }

  /** This environment's audit entries with `at` in [from, to), oldest first, as stored (chain fields too). */
  async auditRange(from: Date | undefined, to: Date | undefined): Promise<AuditEntry[]> {
    const entries = await this.#core.repo.auditLog.entries(this.#core.repo.environment);
    return entries.filter((entry) => {
      const at = Date.parse(entry.at);
      return (!from || at >= from.getTime()) && (!to || at < to.getTime());
    });
  }

  /** For each entry, whether its step took effect (see ApprovalRepository.tookEffect). */
  auditTookEffect(entries: AuditEntry[]): Promise<boolean[]> {
    return this.#core.repo.tookEffect(entries);
  }

  /**
   * The trail as sealing what stands unsealed reads it: whole as the check made at open() found it, and
   * checked again (links, signed head, mark, archive) with the very entries that check verified.
   */
  sealingChain(): SealingChain {
    return {
      whole: () => {
        const health = this.#keeper.health();
        return health.checked && health.ok;
      },
      checked: async () => {
        const { check, entries } = await this.#keeper.checkedEntries();
        return { ok: check.ok, entries };
      },
      append: (draft) => this.recordAudit(draft),
    };
  }

  /** Audit a step that is no request's own (an alert re-posted, the log exported). */
  recordAudit(draft: AuditDraft): Promise<AuditEntry> {
    return this.#core.repo.auditLog.append(this.#core.repo.environment, draft);
  }

  /**
   * An audit export about to be made, recorded with its `export-requested` entry (see AuditExports):
   * from here on a crash leaves something that says it was asked for. Returns its id.
   */
  beginAuditExport(ask: AuditExportAsk, requested: AuditDraft): Promise<string> {
    return this.#exports.begin(ask, requested);
  }

  /** The export was delivered: its `exported` entry is written, and the record goes. */
  finishAuditExport(id: string, exported: AuditDraft): Promise<void> {
    return this.#exports.finish(id, exported);
  }

  /** The export was not delivered and the asker was told so: nothing is left to say. */
  abandonAuditExport(id: string): Promise<void> {
    return this.#exports.abandon(id);
  }

  /** This process stops working on the export (however that went); an unsettled one is told later. */
  endAuditExport(id: string): void {
    this.#exports.end(id);
  }

  /** Told of an export a stopped process left undelivered (to tell the person who asked). */
  onUndeliveredAuditExport(listener: UndeliveredListener): void {
    this.#exports.onUndelivered(listener);
  }

  /**
   * Apply the audit retention: remove the entries older than it that a verified archive segment holds,
   * and record the cut in the chain. Returns how many were removed (always 0 without a retention or an
   * archive).
   */
  applyAuditRetention(): Promise<number> {
    return this.#keeper.retention();
  }
}
