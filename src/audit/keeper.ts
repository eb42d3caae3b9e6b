// Keeps the audit trail honest: checks it at start, daily and on demand (the chain's links, the signed
// head, this process's mark, the archive, and that a chain emptied beside requests or an archive is a
// break, never "0 entries checked"), writes archive segments when due, applies retention from the
// archive alone, and tells its listeners (the approvals channel) of each new break.
import { lagosTime } from '../format/display.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import { type ArchiveOutcome, AuditArchive, type VerifiedChain } from './archive.js';
import { type ChainHead, type ChainReport, verifyChain } from './chain.js';
import { foreignEntryProblem, pastHeadProblem } from './chain-end.js';
import { short } from './crypto.js';
import { type AuditLog, HEAD_UNVERIFIED } from './log.js';
import { type AuditProblem, archiveProblems } from './problems.js';
import type { ArchiveReport } from './segments.js';
import { type AuditSeal, headProblem } from './signing.js';
import type { ServiceEnvironment } from './types.js';

/** The stable code of AuditKeyMismatch (ApprovalErrorCode.AuditKeyMismatch names the same value). */
export const AUDIT_KEY_MISMATCH = 'audit_key_mismatch';

import type { AuditEntry } from './types.js';

export type { AuditProblem } from './problems.js';

/** A full check of an environment's audit trail. */
export interface AuditCheck {
  ok: boolean;
  environment: ServiceEnvironment;
  checkedAt: string;
  /** The links of the chain in the store. */
  chain: ChainReport;
  /** What is wrong beyond the links: the head, the mark, the archive. */
  problems: AuditProblem[];
  /** Heads an append found unverified and recorded in the chain (`head-unverified` entries). */
  incidents: AuditEntry[];
  signing?: { publicKey: string; origin: string; marks?: string | undefined };
  archive?: {
    folder: string;
    segments: number;
    through?: number;
    lastAt?: string;
    /** The last segment in the folder (what the standalone verifier says it ends at). */
    lastSegment?: string;
  };
}

/** Told of a check that found a break not told before, or of incidents not told before. */
export type AuditAlarmListener = (check: AuditCheck, incidents: AuditEntry[]) => Promise<void>;

/** What /healthz shows. */
export type AuditHealth =
  | { checked: false }
  | {
      checked: true;
      ok: boolean;
      checkedAt: string;
      problems: string[];
      entries: number;
      archivedThrough?: number;
      publicKey?: string;
    };

/** The signing key of a store is recorded there, so replicas with different keys are refused at start. */
const KEY_RECORD = 'approvals:audit-signing-key';
const DAY_MS = 86_400_000;

export class AuditKeyMismatch extends Error {
  override name = 'AuditKeyMismatch';
  readonly code = AUDIT_KEY_MISMATCH;
}

export interface AuditKeeperOptions {
  store: Store;
  log: AuditLog;
  environment: ServiceEnvironment;
  /** The open requests of the environment: a chain emptied beside them is a break. */
  openRequests: () => Promise<unknown[]>;
  seal?: AuditSeal | undefined;
  /** CNGN_AUDIT_ARCHIVE's folder (needs the seal). */
  archiveDir?: string | undefined;
  /** CNGN_AUDIT_ARCHIVE_EVERY. */
  archiveEveryMs?: number | undefined;
  /** CNGN_AUDIT_RETENTION. */
  retentionMs?: number | undefined;
  now: () => Date;
  /** Warnings always; info and error lines when the logger has them. */
  logger?: (Pick<Logger, 'warn'> & Partial<Pick<Logger, 'info' | 'error'>>) | undefined;
}

export class AuditKeeper {
  readonly archive: AuditArchive | undefined;
  private last: AuditCheck | undefined;
  private told = '';
  private readonly toldIncidents = new Set<string>();
  private readonly listeners: AuditAlarmListener[] = [];
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly options: AuditKeeperOptions) {
    const { seal } = options;
    if (seal) options.log.signWith(seal);
    this.archive =
      seal && options.archiveDir
        ? new AuditArchive({
            store: options.store,
            dir: options.archiveDir,
            environment: options.environment,
            signer: seal.signer,
            now: options.now,
            // As it happens: a write that throws afterwards (a failing disk) must not lose a takeover.
            onNote: (note) => options.logger?.warn('audit archive claims', { note }),
          })
        : undefined;
    // An append found the head unverified and recorded it: check now, and tell.
    options.log.onIncident((environment) => {
      if (environment === options.environment) this.track(this.checkAndTell());
    });
  }

  /** The audit signing key's public half (64 hex digits), when there is a key. */
  get publicKey(): string | undefined {
    return this.options.seal?.signer.publicKey;
  }

  onAlarm(listener: AuditAlarmListener): void {
    this.listeners.push(listener);
  }

  /**
   * At start: the store's key must be this one (else AuditKeyMismatch), a chain kept before it was
   * signed gets its head signed, and the first check runs (a break is told).
   */
  async start(): Promise<void> {
    const { seal, logger } = this.options;
    if (seal) {
      await this.claimKey(seal);
      logger?.info?.('audit signing key', {
        publicKey: seal.signer.publicKey,
        key: seal.signer.origin,
        marks: seal.marks.where ?? 'in memory',
        archive: this.archive?.folder ?? 'none',
      });
    }
    if (await this.archive?.clearIncoming()) {
      logger?.warn('removed an audit segment a writer left unfinished in .incoming', {
        folder: this.archive?.folder,
      });
    }
    await this.mendFork().catch((error: unknown) => {
      logger?.warn('the audit chain could not be mended; the check reports it', { error: String(error) });
    });
    const first = await this.check();
    if (first.ok && seal && (await this.options.log.adopt(this.options.environment, this.options.now()))) {
      logger?.info?.('audit chain head signed for the first time', { environment: this.options.environment });
    }
    await this.tell(first);
    // A cut a kill stopped part-way left the old log whole: it is made again now, not at the next segment.
    if (first.ok) {
      await this.retention().catch((error: unknown) => {
        logger?.warn('audit retention could not be applied', { error: String(error) });
      });
    }
  }

  /**
   * A fork an earlier retention cut made is mended, on the record, when it is provably that fault
   * (audit/fork.ts); anything else is left for the check to report.
   */
  private async mendFork(): Promise<void> {
    const { archive } = this;
    const { log, environment, now, logger } = this.options;
    if (!archive) return;
    const report = archive.read();
    if (report.problems.length > 0) return;
    const archived = {
      hashAt: (seq: number) => report.verified.get(seq),
      through: report.verifiedHead?.seq ?? -1,
    };
    const mended = await log.mendFork(environment, archived, now());
    if (mended) {
      logger?.warn('audit chain: mended the fork an earlier retention cut made, on the record', {
        environment,
        seq: mended.seq,
        note: mended.note,
      });
    }
  }

  /** The daily check of this process (whichever replica sweeps). Never throws: tried again next time. */
  async daily(): Promise<void> {
    const last = this.last ? Date.parse(this.last.checkedAt) : 0;
    if (this.options.now().getTime() - last < DAY_MS) return;
    await this.checkAndTell().catch((error: unknown) => {
      this.options.logger?.warn('the daily audit check failed; tried again next sweep', {
        error: String(error),
      });
    });
  }

  /** A segment, when one is due (CNGN_AUDIT_ARCHIVE_EVERY). Never throws: tried again next sweep. */
  async sweep(): Promise<void> {
    const { archive } = this;
    const every = this.options.archiveEveryMs;
    if (!archive || !every) return;
    try {
      // The store's record says when the last segment was written: no need to read the folder before then.
      const record = await archive.record();
      if (record && this.options.now().getTime() - Date.parse(record.at) < every) return;
      await this.archiveNow('schedule', every);
    } catch (error) {
      this.options.logger?.warn('the audit archive could not be written; tried again next sweep', {
        error: String(error),
      });
    }
  }

  /** At a clean stop: a segment of what is new. Never throws. */
  async stop(): Promise<void> {
    if (!this.archive) return;
    await this.archiveNow('shutdown').catch((error: unknown) => {
      this.options.logger?.warn('the audit archive could not be written at shutdown', {
        error: String(error),
      });
    });
  }

  /** Write a segment now (or when due); a segment written lets retention run. */
  async archiveNow(reason: string, dueEveryMs?: number): Promise<ArchiveOutcome> {
    if (!this.archive)
      return { written: false, reason: 'refused', why: 'no archive is configured (CNGN_AUDIT_ARCHIVE)' };
    const outcome = await this.archive.write(reason, () => this.verifiedChain(), dueEveryMs);
    const { logger } = this.options;
    if (outcome.written) {
      logger?.info?.('audit segment written', {
        segment: outcome.segment,
        from: outcome.firstSeq,
        to: outcome.lastSeq,
      });
      await this.retention().catch((error: unknown) => {
        logger?.warn('audit retention could not be applied', { error: String(error) });
      });
    } else if (outcome.reason === 'refused') {
      logger?.error?.('audit segment not written', { why: outcome.why });
    } else if (outcome.reason === 'taken') {
      logger?.warn('audit segment not written by this replica', { why: outcome.why });
    }
    return outcome;
  }

  /**
   * CNGN_AUDIT_RETENTION: remove the entries older than it that a verified segment holds (the same
   * seq and hash). Nothing without an archive. Returns how many were removed.
   */
  async retention(): Promise<number> {
    const { retentionMs, log, environment, now } = this.options;
    if (!retentionMs || !this.archive) return 0;
    const { verified } = this.archive.read();
    if (verified.size === 0) return 0;
    const at = now();
    return log.cut(
      environment,
      new Date(at.getTime() - retentionMs),
      at,
      (entry) => entry.seq !== undefined && verified.get(entry.seq) === entry.hash,
    );
  }

  /** The whole check (see the file's comment). A clean check raises this process's mark. */
  async check(): Promise<AuditCheck> {
    return (await this.inspect()).check;
  }

  /**
   * The head against the entries: one rewritten at its seq (the mismatch), else entries past it.
   */
  private async headEntries(head: ChainHead | undefined, chained: AuditEntry[]): Promise<AuditProblem[]> {
    const mismatch = headMismatch(head, chained);
    if (mismatch) return [mismatch];
    const past = await this.pastHead(head, chained);
    return past ? [past] : [];
  }

  /**
   * Entries past a signed head, or a head carrying another entry than its own (see chain-end.ts). The
   * head is read again after the entries: an append meanwhile makes the list longer than the head read
   * first, so then nothing is said (the next append records what is really there).
   */
  private async pastHead(head: ChainHead | undefined, chained: AuditEntry[]) {
    if (!head?.signature || !this.options.seal) return undefined;
    const foreign = foreignEntryProblem(head);
    if (foreign) return foreign;
    const past = pastHeadProblem(head, chained);
    if (!past || !sameHead(head, await this.options.log.head(this.options.environment))) return undefined;
    return past;
  }

  /**
   * The whole check, told like any other, with the entries it checked: a caller deciding from the
   * chain decides from exactly these, never from a second read a store writer could have changed.
   */
  async checkedEntries(): Promise<{ check: AuditCheck; entries: AuditEntry[] }> {
    const { check, entries } = await this.inspect();
    await this.tell(check);
    return { check, entries };
  }

  /**
   * The check, with the head and entries it checked. Read in this order, so that appends and segments
   * written meanwhile only ever make what is read later longer: this process's mark, the archive, the
   * head, the entries.
   */
  private async inspect(): Promise<{ check: AuditCheck; head?: ChainHead; entries: AuditEntry[] }> {
    const { log, environment, seal } = this.options;
    const mark = seal?.marks.get(environment);
    // The store's record of the last segment before the folder: one written meanwhile is in the folder.
    const recorded = await this.archive?.record();
    const report = this.archive?.read();
    const head = await log.head(environment);
    const entries = await log.entries(environment);
    const chain = verifyChain(entries, head);
    const chained = entries.filter((e) => e.hash !== undefined && e.seq !== undefined);
    const problems: AuditProblem[] = [];
    const found = seal ? headProblem(seal, environment, head, mark) : undefined;
    if (found) problems.push(found);
    problems.push(...(await this.headEntries(head, chained)));
    if (report) problems.push(...archiveProblems(report, chained, chain, recorded));
    if (chained.length === 0 && !head) {
      const emptied = await this.emptied(report?.last?.head.seq);
      if (emptied) {
        problems.splice(0, problems.length, ...problems.filter((p) => p.kind !== 'head-missing'), emptied);
      }
    }
    const check: AuditCheck = {
      ok: chain.ok && problems.length === 0,
      environment,
      checkedAt: this.options.now().toISOString(),
      chain,
      problems,
      incidents: entries.filter((e) => e.kind === 'audit' && e.action === HEAD_UNVERIFIED),
      ...(seal
        ? {
            signing: {
              publicKey: seal.signer.publicKey,
              origin: seal.signer.origin,
              marks: seal.marks.where,
            },
          }
        : {}),
      ...(this.archive && report ? { archive: archiveSummary(this.archive.folder, report) } : {}),
    };
    // A mark records signed heads only: an unsigned one is signed first (adopt), then marked.
    if (check.ok && seal && head?.signature) seal.marks.raise(environment, head, this.options.now());
    this.last = check;
    return { check, ...(head ? { head } : {}), entries };
  }

  health(): AuditHealth {
    const check = this.last;
    if (!check) return { checked: false };
    return {
      checked: true,
      ok: check.ok,
      checkedAt: check.checkedAt,
      problems: [
        ...(check.chain.broken
          ? [`chain broken at entry #${check.chain.broken.index + 1}: ${check.chain.broken.kind}`]
          : []),
        ...check.problems.map((p) => p.text),
      ],
      entries: check.chain.total,
      ...(check.archive?.through !== undefined ? { archivedThrough: check.archive.through } : {}),
      ...(check.signing ? { publicKey: check.signing.publicKey } : {}),
    };
  }

  /** Resolves once checks started in the background (after an incident) have finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** The chain as checked, for a segment: only what the signed head covers, and only when all is well. */
  private async verifiedChain(): Promise<VerifiedChain> {
    const { check, head, entries } = await this.inspect();
    if (!check.ok) {
      const chainBreak = check.chain.broken
        ? `entry #${check.chain.broken.index + 1} ${check.chain.broken.kind}`
        : undefined;
      return { why: chainBreak ?? check.problems[0]?.text ?? 'it does not verify' };
    }
    return { entries, head };
  }

  private async emptied(archivedSeq: number | undefined): Promise<AuditProblem | undefined> {
    const { seal, environment } = this.options;
    const evidence: string[] = [];
    const mark = seal?.marks.get(environment);
    if (mark) evidence.push(`this bot signed or checked seq ${mark.seq} (${lagosTime(mark.at)})`);
    if (archivedSeq !== undefined) evidence.push(`the archive holds entries up to seq ${archivedSeq}`);
    const open = (await this.options.openRequests()).length;
    if (open > 0)
      evidence.push(`${open} open request${open === 1 ? ' was' : 's were'} filed, each with an entry`);
    if (evidence.length === 0) return undefined;
    return {
      kind: 'emptied',
      text: `the audit log is empty and has no head, but ${evidence.join('; ')}: its entries were deleted`,
    };
  }

  private async claimKey(seal: AuditSeal): Promise<void> {
    const { store } = this.options;
    const mine = { key: seal.signer.publicKey, at: this.options.now().toISOString() };
    if (await store.setIfAbsent(KEY_RECORD, mine)) return;
    const recorded = await store.get<{ key: string; at: string }>(KEY_RECORD);
    if (recorded?.key === mine.key) return;
    throw new AuditKeyMismatch(
      `The audit log in this store is signed with key ${recorded?.key ?? '?'} (since ${recorded?.at ?? '?'}), but this bot's key (${seal.signer.origin}) is ${mine.key}. Every replica must sign with the same key: give them all the same CNGN_AUDIT_SIGNING_KEY_FILE. If the key was replaced on purpose, see "Replacing the signing key" in docs/audit.md.`,
    );
  }

  private async checkAndTell(): Promise<void> {
    await this.tell(await this.check());
  }

  /** Tell the listeners of a break not told before, and of incidents not told before. */
  private async tell(check: AuditCheck): Promise<void> {
    const fresh = check.incidents.filter((e) => !this.toldIncidents.has(`${e.seq}:${e.hash}`));
    const breakText = check.ok
      ? ''
      : JSON.stringify([check.chain.broken?.kind, check.chain.broken?.index, check.problems]);
    const news = breakText !== '' && breakText !== this.told;
    this.told = breakText;
    if (!news && fresh.length === 0) return;
    for (const entry of fresh) this.toldIncidents.add(`${entry.seq}:${entry.hash}`);
    if (!check.ok) this.options.logger?.error?.('audit chain broken', { problems: this.health() });
    for (const listener of this.listeners) {
      await listener(check, fresh).catch((error: unknown) => {
        this.options.logger?.warn('an audit break could not be told', { error: String(error) });
      });
    }
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      this.options.logger?.warn('the audit check failed', { error: String(error) });
    });
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }
}

/** The head read again: the same seq and hash as `head` (nobody appended meanwhile). */
function sameHead(head: ChainHead, now: ChainHead | undefined): boolean {
  return now?.seq === head.seq && now.hash === head.hash;
}

/** The head names another hash than the entry at its seq has: the entries were rewritten. */
function headMismatch(head: ChainHead | undefined, chained: AuditEntry[]): AuditProblem | undefined {
  const atHead = head ? chained.find((e) => e.seq === head.seq) : undefined;
  if (!head || !atHead || atHead.hash === head.hash) return undefined;
  return {
    kind: 'head-mismatch',
    text: `the entry at seq ${head.seq} has hash ${short(atHead.hash ?? '')}, but the head names ${short(head.hash)}: the entries were rewritten`,
  };
}

/** What a check says of the archive: its folder, segments, and how far it holds the chain. */
function archiveSummary(folder: string, report: ArchiveReport): NonNullable<AuditCheck['archive']> {
  return {
    folder,
    segments: report.segments,
    ...(report.verifiedHead
      ? { through: report.verifiedHead.seq, lastAt: report.verifiedHead.writtenAt }
      : {}),
    ...(report.last ? { lastSegment: report.last.segment } : {}),
  };
}
