// Where requests live in the store: one key per request, a set of the open ones (so a restart finds
// them), reference/transaction/callback indexes (so webhooks find them), and the append-only audit log.
import type { Store } from '../store/index.js';
import { type ApprovalRequest, type AuditEntry, OPEN_STATES } from './types.js';

const requestKey = (id: string) => `approval:${id}`;
const OPEN_SET = 'approvals:open';
const AUDIT_LIST = 'approvals:audit';

export class ApprovalRepository {
  constructor(readonly store: Store) {}

  get(id: string): Promise<ApprovalRequest | undefined> {
    return this.store.get<ApprovalRequest>(requestKey(id));
  }

  /** Persist the request, keep the open set in step, and write its newest history step to the audit log. */
  async save(request: ApprovalRequest, audit = true): Promise<void> {
    await this.store.set(requestKey(request.id), request);
    if (OPEN_STATES.has(request.state)) await this.store.addToSet(OPEN_SET, request.id);
    else await this.store.removeFromSet(OPEN_SET, request.id);
    const step = request.history.at(-1);
    if (audit && step) {
      await this.appendAudit({
        at: step.at,
        requestId: request.id,
        kind: request.kind,
        action: step.action,
        state: request.state,
        ...(step.actor ? { actor: step.actor } : {}),
        ...(request.amount ? { amount: request.amount } : {}),
        ...(step.note ? { note: step.note } : {}),
      });
    }
  }

  async openRequests(): Promise<ApprovalRequest[]> {
    const ids = await this.store.setMembers(OPEN_SET);
    const requests = await Promise.all(ids.map((id) => this.get(id)));
    return requests
      .filter((r): r is ApprovalRequest => r !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Index a service reference or transaction id so webhooks and callbacks find the request. */
  async indexReference(reference: string, id: string): Promise<void> {
    await this.store.set(`approval-ref:${reference}`, id);
  }

  findIdByReference(reference: string): Promise<string | undefined> {
    return this.store.get<string>(`approval-ref:${reference}`);
  }

  async indexCallbackToken(token: string, id: string): Promise<void> {
    await this.store.set(`approval-callback:${token}`, id);
  }

  findIdByCallbackToken(token: string): Promise<string | undefined> {
    return this.store.get<string>(`approval-callback:${token}`);
  }

  /** The one-shot execution claim for this request and round: true for exactly one caller, ever. */
  claimOnce(id: string, round: number, owner: string): Promise<boolean> {
    return this.store.setIfAbsent(`approval-exec:${id}:${round}`, owner);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.store.appendToList(AUDIT_LIST, entry);
  }

  /** The last n audit entries, oldest first. */
  recentAudit(n: number): Promise<AuditEntry[]> {
    return this.store.readList<AuditEntry>(AUDIT_LIST, -Math.max(1, n), -1);
  }
}
