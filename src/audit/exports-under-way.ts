// Audit exports under way, kept in the store so one interrupted by a crash is not lost in silence. An
// export is recorded (with the command's words) before its `export-requested` entry and the upload, and
// forgotten once its `exported` entry is written. One left behind by a process that stopped is marked
// in the audit chain (`export-undelivered`) and the person who asked is told, once, to run it again.
//
// It is never run again by itself: the process may have stopped after Slack took the files, so a
// second run could deliver them twice with nothing in the chain tying the two together, and only the
// person who asked knows whether they still need it (and for which range, when it was `30d`).
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/index.js';
import type { AuditDraft, AuditLog } from './log.js';
import type { ServiceEnvironment } from './types.js';

/** An export being made, or left unfinished by a process that stopped. */
export interface AuditExportRecord {
  id: string;
  /** The approver who asked; told if it is never delivered. */
  actor: string;
  /** The words after `/cngn audit export`, as typed. */
  words: string;
  /** Its range (`from..to`, ISO), as in its audit entries. */
  subject: string;
  entries: number;
  requestedAt: string;
  /** The process making it, and until when another replica leaves it alone (shared stores). */
  owner: string;
  leaseUntil: string;
  /** Its `export-undelivered` entry is in the chain (the person may not have been told yet). */
  undeliveredAt?: string;
}

/** Told about each export left undelivered; a throw keeps it for the next sweep. */
export type UndeliveredListener = (record: AuditExportRecord) => Promise<void>;

/**
 * How long an export may take before another replica on a shared store counts its process as gone:
 * past the Slack client's own retries (about half an hour) with room to spare.
 */
export const AUDIT_EXPORT_LEASE_MS = 60 * 60_000;

const recordKey = (environment: ServiceEnvironment, id: string) =>
  `approvals:audit-export:${environment}:${id}`;
const openSet = (environment: ServiceEnvironment) => `approvals:audit-exports:${environment}`;

export class AuditExports {
  private readonly owner = randomUUID();
  /** Exports this process is making now: never taken for interrupted. */
  private readonly running = new Set<string>();
  private readonly listeners: UndeliveredListener[] = [];

  constructor(
    private readonly store: Store,
    private readonly log: AuditLog,
    private readonly environment: ServiceEnvironment,
    private readonly now: () => Date,
  ) {}

  onUndelivered(listener: UndeliveredListener): void {
    this.listeners.push(listener);
  }

  /**
   * Record an export about to be made, then its `export-requested` entry: from here on, a crash leaves
   * something that says it was asked for. Returns its id, for finish() or end().
   */
  async begin(
    request: { actor: string; words: string; subject: string; entries: number },
    requested: AuditDraft,
  ): Promise<string> {
    const now = this.now();
    const record: AuditExportRecord = {
      id: randomUUID(),
      ...request,
      requestedAt: now.toISOString(),
      owner: this.owner,
      leaseUntil: new Date(now.getTime() + AUDIT_EXPORT_LEASE_MS).toISOString(),
    };
    this.running.add(record.id);
    await this.store.claimAndWrite({ key: recordKey(this.environment, record.id), value: record }, [
      { kind: 'addToSet', set: openSet(this.environment), member: record.id },
    ]);
    try {
      await this.log.append(this.environment, requested);
    } catch (error) {
      // Not asked for after all (the command says it failed): nothing is left to tell later.
      await this.forget(record.id).catch(() => undefined);
      throw error;
    }
    return record.id;
  }

  /** Delivered: its `exported` entry is written, then the record goes. */
  async finish(id: string, exported: AuditDraft): Promise<void> {
    await this.log.append(this.environment, exported);
    await this.forget(id);
  }

  /** Not delivered, and the person was told so in the command's answer: nothing is left to say. */
  async abandon(id: string): Promise<void> {
    await this.forget(id);
  }

  /**
   * This process stops working on it (however that went). One neither finished nor abandoned is then
   * left for settle(), which tells the person it was not delivered.
   */
  end(id: string): void {
    this.running.delete(id);
  }

  /**
   * Exports left by a process that stopped: marked in the chain once, the person told, then forgotten.
   * On a store one process uses (memory, SQLite) any not running here is such; on a shared one, only
   * those whose lease ran out (another replica may be uploading). Nothing to tell with: left for later.
   */
  async settle(): Promise<number> {
    if (this.listeners.length === 0) return 0;
    const single = this.store.kind === 'memory' || this.store.kind === 'sqlite';
    let settled = 0;
    for (const id of await this.store.setMembers(openSet(this.environment))) {
      if (this.running.has(id)) continue;
      const done = await this.store.withLock(recordKey(this.environment, id), async () => {
        const record = await this.store.get<AuditExportRecord>(recordKey(this.environment, id));
        if (!record) {
          await this.store.removeFromSet(openSet(this.environment), id);
          return false;
        }
        if (!single && Date.parse(record.leaseUntil) > this.now().getTime()) return false;
        const marked = record.undeliveredAt ? record : await this.markUndelivered(record);
        for (const listener of this.listeners) await listener(marked);
        await this.forget(id);
        return true;
      });
      if (done) settled += 1;
    }
    return settled;
  }

  private async markUndelivered(record: AuditExportRecord): Promise<AuditExportRecord> {
    const at = this.now().toISOString();
    await this.log.append(this.environment, {
      at,
      kind: 'audit',
      action: 'export-undelivered',
      actor: record.actor,
      subject: record.subject,
      note: `the export asked for at ${record.requestedAt} (${record.entries} entries) was interrupted before it was delivered; the person who asked is told to run it again`,
    });
    const marked = { ...record, undeliveredAt: at };
    await this.store.set(recordKey(this.environment, record.id), marked);
    return marked;
  }

  private async forget(id: string): Promise<void> {
    this.running.delete(id);
    await this.store.removeFromSet(openSet(this.environment), id);
    await this.store.delete(recordKey(this.environment, id));
  }
}
