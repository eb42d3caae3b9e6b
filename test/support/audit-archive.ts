// The signed audit archive's test set-up: a folder of its own for each test (the archive, the marks
// file), a fresh Ed25519 signing key, and an audit log with its keeper on a store, as the engine wires
// them. `auditTest` is storesTest plus these, so a file can run them on every store kind.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditKeeper } from '../../src/audit/keeper.js';
import { AuditLog } from '../../src/audit/log.js';
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
