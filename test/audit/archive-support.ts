// The set-up the archive tests share: one clock reading, two replicas with the log's first entries, the
// log's chain as a writer reads it, an archive and a keeper on the test's folder, a store whose archive
// lock lapsed, a claim left by a writer that is gone, and a writer's look at its claim's owner frozen
// at its first read.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditArchive, CLAIM_ABANDONED_MS, type VerifiedChain } from '../../src/audit/archive.js';
import { CLAIM_OWNER_FILE } from '../../src/audit/archive-claims.js';
import { AuditKeeper } from '../../src/audit/keeper.js';
import { AuditLog } from '../../src/audit/log.js';
import { CLAIMS_DIR } from '../../src/audit/segments.js';
import { type AuditSigner, HeadMarks } from '../../src/audit/signing.js';
import type { Logger } from '../../src/log.js';
import type { Store } from '../../src/store/index.js';
import { auditDraft } from '../support/engine.js';
import { LapsedLock } from '../support/lapsed-lock.js';
import type { Replicas } from '../support/shared-stores.js';

export const NOW = new Date('2026-11-02T10:00:00.000Z');

export type ArchiveOptions = ConstructorParameters<typeof AuditArchive>[0];

/** The sandbox chain of `log`, as a writer is handed it. */
export const chainOf = (log: AuditLog) => async (): Promise<VerifiedChain> => ({
  entries: await log.entries('sandbox'),
  head: await log.head('sandbox'),
});

export async function appendMany(log: AuditLog, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) await log.append('sandbox', auditDraft(n));
}

/**
 * Two replicas named `name` on the test's store kind (the `replicas` fixture), and the audit log on the
 * first with its first `count` entries appended.
 */
export async function loggedReplicas(
  replicas: (name: string) => Promise<Replicas>,
  name: string,
  count: number,
): Promise<Replicas & { log: AuditLog }> {
  const { a, b } = await replicas(name);
  const log = new AuditLog(a);
  await appendMany(log, 0, count);
  return { a, b, log };
}

/** A sandbox archive on `store` in `dir`, signed by `signer`, at NOW unless `options` say otherwise. */
export function archiveIn(
  dir: string,
  signer: AuditSigner,
  store: Store,
  options: Partial<ArchiveOptions> = {},
): AuditArchive {
  return new AuditArchive({ store, dir, environment: 'sandbox', signer, now: () => NOW, ...options });
}

/** A sandbox archive on `store` in `archive` of the test's folder, at NOW unless `options` say otherwise. */
export function archiveOn(
  store: Store,
  { auditDir, signer }: { auditDir: string; signer: AuditSigner },
  options: Partial<ArchiveOptions> = {},
): AuditArchive {
  return archiveIn(join(auditDir, 'archive'), signer, store, options);
}

/** The store as a writer sees it once its archive lock lapsed: it no longer keeps another writer out. */
export const lapsed = (store: Store): Store => new LapsedLock('approvals:audit-archive').wrap(store);

/** A keeper of `log` on `store` at NOW, archiving in the test's folder and logging to `logger`. */
export function keeperOn(
  store: Store,
  log: AuditLog,
  { auditDir, signer }: { auditDir: string; signer: AuditSigner },
  logger: Logger,
): AuditKeeper {
  return new AuditKeeper({
    store,
    log,
    environment: 'sandbox',
    openRequests: async () => [],
    seal: { signer, marks: new HeadMarks(join(auditDir, 'heads.json')) },
    archiveDir: join(auditDir, 'archive'),
    now: () => NOW,
    logger,
  });
}

/**
 * A claim of seq 0 in `folder` (an environment's archive) made by `replica-gone` as long ago as makes
 * it abandoned at NOW; returns when it was made.
 */
export function abandonedClaim(folder: string): string {
  const claim = join(folder, CLAIMS_DIR, '0000000000');
  mkdirSync(claim, { recursive: true });
  const at = new Date(NOW.getTime() - CLAIM_ABANDONED_MS).toISOString();
  writeFileSync(join(claim, CLAIM_OWNER_FILE), JSON.stringify({ owner: 'replica-gone', at }));
  return at;
}

/**
 * node's readFileSync, but a writer's second look at its claim's owner reads what its first did: it
 * read its own owner, then froze while another writer took the claim over.
 */
export function ownerFrozenAfterFirstRead(): NonNullable<ArchiveOptions['readFile']> {
  let seen: Buffer | undefined;
  let ownerReads = 0;
  return (path) => {
    if (!path.endsWith(`/${CLAIM_OWNER_FILE}`)) return readFileSync(path);
    ownerReads += 1;
    if (ownerReads === 1) seen = readFileSync(path);
    return ownerReads <= 2 && seen ? seen : readFileSync(path);
  };
}
