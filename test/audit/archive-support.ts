// The set-up the archive claim tests share: one clock reading, the log's chain as a writer reads it, an
// archive and a keeper on the test's folder, a claim left by a writer that is gone, and a writer's look
// at its claim's owner frozen at its first read.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditArchive, CLAIM_ABANDONED_MS, type VerifiedChain } from '../../src/audit/archive.js';
import { CLAIM_OWNER_FILE } from '../../src/audit/archive-claims.js';
import { AuditKeeper } from '../../src/audit/keeper.js';
import type { AuditLog } from '../../src/audit/log.js';
import { CLAIMS_DIR } from '../../src/audit/segments.js';
import { type AuditSigner, HeadMarks } from '../../src/audit/signing.js';
import type { Logger } from '../../src/log.js';
import type { Store } from '../../src/store/index.js';
import { auditDraft } from '../support/engine.js';

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

/** A sandbox archive on `store` in `archive` of the test's folder, at NOW unless `options` say otherwise. */
export function archiveOn(
  store: Store,
  { auditDir, signer }: { auditDir: string; signer: AuditSigner },
  options: Partial<ArchiveOptions> = {},
): AuditArchive {
  return new AuditArchive({
    store,
    dir: join(auditDir, 'archive'),
    environment: 'sandbox',
    signer,
    now: () => NOW,
    ...options,
  });
}

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
