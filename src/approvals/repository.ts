// Where requests live in the store: one key per request, a set of the open ones (so a restart finds
// them), reference/transaction/callback indexes (so webhooks find them), and the append-only audit log.
// The open set and the audit log are kept per service environment, so sandbox, test and live requests
// never mix in a listing.

import type { ApprovalEvidence } from '../access/index.js';
import { type AuditDraft, AuditLog } from '../audit/index.js';
import type { Store } from '../store/index.js';
import { ExecutionClaims } from './claim-keys.js';
import type { ServiceEnvironment } from './ports.js';
import { type ApprovalRequest, type AuditEntry, OPEN_STATES } from './types.js';

const requestKey = (id: string) => `approval:${id}`;
const referenceKey = (reference: string) => `approval-ref:${reference}`;
/** How often an index entry is written again when its holder let go between the refused write and the read. */
const TAKE_REFERENCE_TRIES = 5;
const openSet = (environment: ServiceEnvironment) => `approvals:open:${environment}`;
// Where all environments were kept together before: read (and emptied), never written.
const LEGACY_OPEN_SET = 'approvals:open';
const LEGACY_AUDIT_LIST = 'approvals:audit';

export const ENVIRONMENTS: readonly ServiceEnvironment[] = ['sandbox', 'test', 'live'];

export class ApprovalRepository {
  readonly auditLog: AuditLog;
  /** The claim keys of each request's one call. */
  private readonly claims: ExecutionClaims;

  constructor(
    readonly store: Store,
    /** The environment the bot now talks to: its listings show only its own requests. */
    readonly environment: ServiceEnvironment,
  ) {
    this.auditLog = new AuditLog(store);
    this.claims = new ExecutionClaims(store);
  }

  async get(id: string): Promise<ApprovalRequest | undefined> {
    return fromStored(await this.store.get<StoredRequest>(requestKey(id)));
  }

  /** Several requests in one store request, in the order asked (undefined where none). */
  async getMany(ids: string[]): Promise<Array<ApprovalRequest | undefined>> {
    return (await this.store.getMany<StoredRequest>(ids.map(requestKey))).map(fromStored);
  }

  /**
   * Persist the request, keep the open set in step, and audit its newest history step. The store has
   * no multi-key transaction, so the writes are ordered for a crash between any two of them: the
   * open set is widened before the request is written and narrowed after (readers check the state),
   * and the audit entry goes first, carrying its step's index, so it cannot be lost; an entry whose
   * step never reached the request is dropped when the log is read.
   */
  async save(request: ApprovalRequest, audit = true): Promise<void> {
    await this.write(request, audit, async () => {
      await this.store.set(requestKey(request.id), request);
      return true;
    });
  }

  /**
   * Save only if the stored request is still exactly `expected` (what this process read and decided
   * on); false when anything wrote it since, so a process whose lock ran out never overwrites a later
   * step. Audited like save, the entry first (the store has no transaction over two keys, and a step
   * must never exist without its entry). So that a write that will lose appends no entry, the request
   * is read again just before: a change found then refuses the write with nothing written. Only a
   * change landing between that read and the compare-and-set leaves an entry that never took effect,
   * dropped when the log is read and marked in exports.
   */
  saveIf(expected: ApprovalRequest, request: ApprovalRequest, audit = true): Promise<boolean> {
    const key = requestKey(request.id);
    return this.write(
      request,
      audit,
      async () =>
        (await this.store.compareAndSet(key, expected, request)) ||
        // A record stored under the announcement's old name: the same request, read through fromStored.
        (expected.announcement !== undefined &&
          (await this.store.compareAndSet(key, withOldName(expected), request))),
      async () => sameValue(fromStored(await this.store.get<StoredRequest>(key)), expected),
    );
  }

  private async write(
    request: ApprovalRequest,
    audit: boolean,
    put: () => Promise<boolean>,
    stillAsRead: () => Promise<boolean> = async () => true,
  ): Promise<boolean> {
    const open = OPEN_STATES.has(request.state);
    const index = request.history.length - 1;
    const step = request.history[index];
    // The actor is named before the re-read, so the wait for the directory does not widen the window
    // in which another write can land after it.
    const draft = audit && step ? await this.auditLog.describe(auditDraft(request, index)) : undefined;
    if (audit && !(await stillAsRead())) return false;
    if (open) await this.store.addToSet(openSet(request.environment), request.id);
    if (draft) await this.auditLog.append(request.environment, draft, { described: true });
    if (!(await put())) return false;
    if (!open) await this.store.removeFromSet(openSet(request.environment), request.id);
    return true;
  }

  /** Open requests of an environment (the bot's own by default), oldest first. */
  async openRequests(environment = this.environment): Promise<ApprovalRequest[]> {
    const ids = await this.store.setMembers(openSet(environment));
    const requests = await Promise.all(ids.map((id) => this.get(id)));
    const open: ApprovalRequest[] = [];
    for (const request of requests) {
      if (!request) continue; // being filed right now: its id is listed before it is written
      if (OPEN_STATES.has(request.state)) open.push(request);
      // Closed, but a crash came before it left the set: final states never reopen, so drop it.
      else await this.store.removeFromSet(openSet(environment), request.id);
    }
    return open.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Move open requests from the old shared set into their environment's set (start-up; idempotent). */
  async migrateLegacyOpenSet(): Promise<void> {
    for (const id of await this.store.setMembers(LEGACY_OPEN_SET)) {
      const request = await this.get(id);
      if (request && OPEN_STATES.has(request.state)) {
        await this.store.addToSet(openSet(request.environment), id);
      }
      await this.store.removeFromSet(LEGACY_OPEN_SET, id);
    }
  }

  /**
   * Index a service reference or transaction id so webhooks and callbacks find the request, only if no
   * other request has it: a reference is never re-pointed. Returns the other request's id when one has
   * it (the index left as it is), undefined when it is this request's.
   */
  async indexReference(reference: string, id: string): Promise<string | undefined> {
    const taken = await this.takeReference(reference, id);
    return taken.holder !== undefined && taken.holder !== id ? taken.holder : undefined;
  }

  /**
   * Set-if-absent of a reference's entry: `{}` when this call wrote it, else the request it names
   * (this one's too). The holder may let go between the refused write and the read of who holds it (a
   * request that lost the race for its other key removes the one it wrote): then the write is tried
   * again, a few times, rather than leave the entry naming nobody while this request goes on as if
   * it held it. Throws when the entry never settles (nothing indexed; the caller's write fails).
   */
  private async takeReference(reference: string, id: string): Promise<{ holder?: string }> {
    const key = referenceKey(reference);
    for (let tries = 0; tries < TAKE_REFERENCE_TRIES; tries++) {
      if (await this.store.setIfAbsent(key, id)) return {};
      const holder = await this.store.get<string>(key);
      if (holder !== undefined) return { holder };
    }
    throw new Error(`the index entry of ${reference} kept changing; it was not indexed`);
  }

  /**
   * Index the service's reference and transaction id of a request's outcome, so webhooks find it.
   * When another request has either already, nothing is indexed and that request's id is returned:
   * one that took the second between the check and its write makes this call remove the first, which
   * it had written. An entry is removed only while it still names this request (compare-and-delete), so
   * one removed meanwhile and taken by another request stays theirs. Indexed: the keys this call wrote
   * are added to `written`.
   */
  async indexOutcome(request: ApprovalRequest, written: string[] = []): Promise<string | undefined> {
    const { reference, transactionId } = request.outcome ?? {};
    const keys = [reference, transactionId].filter((key): key is string => !!key);
    for (const key of keys) {
      const owner = await this.findIdByReference(key);
      if (owner !== undefined && owner !== request.id) return owner;
    }
    const mine: string[] = [];
    for (const key of keys) {
      const { holder: owner } = await this.takeReference(key, request.id);
      if (owner === undefined) {
        mine.push(key);
        continue;
      }
      if (owner === request.id) continue;
      for (const key of mine) await this.store.compareAndDelete(referenceKey(key), request.id);
      return owner;
    }
    written.push(...mine);
    return undefined;
  }

  /**
   * A locked section that indexed an outcome (the keys it wrote: indexOutcome's `written`) and then,
   * run again on a fresh read after its write was refused, found the request moved on and wrote
   * nothing: the entries that still name it are removed, unless the request as it stands records them.
   */
  async unindexUnrecorded(
    written: readonly string[],
    current: ApprovalRequest | undefined,
    id: string,
  ): Promise<void> {
    const recorded = new Set([current?.outcome?.reference, current?.outcome?.transactionId]);
    for (const key of written) {
      if (recorded.has(key)) continue;
      // Only while it names this request, in one step: read then delete could take another's.
      await this.store.compareAndDelete(referenceKey(key), id);
    }
  }

  findIdByReference(reference: string): Promise<string | undefined> {
    return this.store.get<string>(referenceKey(reference));
  }

  async indexCallbackToken(token: string, id: string): Promise<void> {
    await this.store.set(`approval-callback:${token}`, id);
  }

  findIdByCallbackToken(token: string): Promise<string | undefined> {
    return this.store.get<string>(`approval-callback:${token}`);
  }

  /** claim() of the execution claims (claim-keys.ts), ending the named generation when not calling. */
  claim(
    id: string,
    round: number,
    owner: string,
    now: Date,
    leaseMs: number,
    handedBack?: number,
  ): Promise<number | undefined> {
    return this.claims.claim(id, round, owner, now, leaseMs, handedBack);
  }

  /** claim() of the request's round, ending the claim it names as handed back (hand-back.ts). */
  claimRequest(
    request: ApprovalRequest,
    owner: string,
    now: Date,
    leaseMs: number,
  ): Promise<number | undefined> {
    const { id, round } = request;
    return this.claims.claim(id, round, owner, now, leaseMs, handedBackGeneration(request));
  }

  /** The lapsed claim marked sending that keeps this round from being claimed (claim-keys.ts). */
  lapsedSendingClaim(id: string, round: number, now: Date, handedBack?: number): Promise<number | undefined> {
    return this.claims.lapsedSendingClaim(id, round, now, handedBack);
  }

  /** The claim's write-ahead mark, before the request's (claim-keys.ts). */
  markClaimSending(
    id: string,
    round: number,
    generation: number,
    owner: string,
    until: Date,
  ): Promise<boolean> {
    return this.claims.markSending(id, round, generation, owner, until);
  }

  /** The claim's last mark, after the request's and right before the call (claim-keys.ts). */
  markClaimCalling(id: string, round: number, generation: number, owner: string): Promise<boolean> {
    return this.claims.markCalling(id, round, generation, owner);
  }

  /** The claim the request names as handed back is marked calling: no genuine hand-back names one. */
  async handedBackClaimCalling(request: ApprovalRequest): Promise<boolean> {
    const generation = handedBackGeneration(request);
    return generation !== undefined && this.claims.isCalling(request.id, request.round, generation);
  }

  /** End a handed-back claim (claim-keys.ts); false when it is marked calling (never ended). */
  endClaim(id: string, round: number, generation: number, now: Date): Promise<boolean> {
    return this.claims.endClaim(id, round, generation, now);
  }

  /**
   * A freeze of sends came: end every claim of the request's round not yet marked (claim-keys.ts).
   * True when one may be under way.
   */
  endUnmarkedClaims(request: ApprovalRequest, now: Date): Promise<boolean> {
    const { id, round } = request;
    return this.claims.endUnmarkedClaims(id, round, now, handedBackGeneration(request));
  }

  /**
   * The last n audit entries, oldest first. An entry is kept only if its request's history holds that
   * step (a crash after the entry and before the request leaves one that never happened), once.
   */
  async recentAudit(n: number): Promise<AuditEntry[]> {
    const want = Math.max(1, n);
    const entries = [
      ...(await this.store.readList<AuditEntry>(LEGACY_AUDIT_LIST, -2 * want, -1)),
      ...(await this.auditLog.latest(this.environment, 2 * want)),
    ];
    const effective = await this.tookEffect(entries);
    return entries.filter((_, i) => effective[i]).slice(-want);
  }

  /**
   * For each entry, whether it is a step that happened in this environment: its request's history holds
   * that step, and it is the first entry for it (a write whose request save lost stays in the chain).
   * Entries about alerts or the log itself count when they are this environment's.
   */
  async tookEffect(entries: AuditEntry[]): Promise<boolean[]> {
    const requests = new Map<string, Promise<ApprovalRequest | undefined>>();
    const load = (id: string) => {
      if (!requests.has(id)) requests.set(id, this.get(id));
      return requests.get(id) as Promise<ApprovalRequest | undefined>;
    };
    await Promise.all(entries.map((entry) => entry.requestId && load(entry.requestId)));
    const seen = new Set<string>();
    const effective: boolean[] = [];
    for (const entry of entries) {
      if (!entry.requestId) {
        effective.push(entry.environment === this.environment);
        continue;
      }
      const request = await load(entry.requestId);
      let real = request?.environment === this.environment;
      if (real && request && entry.step !== undefined) {
        const step = request.history[entry.step];
        const key = `${entry.requestId}#${entry.step}`;
        // Index, time and action alone could credit a lost write's entry to the step another person
        // took at the same moment: who acted, and in whose place, must match too.
        real =
          step?.at === entry.at &&
          step.action === entry.action &&
          step.actor === entry.actor &&
          step.onBehalfOf === entry.onBehalfOf &&
          !seen.has(key);
        if (real) seen.add(key);
      }
      effective.push(real);
    }
    return effective;
  }
}

/** The generation of this round's claim the request was handed back from, if any (hand-back.ts). */
export function handedBackGeneration(request: ApprovalRequest): number | undefined {
  return request.handedBack?.round === request.round ? request.handedBack.generation : undefined;
}

/** A request as a record may hold it: written before `announcement` had its name, it is `slackMessage`. */
type StoredRequest = ApprovalRequest & { slackMessage?: ApprovalRequest['announcement'] };

/**
 * The request a stored record holds, the announcement's old name read as the new one. The key keeps
 * its place, so the request compares (as JSON text) like the record it was read from, renamed.
 */
function fromStored(stored: StoredRequest | undefined): ApprovalRequest | undefined {
  if (!stored || !('slackMessage' in stored)) return stored;
  return renameKey(stored, 'slackMessage', 'announcement') as ApprovalRequest;
}

/** The request as a record written before the rename holds it: the compare-and-set's other expected value. */
function withOldName(request: ApprovalRequest): StoredRequest {
  return renameKey(request, 'announcement', 'slackMessage') as StoredRequest;
}

function renameKey(value: object, from: string, to: string): unknown {
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key === from ? to : key, field]));
}

/** Equal as the stores compare a compare-and-set's expected value (undefined: nothing stored). */
function sameValue(current: unknown, expected: unknown): boolean {
  return JSON.stringify(current ?? undefined) === JSON.stringify(expected);
}

/** The passkey assertions of the request's approvals, and the round they signed; nothing when none was signed. */
function signaturesOf(request: ApprovalRequest): {
  signatures?: Array<ApprovalEvidence & { user: string }>;
  round?: number;
} {
  const signatures = request.approvals.flatMap((a) => (a.evidence ? [{ user: a.user, ...a.evidence }] : []));
  return signatures.length > 0 ? { signatures, round: request.round } : {};
}

/** A claim's round and generation, on its `executing` step's entry (verified-closings.ts reads it). */
function claimOf(
  request: ApprovalRequest,
  step: ApprovalRequest['history'][number],
): Pick<AuditDraft, 'claim'> {
  const generation = request.execution?.generation;
  if (step.action !== 'executing' || request.state !== 'executing' || generation === undefined) return {};
  return { claim: { round: request.round, generation } };
}

/** The audit entry for step `index` of the request: who, what, when, the figures and the service's answer. */
function auditDraft(request: ApprovalRequest, index: number): AuditDraft {
  const step = request.history[index];
  if (!step) throw new Error(`request ${request.id} has no step ${index}`);
  // The bridge callback URL carries its unguessable token: it stays out of the log.
  const { callbackUrl: _token, ...payload }: Record<string, unknown> = { ...request.payload };
  return {
    at: step.at,
    requestId: request.id,
    kind: request.kind,
    action: step.action,
    state: request.state,
    ...(step.actor ? { actor: step.actor } : {}),
    ...(step.onBehalfOf ? { onBehalfOf: step.onBehalfOf } : {}),
    ...(request.amount ? { amount: request.amount } : {}),
    ...(step.note ? { note: step.note } : {}),
    ...(step.leftPool ? { subject: step.leftPool } : {}),
    ...(step.policyFingerprint ? { policyFingerprint: step.policyFingerprint } : {}),
    step: index,
    ...claimOf(request, step),
    ...(request.keyId ? { keyId: request.keyId } : {}),
    figures: {
      payload,
      display: request.display,
      ...(request.purpose ? { purpose: request.purpose } : {}),
      requiredApprovals: request.requiredApprovals,
      ...(step.needed ? { neededApprovals: step.needed } : {}),
      approvals: request.approvals.map((a) => a.user),
      ...signaturesOf(request),
    },
    ...(request.outcome ? { answer: request.outcome } : {}),
  };
}
