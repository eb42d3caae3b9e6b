// The signed audit archive's test set-up: a folder of its own for each test (the archive, the marks
// file), a fresh Ed25519 signing key, and an audit log with its keeper on a store, as the engine wires
// them. `auditTest` is storesTest plus these, so a file can run them on every store kind. And a store
// edit made before the bot archived: a segment's entries changed, chained again and signed with the key.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../../src/approvals/types.js';
import { chainEntry } from '../../src/audit/chain.js';
import { sha256Hex } from '../../src/audit/crypto.js';
import { AuditKeeper } from '../../src/audit/keeper.js';
import { AuditLog } from '../../src/audit/log.js';
import { ENTRIES_FILE, entriesText, MANIFEST_FILE, manifestText } from '../../src/audit/segments.js';
import { type AuditSeal, AuditSigner, HeadMarks } from '../../src/audit/signing.js';
import type { Store } from '../../src/store/index.js';
import { storesTest } from './shared-stores.js';

/** A fresh signing key, as `openssl genpkey -algorithm ed25519` would make. */
export function newSigner(origin = 'test key'): AuditSigner {
  return new AuditSigner(generateKeyPairSync('ed25519').privateKey, origin);
}

export interface AuditReplica {
  log: AuditLog;
  keeper: AuditKeeper;
  seal: AuditSeal;
}

export interface ReplicaOptions {
  /** Default: the test's key. */
  signer?: AuditSigner;
  /** The marks file (default: one per replica in the test's folder). */
  marks?: string;
  /** Open requests the keeper sees (default none). */
  openRequests?: () => Promise<unknown[]>;
  retentionMs?: number;
  archiveEveryMs?: number;
  /** The archive's folder (default: `archive` in the test's folder). */
  archiveDir?: string;
  now?: () => Date;
}

export const auditTest = storesTest
  .extend('auditDir', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-audit-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('signer', async () => newSigner())
  .extend('auditReplica', async ({ auditDir, signer }) => {
    let made = 0;
    /** An audit log and its keeper on `store`, writing the archive in the test's folder. */
    return (store: Store, options: ReplicaOptions = {}): AuditReplica => {
      made += 1;
      const seal: AuditSeal = {
        signer: options.signer ?? signer,
        marks: new HeadMarks(options.marks ?? join(auditDir, `heads-${made}.json`)),
      };
      const log = new AuditLog(store);
      const keeper = new AuditKeeper({
        store,
        log,
        environment: 'sandbox',
        openRequests: options.openRequests ?? (async () => []),
        seal,
        archiveDir: options.archiveDir ?? join(auditDir, 'archive'),
        archiveEveryMs: options.archiveEveryMs,
        retentionMs: options.retentionMs,
        now: options.now ?? (() => new Date()),
      });
      return { log, keeper, seal };
    };
  });

/**
 * What a store edit before archiving leaves: the one segment in `folder` (an environment's) with its
 * entries changed by `change`, chained again and signed with the bot's key, as the bot would archive them.
 */
export function rewriteSegment(
  folder: string,
  signer: AuditSigner,
  change: (entries: AuditEntry[]) => AuditEntry[],
): void {
  const [name] = readdirSync(folder).filter((n) => !n.startsWith('.'));
  const segment = join(folder, name ?? '');
  const read = readFileSync(join(segment, ENTRIES_FILE), 'utf8').trim().split('\n');
  let previous: AuditEntry | undefined;
  const entries = change(read.map((line) => JSON.parse(line) as AuditEntry)).map((entry) => {
    const { seq: _seq, prev: _prev, hash: _hash, ...draft } = entry;
    previous = chainEntry(draft, previous);
    return previous;
  });
  const text = entriesText(entries);
  const manifest = JSON.parse(readFileSync(join(segment, MANIFEST_FILE), 'utf8'));
  const last = entries.at(-1) as AuditEntry;
  const unsigned = {
    ...manifest,
    lastSeq: last.seq,
    count: entries.length,
    head: { seq: last.seq, hash: last.hash },
    entries: { ...manifest.entries, sha256: sha256Hex(text), bytes: Buffer.byteLength(text) },
  };
  delete unsigned.signature;
  rmSync(join(segment, ENTRIES_FILE), { force: true });
  rmSync(join(segment, MANIFEST_FILE), { force: true });
  writeFileSync(join(segment, ENTRIES_FILE), text);
  writeFileSync(
    join(segment, MANIFEST_FILE),
    JSON.stringify({ ...unsigned, signature: signer.sign(manifestText(unsigned)) }),
  );
}

/** One byte of a base64url value changed (at `index` from the end). */
export function flipByte(value: string, index = 1): string {
  const bytes = Buffer.from(value, 'base64url');
  const at = bytes.length - index;
  bytes[at] = (bytes[at] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}
