// The audit signing key and what it guards in the store. Each chain head is signed (never the key: it
// stays outside the store), so a head rewritten by someone with write access to the store but not the
// key no longer verifies. A signed head that is genuine but old (the newest entries removed and an
// earlier head put back) still verifies, so each process also keeps, outside the store, the newest head
// it signed or checked: its mark. A head behind the mark is a rollback.
import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { lagosTime } from '../format/display.js';
import type { ChainHead } from './chain.js';
import { headText, publicKeyHex, short, signatureHolds } from './crypto.js';
import { MARKS_FILE_LOCK, type MarksFileLock, removeLeftovers, updateMarksFile } from './marks-file.js';

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

/**
 * The marks, in a small file outside the store (or in memory when there is no file: a memory store,
 * gone with the process anyway). Several processes sharing the file only ever raise a mark, each write
 * under the file's lock (marks-file.ts), so none is lost to another written at once. A file that cannot
 * be read at start stops the start; one that cannot be written later (or whose lock stays held) never
 * fails an append (the mark is kept in memory, and `warn` is told).
 */
export class HeadMarks {
  private readonly marks = new Map<string, HeadMark>();
  /** The file's modification time and size when last read or written (another process changes them). */
  private seen = '';
  private readonly lock: MarksFileLock;

  constructor(
    private readonly file?: string,
    private readonly warn?: (message: string, fields: Record<string, unknown>) => void,
    lock: Partial<MarksFileLock> = {},
  ) {
    this.lock = { ...MARKS_FILE_LOCK, ...lock };
    if (file) removeLeftovers(file);
    this.seen = this.stamp();
    for (const [environment, mark] of Object.entries(this.readFile())) this.marks.set(environment, mark);
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

  private put(environment: string, mark: HeadMark, lower: boolean): void {
    this.marks.set(environment, mark);
    if (!this.file) return;
    try {
      updateMarksFile(
        this.file,
        (current) => {
          // Another process sharing the file may have raised it meanwhile: keep the higher mark.
          const stored = this.parse(current);
          const theirs = stored[environment];
          const mine = !lower && theirs && theirs.seq > mark.seq ? theirs : mark;
          this.marks.set(environment, mine);
          return `${JSON.stringify({ ...stored, [environment]: mine }, null, 2)}\n`;
        },
        this.lock,
      );
      this.seen = this.stamp();
    } catch (error) {
      this.warn?.('the audit head mark could not be written; kept in memory', {
        file: this.file,
        error: String(error),
      });
    }
  }

  /** Read the file again when it changed since (a stat per call): keep the higher mark of each. */
  private catchUp(): void {
    const stamp = this.stamp();
    if (stamp === this.seen) return;
    this.seen = stamp;
    try {
      for (const [environment, theirs] of Object.entries(this.readFile())) {
        const mine = this.marks.get(environment);
        if (!mine || theirs.seq > mine.seq) this.marks.set(environment, theirs);
      }
    } catch (error) {
      this.warn?.('the audit head marks could not be read again; the marks in memory hold', {
        file: this.file,
        error: String(error),
      });
    }
  }

  private stamp(): string {
    if (!this.file) return '';
    try {
      const { mtimeMs, size, ino } = statSync(this.file);
      return `${mtimeMs}:${size}:${ino}`;
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

  /** The marks in the file's text (undefined: no file yet). */
  private parse(text: string | undefined): Record<string, HeadMark> {
    if (text === undefined) return {};
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, HeadMark>) : {};
  }
}

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
  | 'head-entry-foreign';

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
  const marked = mark ? `seq ${mark.seq} (signed or checked ${lagosTime(mark.at)})` : '';
  if (!head) {
    return mark
      ? { kind: 'head-missing', text: `the head record is gone, but this bot signed or checked ${marked}` }
      : undefined;
  }
  if (!head.signature) {
    return mark
      ? {
          kind: 'head-unsigned',
          text: `the head at seq ${head.seq} carries no signature, but this bot signed or checked ${marked}`,
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
  if (mark && head.seq < mark.seq) {
    return {
      kind: 'head-rolled-back',
      text: `the head is at seq ${head.seq}, but this bot signed or checked ${marked}: the newest entries were removed and an older head put back`,
    };
  }
  if (mark && head.seq === mark.seq && head.hash !== mark.hash) {
    return {
      kind: 'head-replaced',
      text: `the head at seq ${head.seq} has hash ${short(head.hash)}, but this bot signed or checked hash ${short(mark.hash)} there`,
    };
  }
  return undefined;
}
