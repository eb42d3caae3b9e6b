// The passkeys the audit chain registered, as the auditor's check reads them (approval-evidence.ts): a
// registration's approvals are checked at the first entry saying it went out, so the passkey it makes
// is the one those approvals covered, that entry's figures. It counts from the entry that completes the
// registration (for a write that went unanswered, the tracker's later one), and only if that entry
// names the same passkey, owner and key: a completion carrying others was never approved.
import type { AuditEntry } from './types.js';

/** A passkey as the chain registered it. */
export interface Registered {
  user: string;
  publicKey: string;
  addedAt: number;
  requestId: string;
  revokedAt?: number;
}

/** What a registration's figures name: the passkey, its owner and its public key (COSE, base64url). */
interface Named {
  credentialId: string;
  user: string;
  publicKey: string;
}

const COMPLETED = 'completed';
/** Each part of what a registration names, in an auditor's words. */
const PARTS = { credentialId: 'passkey', user: 'owner', publicKey: 'public key' } as const;

/** Does this entry complete a passkey registration (by its answer, or the tracker finding it written)? */
export function completesRegistration(entry: AuditEntry): boolean {
  return entry.kind === 'passkey' && entry.action === COMPLETED && entry.state === COMPLETED;
}

/** The passkey an entry's figures name; undefined when any part is missing. */
function named(entry: AuditEntry): Named | undefined {
  const payload = entry.figures?.payload ?? {};
  const { credentialId, user, publicKey } = payload;
  if (typeof credentialId !== 'string' || typeof user !== 'string' || typeof publicKey !== 'string') {
    return undefined;
  }
  return { credentialId, user, publicKey };
}

export class ChainPasskeys {
  private readonly byCredential = new Map<string, Registered>();
  /** Each registration's figures at the entry whose approvals were checked: what was approved. */
  private readonly approved = new Map<string, Named | undefined>();
  /**
   * When passkeys not yet registered on the chain were revoked, by registration and credential: one
   * whose write went unanswered is in the book, and may be revoked, before the tracker completes it.
   */
  private readonly revokedEarly = new Map<string, number>();

  get(credentialId: string): Registered | undefined {
    return this.byCredential.get(credentialId);
  }

  all(): Registered[] {
    return [...this.byCredential.values()];
  }

  /** A registration's entry whose approvals were checked: its figures are what it may register. */
  checked(entry: AuditEntry): void {
    if (entry.kind === 'passkey' && entry.requestId) this.approved.set(entry.requestId, named(entry));
  }

  /**
   * A registration's completion at `at`, its request `executing` at `executingAt` (when the book was
   * written: a crash may leave approvals signed with it before the completion): the approved passkey
   * counts from then, until a revocation, even one recorded before this entry. Why it does not count
   * when the completion names another passkey, owner or key than was approved; undefined otherwise.
   */
  complete(entry: AuditEntry, at: number, executingAt: number | undefined): string | undefined {
    const requestId = entry.requestId ?? '';
    const approved = this.approved.get(requestId);
    if (!approved) return undefined;
    const completion = named(entry);
    const fields = Object.keys(PARTS) as (keyof Named)[];
    const differ = fields.filter((field) => completion?.[field] !== approved[field]).map((f) => PARTS[f]);
    if (differ.length > 0) {
      const parts = differ.length > 1 ? `${differ.slice(0, -1).join(', ')} and ${differ.at(-1)}` : differ[0];
      return `its completion at seq ${entry.seq} names another ${parts} than the entry whose approvals were checked; the passkey is not counted`;
    }
    if (this.byCredential.has(approved.credentialId)) return undefined;
    const revokedAt = this.revokedEarly.get(`${requestId} ${approved.credentialId}`);
    this.byCredential.set(approved.credentialId, {
      user: approved.user,
      publicKey: approved.publicKey,
      addedAt: executingAt ?? at,
      requestId,
      ...(revokedAt !== undefined ? { revokedAt } : {}),
    });
    return undefined;
  }

  /** A `passkey-revoked` step at `at`, recorded on the registration's request. */
  revoke(entry: AuditEntry, at: number): void {
    const credentialId = entry.figures?.payload?.credentialId;
    if (typeof credentialId !== 'string') return;
    const passkey = this.byCredential.get(credentialId);
    if (passkey) {
      if (passkey.revokedAt === undefined) passkey.revokedAt = at;
      return;
    }
    const key = `${entry.requestId ?? ''} ${credentialId}`;
    if (!this.revokedEarly.has(key)) this.revokedEarly.set(key, at);
  }
}
