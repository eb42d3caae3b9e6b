// Writes the audit chain out of the store, into write-once segments in a folder (CNGN_AUDIT_ARCHIVE):
// each new segment holds the chained entries after the last archived one, up to the head, signed with
// the audit key. Exactly once across replicas: the writer holds the archive's lock in the store, reads
// the folder itself (the record in the store only says what was written last), and writes only what
// follows the folder's last segment that verifies. A lock can lapse (a failover, a writer stalled past
// its lease), so the folder decides too: a writer first claims its segment's first seq under `.claims/`
// with an exclusive mkdir, and one that finds it claimed stops this round. Files are created with 'wx',
// readable by the bot's user alone, in a fresh folder inside the claim that is then renamed to a name no
// segment had: nothing is rewritten. A claim abandoned long enough is taken over by renaming it away
// (one renamer wins) and claiming afresh, so a stalled writer's staged folder goes with the old claim and
// its own final rename finds nothing to move. A failed write gives its claim back the same way: renamed
// away first, then removed, never removed in place where another writer may have staged.
import { randomUUID } from 'node:crypto';
import { type Dirent, existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { crashPoint } from '../crash-points.js';
import type { Store } from '../store/index.js';
import {
  CLAIM_OWNER_FILE,
  type ClaimsFileSystem,
  claimHolder,
  claimName,
  clearAbandoned,
  exclusiveDir,
  FOLDER_MODE,
  giveBack,
  holderText,
  type Note,
  ownerText,
  removeAbandoned,
  removeAll,
  syncFolder,
  writeOnce,
} from './archive-claims.js';
import type { ListFolder } from './archive-find.js';
import { unsignedManifest } from './archive-manifest.js';
import { type ArchiveOutcome, refused, taken, withNotes } from './archive-outcome.js';
import { type ChainHead, chainedBetween, continues } from './chain.js';
import { short } from './crypto.js';
import {
  type ArchiveReport,
  CLAIMS_DIR,
  ENTRIES_FILE,
  entriesText,
  INCOMING_DIR,
  MANIFEST_FILE,
  manifestText,
  type ReadArchiveFile,
  readSegment,
  type SegmentChecks,
  type SegmentManifest,
  type SegmentOnDisk,
  segmentName,
  UNREADABLE_CODES,
  verifySegments,
} from './segments.js';
import type { AuditSigner } from './signing.js';
import type { AuditEntry, ServiceEnvironment } from './types.js';

/** The last segment written, as the store remembers it (the folder is what counts). */
export interface ArchiveRecord {
  segment: string;
  lastSeq: number;
  hash: string;
  at: string;
}

/**
 * The store's chain, checked: its entries and the head they were checked against (none: the chain is
 * empty), or why not.
 */
export type VerifiedChain = { entries: AuditEntry[]; head: ChainHead | undefined } | { why: string };

const recordKey = (environment: ServiceEnvironment) => `approvals:audit-archived:${environment}`;
const lockName = (environment: ServiceEnvironment) => `approvals:audit-archive:${environment}`;
/**
 * A claim no segment follows is taken as abandoned (its writer stopped between claim and rename) only
 * this long after it was made: many times the lock's lease, so a writer under way is never overtaken.
 */
export const CLAIM_ABANDONED_MS = 10 * 60_000;
/** Why an archive folder could not be read, in words. */
const readError = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

export type { ArchiveOutcome };

/** One write's own: the claim id its claim names, and where its notes go. */
interface WriteTurn {
  claimId: string;
  note: Note;
}

export class AuditArchive {
  /** This environment's folder of the archive. */
  readonly folder: string;
  /** Each segment's check, by its files' content: a read checks only what is new or changed. */
  private readonly checks: SegmentChecks = new Map();
  /** This writer (its process), as its claims name it; each write's claim also names that write (`claimId`). */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** The claim ids of this writer's writes under way: a claim of its own with none of them is a failed write's. */
  private readonly underWay = new Set<string>();

  constructor(
    private readonly options: {
      store: Store;
      /** The archive's folder (CNGN_AUDIT_ARCHIVE); each environment has a folder in it. */
      dir: string;
      environment: ServiceEnvironment;
      signer: AuditSigner;
      now: () => Date;
      /** How the folder is listed: node's readdirSync (a test stands in a failing one). */
      list?: ListFolder;
      /** How the archive's files are read: node's readFileSync (a test stands in a failing one). */
      readFile?: ReadArchiveFile;
      /** How a folder is removed, whole: node's rm (a test stands in a failing one). */
      remove?: (path: string) => Promise<void>;
      /** Awaited between claiming a seq and staging its segment: a test stalls a writer there. */
      claimed?: () => Promise<void>;
      /** Awaited between staging a segment and renaming it: a test stalls a writer there. */
      staged?: () => Promise<void>;
      /** Told each note as it happens, so a write that throws afterwards loses none (the keeper logs them). */
      onNote?: Note;
    },
  ) {
    this.folder = join(options.dir, options.environment);
  }

  /** Check this environment's segments against the bot's own key. */
  read(): ArchiveReport {
    let segments: SegmentOnDisk[];
    try {
      segments = this.segmentNames().map((name) =>
        readSegment(join(this.folder, name), this.options.readFile),
      );
    } catch (error) {
      // A folder the bot cannot read (restored as another user) is a broken archive, not an error to log;
      // a passing failure (out of file handles, a busy disk) is an error: the check fails with a warning.
      if (!UNREADABLE_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      segments = [
        {
          name: this.options.environment,
          path: this.folder,
          unreadable: `the folder ${this.folder} cannot be read (${readError(error)})`,
        },
      ];
    }
    return verifySegments(
      this.options.environment,
      segments,
      [this.options.signer.publicKey],
      false,
      this.checks,
    );
  }

  /**
   * Remove what a writer stopped part-way (a kill, a power cut) left in `.incoming/`: under the lock.
   * Claims are left alone: a writer whose lock lapsed may still be under way with one (claim() tells an
   * abandoned claim by its age). True when there was something; false too when the folder cannot be
   * read, which the check reports (read()).
   */
  clearIncoming(): Promise<boolean> {
    const incoming = join(this.folder, INCOMING_DIR);
    return this.options.store.withLock(
      lockName(this.options.environment),
      async () => {
        try {
          const left = existsSync(incoming) && readdirSync(incoming).length > 0;
          await rm(incoming, { recursive: true, force: true });
          return left;
        } catch {
          return false;
        }
      },
      { waitMs: 30_000 },
    );
  }

  /** What the store says was written last. */
  record(): Promise<ArchiveRecord | undefined> {
    return this.options.store.get<ArchiveRecord>(recordKey(this.options.environment));
  }

  /**
   * Write the entries after the last archived one as a new segment. `dueEveryMs`: only when the last
   * segment (none yet: the oldest entry not archived) is at least that old. `chain` is read under the
   * lock, after the folder, so the segment continues exactly from the folder's last one.
   */
  write(reason: string, chain: () => Promise<VerifiedChain>, dueEveryMs?: number): Promise<ArchiveOutcome> {
    const { store, environment } = this.options;
    const notes: string[] = [];
    const note = (text: string) => {
      notes.push(text);
      // A logger that throws must not stop a write part-way: the note is in the outcome all the same.
      try {
        this.options.onNote?.(text);
      } catch {}
    };
    const locked = async () => {
      const claimId = randomUUID();
      this.underWay.add(claimId);
      try {
        return withNotes(await this.writeLocked(reason, chain, dueEveryMs, { claimId, note }), notes);
      } finally {
        this.underWay.delete(claimId);
      }
    };
    return store.withLock(lockName(environment), locked, { waitMs: 30_000 });
  }

  private async writeLocked(
    reason: string,
    chain: () => Promise<VerifiedChain>,
    dueEveryMs: number | undefined,
    turn: WriteTurn,
  ): Promise<ArchiveOutcome> {
    const now = this.options.now();
    const report = this.read();
    const [problem] = report.problems;
    if (problem) return refused(`the archive does not verify (${problem.segment}: ${problem.text})`);
    const through = report.verifiedHead;
    const recorded = await this.record();
    const lacking = this.lacking(recorded, through);
    if (lacking) return lacking;
    const due = (since: string) => !dueEveryMs || now.getTime() - Date.parse(since) >= dueEveryMs;
    if (through && !due(through.writtenAt))
      return { written: false, reason: 'not-due', through: through.seq };
    const checked = await chain();
    if ('why' in checked) return refused(`the chain in the store does not verify: ${checked.why}`);
    const from = through?.seq ?? -1;
    const upTo = checked.head?.seq ?? -1;
    const entries = chainedBetween(checked.entries, from, upTo);
    const first = entries[0];
    const last = entries.at(-1);
    if (!first || !last)
      return { written: false, reason: 'nothing-new', ...(through ? { through: from } : {}) };
    if (!through && !due(first.at)) return { written: false, reason: 'not-due' };
    if (through && !continues(through, first)) {
      return refused(
        `the store's chain does not continue from the archive's last segment ${through.segment} (seq ${through.seq}, hash ${short(through.hash)}): its next entry there is seq ${first.seq}`,
      );
    }
    return this.writeSegment(entries, through, recorded, { now, reason, ...turn });
  }

  /** Sign `entries` (chained, in order, at least one) after `through`, claim their first seq, write them. */
  private async writeSegment(
    entries: AuditEntry[],
    through: ArchiveReport['verifiedHead'],
    recorded: ArchiveRecord | undefined,
    { now, reason, ...turn }: WriteTurn & { now: Date; reason: string },
  ): Promise<ArchiveOutcome> {
    const text = entriesText(entries);
    const { environment, signer } = this.options;
    const unsigned = unsignedManifest(
      { entries, through, text },
      { environment, now, reason, key: signer.publicKey },
    );
    const manifest: SegmentManifest = {
      ...unsigned,
      signature: this.options.signer.sign(manifestText(unsigned)),
    };
    const name = segmentName(unsigned.firstSeq, unsigned.lastSeq, now);
    const claim = await this.claim(unsigned.firstSeq, turn);
    if (claim) return claim;
    const staging = join(this.folder, CLAIMS_DIR, claimName(unsigned.firstSeq), `staged-${randomUUID()}`);
    try {
      await this.options.claimed?.();
      const files = { entries: text, manifest: `${JSON.stringify(manifest, null, 2)}\n` };
      await this.put(name, files, unsigned.firstSeq, turn.claimId, staging);
    } catch (error) {
      // Still under the lock: a claim no segment follows would refuse every later write.
      await this.unclaim(unsigned.firstSeq, staging, turn).catch((kept: unknown) => {
        const what = error instanceof Error ? error.message : String(error);
        throw new Error(
          `${what}; this writer's claim of seq ${unsigned.firstSeq} could not be given back (${readError(kept)}): this writer takes it back at its next write, another replica (or the bot restarted) ${CLAIM_ABANDONED_MS / 60_000} minutes after it was made`,
          { cause: error },
        );
      });
      throw error;
    }
    crashPoint('audit-segment-renamed');
    await this.recordWritten(recorded, {
      segment: name,
      lastSeq: unsigned.lastSeq,
      hash: unsigned.head.hash,
      at: unsigned.writtenAt,
    });
    return {
      written: true,
      segment: name,
      firstSeq: unsigned.firstSeq,
      lastSeq: unsigned.lastSeq,
      count: entries.length,
    };
  }

  /**
   * Claim the first seq of the segment about to be written: an exclusive mkdir, so of two writers that
   * read the same folder one wins. A claim no segment follows, made longer ago than CLAIM_ABANDONED_MS,
   * is taken over: renamed away (an atomic rename: one writer alone wins it), then claimed afresh with the
   * same exclusive mkdir. A takeover stopped between the two leaves no claim: the next writer claims as
   * usual. A claim whose owner file cannot be read is dated by its folder. Nothing when claimed; otherwise
   * why this writer stops. What an operator should hear of (a takeover) goes to `note`.
   */
  private async claim(firstSeq: number, turn: WriteTurn): Promise<ArchiveOutcome | undefined> {
    const { note } = turn;
    const claims = join(this.folder, CLAIMS_DIR);
    await mkdir(claims, { recursive: true, mode: FOLDER_MODE });
    await clearAbandoned(claims, this.fileSystem(), note);
    const path = join(claims, claimName(firstSeq));
    if (await this.claimAfresh(path, turn)) return this.unlessWritten(firstSeq);
    const written = this.unlessWritten(firstSeq);
    if (written) return written;
    const held = await claimHolder(path, this.options.readFile);
    if (!held) {
      // Renamed away by a takeover between the mkdir and now: claim it, unless another got there first.
      if (await this.claimAfresh(path, turn)) return this.unlessWritten(firstSeq);
      return taken(`another replica claimed seq ${firstSeq} meanwhile`);
    }
    const age = this.options.now().getTime() - held.at;
    // This writer's own claim (its owner names this instance alone, never a restarted or another replica)
    // whose write is no longer under way: a failed write left it, so it is taken back at once. One naming
    // no write (an older version's) only while no other write of this writer is under way.
    const leftByThisWriter =
      held.owner === this.owner &&
      (held.claimId ? !this.underWay.has(held.claimId) : this.underWay.size === 1);
    if (age < CLAIM_ABANDONED_MS && !leftByThisWriter) {
      return refused(
        `seq ${firstSeq} is claimed in ${claims} (by ${holderText(held)}), but no segment starting there is in the folder: a writer is under way, or one was stopped part-way (its claim is taken over ${CLAIM_ABANDONED_MS / 60_000} minutes after it was made)`,
      );
    }
    const abandoned = join(claims, `.${claimName(firstSeq)}-abandoned-${randomUUID()}`);
    try {
      await rename(path, abandoned);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return taken(`another replica took over the abandoned claim of seq ${firstSeq} meanwhile`);
    }
    note(`took over the abandoned claim of seq ${firstSeq} (by ${holderText(held)})`);
    const claimed = await this.claimAfresh(path, turn);
    // What the abandoned claim staged is no segment: its folder goes, now or at the next segment.
    await removeAbandoned(abandoned, this.fileSystem(), note);
    if (claimed) return this.unlessWritten(firstSeq);
    return taken(`another replica claimed seq ${firstSeq} meanwhile`);
  }

  /** The listing and removal the claims' clearing uses: node's, or a test's stand-ins. */
  private fileSystem(): ClaimsFileSystem {
    return { list: this.options.list ?? readdirSync, remove: this.options.remove ?? removeAll };
  }

  /** The claims' file system, with how an owner file is read and the segment starting at a seq found. */
  private claimsAccess(firstSeq: number) {
    const read = this.options.readFile ? { read: this.options.readFile } : {};
    return { ...this.fileSystem(), ...read, published: () => this.segmentStarting(firstSeq) };
  }

  /**
   * Once claimed: taken when a segment starting at `firstSeq` is in the folder after all. A writer
   * publishes only while its claim is in place, so one that finished just before a takeover's rename
   * (or before a claim made afresh) shows in a listing made after it.
   */
  private unlessWritten(firstSeq: number): ArchiveOutcome | undefined {
    const written = this.segmentStarting(firstSeq);
    if (!written) return undefined;
    return taken(
      `another replica wrote segment ${written} (from seq ${firstSeq}) meanwhile; the next round continues from it`,
    );
  }

  /** An exclusive mkdir of the claim, then this write's owner file in it: false when it exists already. */
  private async claimAfresh(path: string, { claimId, note }: WriteTurn): Promise<boolean> {
    if (!(await exclusiveDir(path))) return false;
    try {
      await writeOnce(join(path, CLAIM_OWNER_FILE), ownerText(this.owner, claimId, this.options.now()));
    } catch (error) {
      // A claim without its owner would be dated by its folder: give it back instead. The owner file's
      // error is the one thrown; one giving the claim back goes with it.
      await giveBack(path, claimId, this.claimsAccess(Number(basename(path))), note).catch(
        (kept: unknown) => {
          if (error instanceof Error && error.cause === undefined) error.cause = kept;
        },
      );
      throw error;
    }
    return true;
  }

  /**
   * A write that failed after its claim: its staged folder goes, and the claim when it is still this
   * writer's and no segment starts there. Another's claim is left, as is one not told this writer's (thrown).
   */
  private async unclaim(firstSeq: number, staging: string, { claimId, note }: WriteTurn): Promise<void> {
    await rm(staging, { recursive: true, force: true });
    if (this.segmentStarting(firstSeq) || !(await this.owns(firstSeq, claimId))) return;
    const path = join(this.folder, CLAIMS_DIR, claimName(firstSeq));
    await giveBack(path, claimId, this.claimsAccess(firstSeq), note);
  }

  /**
   * Whether the claim of `firstSeq` is still the one write `claimId` made: another write's, of this
   * process or not, is not (a passing failure to read it is thrown).
   */
  private async owns(firstSeq: number, claimId: string): Promise<boolean> {
    const held = await claimHolder(join(this.folder, CLAIMS_DIR, claimName(firstSeq)), this.options.readFile);
    return held?.claimId === claimId;
  }

  /** The segment of the folder starting at `firstSeq`, if any. */
  private segmentStarting(firstSeq: number): string | undefined {
    return this.segmentNames().find((name) => name.startsWith(`${claimName(firstSeq)}-`));
  }

  /** The folder's segment names, in order. */
  private segmentNames(): string[] {
    let listed: Dirent[];
    try {
      listed = (this.options.list ?? readdirSync)(this.folder, { withFileTypes: true });
    } catch (error) {
      // No folder yet: no segment. Any other failure (a root the bot may not enter) is the caller's.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return listed
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  }

  /**
   * The store's record of the last segment, moved only forward: compare-and-set from the value read,
   * again from the newer value while that one is still behind this segment.
   */
  private async recordWritten(read: ArchiveRecord | undefined, next: ArchiveRecord): Promise<void> {
    const key = recordKey(this.options.environment);
    let expected = read;
    while (!expected || expected.lastSeq < next.lastSeq) {
      if (await this.options.store.compareAndSet<ArchiveRecord>(key, expected, next)) return;
      expected = await this.record();
    }
  }

  /** The store records a segment the folder lacks: another replica writes to another folder. */
  private lacking(
    record: ArchiveRecord | undefined,
    through: ArchiveReport['verifiedHead'],
  ): ArchiveOutcome | undefined {
    if (!record || record.lastSeq <= (through?.seq ?? -1)) return undefined;
    return refused(
      `${this.folder} lacks segment ${record.segment} (to seq ${record.lastSeq}), which the store says was written on ${record.at}: every replica must write to the same folder (CNGN_AUDIT_ARCHIVE)`,
    );
  }

  /**
   * Both files, read-only, in a fresh folder inside the claim, then that folder renamed to the segment's
   * name. A claim taken over while this writer stalled was renamed away with its staged folder: the
   * rename finds nothing to move and nothing is written.
   */
  private async put(
    name: string,
    { entries, manifest }: { entries: string; manifest: string },
    firstSeq: number,
    claimId: string,
    staging: string,
  ): Promise<void> {
    const takenOver = () =>
      new Error(
        `the claim of seq ${firstSeq} was taken over while this writer was stalled; nothing was written`,
      );
    // A claim (or the staged folder in it) moved away by a takeover: nothing is there to write in.
    const unlessMoved = (error: unknown) => {
      throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? takenOver() : error;
    };
    await mkdir(staging, { mode: FOLDER_MODE }).catch(unlessMoved);
    // Made in this write's claim: a claim once moved away never comes back (one made afresh names another
    // write), so one still this write's after the mkdir held the staged folder all along, which from now
    // on goes wherever the claim goes.
    if (!(await this.owns(firstSeq, claimId))) throw takenOver();
    await writeOnce(join(staging, ENTRIES_FILE), entries).catch(unlessMoved);
    await writeOnce(join(staging, MANIFEST_FILE), manifest).catch(unlessMoved);
    crashPoint('audit-segment-staged');
    await this.options.staged?.();
    const target = join(this.folder, name);
    if (existsSync(target)) throw new Error(`audit segment ${target} exists already; nothing was written`);
    await rename(staging, target).catch(unlessMoved);
    await syncFolder(this.folder);
  }
}
