// Sealing what stands unsealed (request-seal.ts) happens once per environment, at its first start: the
// requests filed before requests were sealed. That once is on the signed audit chain, a
// `requests-sealed` entry naming them, written before the seals: at every later start the chain holds
// it, so a request whose seal a store writer took off (and whose amount or destination they changed)
// stays unsealed and fails at the send (FILING_SEAL_MISSING). Sealing has begun when the chain holds
// that entry or starts with the marker of a retention cut (which may have removed it), as read by the
// whole check made under the once's lock; a chain that did not verify whole, at open or then, seals
// nothing. docs/decisions/sealing-once.md.
import { type AuditDraft, isCutMarker } from '../audit/index.js';
import type { Store } from '../store/index.js';
import type { CoreSections } from './core-sections.js';
import type { ServiceEnvironment } from './ports.js';
import { type FilingSeal, sealAsTheyStand, unsealedRequests } from './request-seal.js';
import type { ApprovalRequest, AuditEntry, EngineLog } from './types.js';

/** The action of the entry that records the once: its subject names the requests sealed. */
export const REQUESTS_SEALED = 'requests-sealed';

/** The audit trail as the once reads and writes it (EngineAudit.sealingChain). */
export interface SealingChain {
  /** The check made when the trail opened found the chain whole, its head verified. */
  whole(): boolean;
  /**
   * The whole check made now, with exactly the entries it verified: "begun" is decided from these, so a
   * chain swapped after the check at open is found broken here, not read unchecked.
   */
  checked(): Promise<{ ok: boolean; entries: AuditEntry[] }>;
  append(draft: AuditDraft): Promise<AuditEntry>;
}

export interface SealingOnceParts {
  core: Pick<CoreSections, 'locked' | 'write' | 'openRequests'>;
  store: Store;
  seal: FilingSeal;
  environment: ServiceEnvironment;
  /** The granting requests behind delegations, as stored. */
  granting: readonly ApprovalRequest[];
  chain: SealingChain;
  now: () => Date;
  log?: EngineLog | undefined;
}

/** Every replica's first start may come at once: one decides, records and seals. */
const LOCK = { waitMs: 60_000 };
const lockName = (environment: ServiceEnvironment) => `approvals:requests-sealed:${environment}`;

/** Has sealing begun, as the chain says: it holds the once's entry, or was cut (which may have removed it). */
export function sealingBegun(entries: readonly AuditEntry[]): boolean {
  const first = entries[0];
  if (first && isCutMarker(first)) return true;
  return entries.some((entry) => entry.kind === 'audit' && entry.action === REQUESTS_SEALED);
}

/**
 * At start, before the bot takes a click: the first time, what stands unsealed is recorded, then sealed
 * as it stands; at any later start, or when the chain did not verify whole, nothing is sealed and what
 * stands unsealed is named in a warning (each fails at its send). Returns the ids sealed.
 */
export async function sealOnce(parts: SealingOnceParts): Promise<string[]> {
  const { core, store, seal, environment, granting, chain, log } = parts;
  if (!chain.whole()) return notWhole(parts);
  return store.withLock(
    lockName(environment),
    async () => {
      // Read and checked once, under the lock: what says "begun" is what verified.
      const { ok, entries } = await chain.checked();
      if (!ok) return notWhole(parts);
      const unsealed = await unsealedRequests(core, environment, granting);
      if (sealingBegun(entries)) {
        if (unsealed.length > 0) {
          log?.warn(
            'requests without a filing seal, after sealing began: not sealed, they fail at their send',
            {
              requests: unsealed.join(', '),
            },
          );
        }
        return [];
      }
      await chain.append({
        at: parts.now().toISOString(),
        kind: 'audit',
        action: REQUESTS_SEALED,
        actor: 'system',
        subject: unsealed.length > 0 ? unsealed.join(', ') : 'none',
        note: `sealed as they stood at this environment's first start with sealing: ${unsealed.length} request${unsealed.length === 1 ? '' : 's'}; never again`,
      });
      const sealed = await sealAsTheyStand(core, seal, environment, unsealed);
      if (sealed.length > 0) {
        log?.warn('requests filed before requests were sealed: sealed as they stand now, once', {
          requests: sealed.join(', '),
        });
      }
      return sealed;
    },
    LOCK,
  );
}

/** The chain did not verify whole: nothing is sealed, and what stands unsealed is named. */
async function notWhole({ core, environment, granting, log }: SealingOnceParts): Promise<string[]> {
  const unsealed = await unsealedRequests(core, environment, granting);
  if (unsealed.length > 0) {
    log?.warn(
      'the audit chain did not verify at start: requests without a filing seal are not sealed, and fail at their send',
      { requests: unsealed.join(', ') },
    );
  }
  return [];
}
