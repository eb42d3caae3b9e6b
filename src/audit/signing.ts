// The audit signing key and what it guards in the store. Each chain head is signed (never the key: it
// stays outside the store), so a head rewritten by someone with write access to the store but not the
// key no longer verifies. A signed head that is genuine but old (the newest entries removed and an
// earlier head put back) still verifies, so each process also keeps, outside the store, the newest head
// it signed or checked: its mark. A head behind the mark is a rollback.
import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { mkdirSync, readFileSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { lagosTime } from '../format/display.js';
import type { ChainHead } from './chain.js';
import { headText, publicKeyHex, short, signatureHolds } from './crypto.js';
import { removeLeftovers, updateMarksFile } from './marks-file.js';

/** The key as CNGN_AUDIT_SIGNING_KEY holds it: PKCS#8 PEM (`openssl genpkey -algorithm ed25519`). */
export function parseSigningKey(pem: string): KeyObject {
  const text = pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem;
  let key: KeyObject;
  try {
    key = createPrivateKey(text.trim());
  } catch {
    throw new Error(
      'is not a private key in PEM form (make one with: openssl genpkey -algorithm ed25519 -out audit-signing-key.pem)',
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`is a ${key.asymmetricKeyType ?? 'secret'} key; the audit is signed with an Ed25519 key`);
  }
  return key;
}

export class AuditSigner {
  /** The public key, 64 hex digits: what an auditor checks the archive against. */
  readonly publicKey: string;

  constructor(
    private readonly key: KeyObject,
    /** Where the key came from, for the log and `/cngn audit verify` (a path or a variable; never the key). */
    readonly origin: string,
  ) {
    this.publicKey = publicKeyHex(key);
  }

  /** Ed25519 signature of the text, base64. */
  sign(text: string): string {
    return sign(null, Buffer.from(text, 'utf8'), this.key).toString('base64');
  }

  /** The head with this key's signature of its environment, seq and hash. */
  signHead(environment: string, head: ChainHead): ChainHead {
    const value = this.sign(headText(environment, head.seq, head.hash));
    return { ...head, signature: { key: this.publicKey, value } };
  }
}

/**
 * The key in `file`, made there (readable by this user only) when the file does not exist yet. Two
 * processes making it at once: the one that loses reads the winner's.
 */
export function loadOrCreateSigningKey(
  file: string,
  refuse?: () => never,
): { signer: AuditSigner; created: boolean } {
  const read = () => new AuditSigner(parseSigningKey(readFileSync(file, 'utf8')), file);
  try {
    return { signer: read(), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A key made here lives only on this host's disk: where that would not do, the caller says why.
  refuse?.();
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { signer: read(), created: false };
    throw error;
  }
  return { signer: new AuditSigner(privateKey, file), created: true };
}

/** The newest head a process signed or found signed, per environment. */
export interface HeadMark {
  seq: number;
  hash: string;
  at: string;
}

/** The first retry of marks the file did not take; each one after waits twice as long, up to the cap. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
/** A lock held this long is more than another replica's write: `warn` is told. */
const LOCK_HELD_WARN_MS = 5_000;

/**
 * The marks, in a small file outside the store (or in memory when there is no file: a memory store,
 * gone with the process anyway). Several processes sharing the file only ever raise a mark, each write
 * under the file's lock (marks-file.ts), so none is lost to another written at once. A file that cannot
 * be read at start stops the start. A write never waits and never fails an append: when the lock is
 * held or the file cannot be written, the marks stay in memory as dirty, and all of them are written at
 * the next mark, or by a retry later (backing off to every few seconds); `warn` is told once per outage.
 */
export class HeadMarks {
  private readonly marks = new Map<string, HeadMark>();
  /** The file's marks when last read or written. */
  private fileMarks: Record<string, HeadMark> = {};
  /**
   * Environments whose mark in memory the file does not hold yet: whether it is a reset (it may lower
   * it), and the file's mark when it was put (`base`): a file mark other than that was written since.
   */
  private readonly dirty = new Map<string, { lower: boolean; base: HeadMark | undefined }>();
  /** The file's modification time and size when last read or written (another process changes them). */
  private seen = '';
  /** Since when the file has not taken the dirty marks, how many tries failed, whether `warn` was told. */
  private outage: { since: number; failures: number; warned: boolean } | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly file?: string,
    private readonly warn?: (message: string, fields: Record<string, unknown>) => void,
  ) {
    if (file) removeLeftovers(file);
    this.seen = this.stamp();
    this.fileMarks = this.readFile();
    for (const [environment, mark] of Object.entries(this.fileMarks)) this.marks.set(environment, mark);
  }

  /** Where the marks are kept, for the log and the docs' "where" (undefined: in memory). */
  get where(): string | undefined {
    return this.file;
  }

  /** The mark, raised to the file's when another process sharing the file raised it since. */
  get(environment: string): HeadMark | undefined {
    this.catchUp();
    return this.marks.get(environment);
  }

  /** Raise the mark to this head (never lowers it; see reset). */
  raise(environment: string, head: ChainHead, at: Date): void {
    const current = this.marks.get(environment);
    if (current && current.seq >= head.seq) return;
    this.put(environment, { seq: head.seq, hash: head.hash, at: at.toISOString() }, false);
  }

  /** Move the mark to this head even when it is lower: only once the difference is recorded in the chain. */
  reset(environment: string, head: ChainHead, at: Date): void {
    this.put(environment, { seq: head.seq, hash: head.hash, at: at.toISOString() }, true);
  }

  /** Tries once, now, to write the marks the file does not hold yet (at a stop, say); true when none is left. */
  writeNow(): boolean {
    if (this.file) this.flush(this.file);
    return this.dirty.size === 0;
  }

  /** At a stop: one last try to write the dirty marks, then no retry left to run. */
  close(): void {
    this.writeNow();
    clearTimeout(this.retry);
    this.retry = undefined;
  }

  private put(environment: string, mark: HeadMark, lower: boolean): void {
    // The file's mark as of now, so that one written after this put is told from one written before.
    this.catchUp();
    this.marks.set(environment, mark);
    if (!this.file) return;
    const kept = this.dirty.get(environment)?.lower === true;
    this.dirty.set(environment, { lower: lower || kept, base: this.fileMarks[environment] });
    this.flush(this.file);
  }

  /** Writes every dirty mark if the file's lock is free now; otherwise leaves them for a retry. */
  private flush(file: string): void {
    if (this.dirty.size === 0) return;
    try {
      let next: Record<string, HeadMark> = {};
      const written = updateMarksFile(file, (current) => {
        next = this.merged(this.parse(current));
        return `${JSON.stringify(next, null, 2)}\n`;
      });
      if (!written) {
        this.failed(
          'the audit head marks file stays locked by another writer; marks kept in memory until it is free',
        );
        return;
      }
      this.dirty.clear();
      this.fileMarks = next;
      this.seen = stampOf(written);
      this.outage = undefined;
      clearTimeout(this.retry);
      this.retry = undefined;
    } catch (error) {
      this.failed('the audit head mark could not be written; kept in memory and tried again', error);
    }
  }

  /**
   * The file's marks with every dirty one in, as `settled` has it. Memory takes the file's marks the same
   * way, as the file written is then the one last seen.
   */
  private merged(stored: Record<string, HeadMark>): Record<string, HeadMark> {
    this.takeHigher(stored);
    for (const environment of this.dirty.keys()) {
      const mark = this.marks.get(environment);
      if (mark) stored[environment] = mark;
    }
    return stored;
  }

  /** Each mark of `stored` higher than the one in memory; for a mark not written yet, as `settled` has it. */
  private takeHigher(stored: Record<string, HeadMark>): void {
    this.fileMarks = { ...stored };
    for (const [environment, theirs] of Object.entries(stored)) {
      const mine = this.marks.get(environment);
      const pending = this.dirty.get(environment);
      // A raise not written yet meets a reset written after it: the reset stands in the file, and memory
      // keeps this process's own mark (only its own reset lowers it, never what the file says).
      if (pending && !pending.lower && pending.base && theirs.seq < pending.base.seq) {
        this.dirty.delete(environment);
        continue;
      }
      const mark = mine && pending ? settled(mine, theirs, pending) : higher(mine, theirs);
      if (mark !== mine) this.marks.set(environment, mark);
    }
  }

  /**
   * Has the dirty marks tried again, backing off, and warns once per outage: at once for an error, for a
   * held lock only once it has been held a while (two writes at once hold each other up for milliseconds).
   */
  private failed(message: string, error?: unknown): void {
    const now = Date.now();
    const outage = this.outage ?? { since: now, failures: 0, warned: false };
    this.outage = outage;
    outage.failures += 1;
    if (!outage.warned && (error !== undefined || now - outage.since >= LOCK_HELD_WARN_MS)) {
      outage.warned = true;
      this.tell(message, { file: this.file, ...(error === undefined ? {} : { error: String(error) }) });
    }
    if (this.retry || !this.file) return;
    const file = this.file;
    const cap = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (outage.failures - 1));
    this.retry = setTimeout(
      () => {
        this.retry = undefined;
        this.flush(file);
      },
      cap / 2 + Math.random() * (cap / 2),
    );
    // A retry never keeps the process up: marks left dirty at exit are what an unwritable file loses too.
    this.retry.unref();
  }

  /** Read the file again when it changed since (a stat per call): keep the higher mark of each. */
  private catchUp(): void {
    const stamp = this.stamp();
    if (stamp === this.seen) return;
    this.seen = stamp;
    try {
      this.takeHigher(this.readFile());
    } catch (error) {
      this.tell('the audit head marks could not be read again; the marks in memory hold', {
        file: this.file,
        error: String(error),
      });
    }
  }

  /** Tells `warn`; a log that fails must not fail the append the mark came with. */
  private tell(message: string, fields: Record<string, unknown>): void {
    try {
      this.warn?.(message, fields);
    } catch {
      // Nothing else to tell it with: the marks in memory hold, and a retry still runs.
    }
  }

  private stamp(): string {
    if (!this.file) return '';
    try {
      return stampOf(statSync(this.file));
    } catch {
      return '';
    }
  }

  private readFile(): Record<string, HeadMark> {
    if (!this.file) return {};
    try {
      return this.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new Error(`the audit head marks in ${this.file} cannot be read: ${String(error)}`);
    }
  }

  /** The marks in the file's text (undefined: no file yet): only entries that are marks, in an object of its own. */
  private parse(text: string | undefined): Record<string, HeadMark> {
    const marks: Record<string, HeadMark> = {};
    if (text === undefined) return marks;
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return marks;
    for (const [environment, value] of Object.entries(parsed)) {
      if (isMark(value)) marks[environment] = { seq: value.seq, hash: value.hash, at: value.at };
    }
    return marks;
  }
}

function isMark(value: unknown): value is HeadMark {
  if (!value || typeof value !== 'object') return false;
  const { seq, hash, at } = value as Record<string, unknown>;
  return Number.isSafeInteger(seq) && typeof hash === 'string' && typeof at === 'string';
}

/** The higher of two marks (the first when they are level). */
function higher(mine: HeadMark | undefined, theirs: HeadMark): HeadMark {
  return !mine || theirs.seq > mine.seq ? theirs : mine;
}

/**
 * A mark not written yet against the file's. The file still holding the mark it held at the put: this
 * one. Changed since (another replica wrote after the put): the higher of the two; but a mark is kept
 * over a file mark lower than that of the put (a raise not written yet then leaves the file alone:
 * `takeHigher`). Memory never goes below this process's own mark but by its own reset.
 */
function settled(mine: HeadMark, theirs: HeadMark, { base }: { base?: HeadMark }): HeadMark {
  if (base && theirs.seq === base.seq && theirs.hash === base.hash) return mine;
  if (base && theirs.seq < base.seq) return mine;
  return higher(mine, theirs);
}

/** What tells one version of the marks file from another. */
const stampOf = ({ mtimeMs, size, ino }: Stats) => `${mtimeMs}:${size}:${ino}`;

/** What a chain's head may be found to be, other than signed by this key and at or past the mark. */
export type HeadProblemKind =
  /** Entries or a mark exist, but the head record is gone. */
  | 'head-missing'
  /** The head carries no signature, though this process has signed heads of this chain before. */
  | 'head-unsigned'
  /** Signed by another key (replaced, or another replica with a key of its own). */
  | 'head-other-key'
  /** Its signature does not cover its seq and hash: written without the key. */
  | 'head-forged'
  /** Signed, but older than a head this process signed or saw: the newest entries were removed. */
  | 'head-rolled-back'
  /** Signed, at the mark's place, with another hash. */
  | 'head-replaced'
  /**
   * The head's signature holds, but the log holds entries it does not cover (past its seq, or another
   * entry at its seq): the bot signs a head before it writes its entry, so someone else wrote them.
   */
  | 'entries-past-head'
  /** The head carries an entry (outside its signature) other than the one its seq and hash name. */
  | 'head-entry-foreign'
  /** The entry the next append links to no longer hashes to its own hash: it was edited. */
  | 'entry-edited';

export interface HeadProblem {
  kind: HeadProblemKind;
  /** In words, for the log, Slack and the chain (numbers and hashes only: nothing from outside). */
  text: string;
}

/** The signing key and the marks, as the audit log and its checks use them. */
export interface AuditSeal {
  signer: AuditSigner;
  marks: HeadMarks;
}

/**
 * Whether the head is one this key signed, at or past the mark. A head without a signature and no mark
 * (the chain was kept before it was signed) is no problem: it is signed from then on.
 */
export function headProblem(
  seal: AuditSeal,
  environment: string,
  head: ChainHead | undefined,
  /** The mark as it was before the head was read (a mark raised since could be past that head). */
  mark: HeadMark | undefined = seal.marks.get(environment),
): HeadProblem | undefined {
  if (!head) {
    return mark
      ? {
          kind: 'head-missing',
          text: `the head record is gone, but this bot signed or checked ${marked(mark)}`,
        }
      : undefined;
  }
  if (!head.signature) {
    return mark
      ? {
          kind: 'head-unsigned',
          text: `the head at seq ${head.seq} carries no signature, but this bot signed or checked ${marked(mark)}`,
        }
      : undefined;
  }
  if (head.signature.key !== seal.signer.publicKey) {
    return {
      kind: 'head-other-key',
      text: `the head at seq ${head.seq} is signed by key ${short(head.signature.key)}, not by this bot's key ${short(seal.signer.publicKey)}`,
    };
  }
  if (
    !signatureHolds(headText(environment, head.seq, head.hash), head.signature.value, seal.signer.publicKey)
  ) {
    return {
      kind: 'head-forged',
      text: `the head at seq ${head.seq} (hash ${short(head.hash)}) does not match its signature: it was written without the key`,
    };
  }
  return markProblem(head, mark);
}

/**
 * The mark as a problem names it. Only a problem's text formats its time: the Lagos formatter maps
 * megabytes of ICU data, which a restarted bot whose chain is sound need not hold.
 */
const marked = (mark: HeadMark) => `seq ${mark.seq} (signed or checked ${lagosTime(mark.at)})`;

/** Whether a head whose signature holds is behind the mark, or at the mark's seq with another hash. */
export function markProblem(head: ChainHead, mark: HeadMark | undefined): HeadProblem | undefined {
  if (!mark) return undefined;
  if (head.seq < mark.seq) {
    return {
      kind: 'head-rolled-back',
      text: `the head is at seq ${head.seq}, but this bot signed or checked ${marked(mark)}: the newest entries were removed and an older head put back`,
    };
  }
  if (head.seq === mark.seq && head.hash !== mark.hash) {
    return {
      kind: 'head-replaced',
      text: `the head at seq ${head.seq} has hash ${short(head.hash)}, but this bot signed or checked hash ${short(mark.hash)} there`,
    };
  }
  return undefined;
}
