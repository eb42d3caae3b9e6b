// The engine's running life: the audit trail opened before any click, the start after a restart (what
// a previous process left picked up), the periodic sweep (expiry, polls, reconciliation, reminders, the
// trail's own), the background work it starts, and the stop. ApprovalEngine (approval-engine.ts) holds
// one and passes its start, tick, idle and stop on to it.

import type { ApprovalCore } from './approval-core.js';
import type { AuditSideOptions, EngineAudit } from './engine-audit.js';
import { type Executor, STOP_DRAIN_MS } from './executor.js';
import type { Reminders } from './reminders.js';
import { sealOnce } from './sealing-once.js';
import { shutDown } from './shutdown.js';
import type { StopLookup } from './stop-lookup.js';
import { closeOtherEnvironments, expireDue, sweepInTurn } from './sweeps.js';
import type { Tracker } from './tracker.js';

/** The engine's parts its running life drives. */
export interface RunningParts {
  core: ApprovalCore;
  trail: EngineAudit;
  executor: Executor;
  tracker: Tracker;
  reminders: Reminders;
  stopLookup: StopLookup;
}

export type RunningOptions = Pick<AuditSideOptions, 'log' | 'policySnapshot'> & {
  /** How often the sweep (expiry, polls, reconciliation) runs (default 15 s). */
  tickMs?: number;
};

export class EngineRunning {
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private trailOpen = false;

  constructor(
    private readonly parts: RunningParts,
    private readonly options: RunningOptions,
  ) {}

  /** One sweep now (expiry, polls, reconciliation, reminders); overlapping sweeps are skipped. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.sweepRequests();
      // After expiry: a request that just lapsed gets no reminder.
      await this.sendReminders();
      await this.parts.trail.sweep();
      await this.readFreeze();
    } finally {
      this.ticking = false;
    }
  }

  /**
   * The freeze read with the signed chain once a sweep, sends or none: a freeze record changed outside
   * the bot is found (and alerted) within a sweep, and what the surfaces show is at most a sweep old.
   */
  private async readFreeze(): Promise<void> {
    await this.parts.core.freeze.current({ fresh: true }).catch((error: unknown) => {
      this.options.log?.warn('the freeze could not be read; read again next sweep', { error: String(error) });
    });
  }

  /** Reminders due now; one that cannot be sent is tried again at the next sweep. */
  private async sendReminders(): Promise<void> {
    await this.parts.reminders.sweep().catch((error: unknown) => {
      this.options.log?.warn('approval reminders could not be sent; tried again next sweep', {
        error: String(error),
      });
    });
  }

  /** Expire what is due, then follow, send and reconcile the open requests. */
  private async sweepRequests(): Promise<void> {
    await expireDue(this.parts.core);
    await this.parts.tracker.tick();
    // Stopped requests whose lookup the service did not answer yet (stop-lookup.ts).
    await this.parts.stopLookup.sweep().catch((error: unknown) => {
      this.options.log?.warn('stopped requests not looked up; tried again next sweep', {
        error: String(error),
      });
    });
  }

  /**
   * Before the bot takes a click or sends anything: the trail checked and the settings in effect recorded
   * (EngineAudit.open; PolicyNotRecorded when they cannot be), each approval step naming them from then
   * on, and, at the environment's first start only, open requests filed before requests were sealed
   * sealed (sealing-once.ts). start() makes it when not made yet.
   */
  async openTrail(): Promise<void> {
    if (this.trailOpen) return;
    const { core, trail } = this.parts;
    const recorded = await trail.open(this.options.policySnapshot);
    if (recorded) core.judging.opened(recorded);
    // Before the bot takes a click, so a click in the first moments of an upgrade never meets an
    // unsealed request; once per environment, as the audit chain records (sealing-once.ts).
    await sealOnce({
      core,
      store: core.options.store,
      seal: core.signed.filingSeal,
      environment: core.options.custody.environment,
      granting: await core.delegations.granting(),
      chain: trail.sealingChain(),
      now: core.now,
      log: this.options.log,
    });
    this.trailOpen = true;
  }

  /** Pick up in-flight requests (other environments' closed first), then sweep periodically. */
  async start(): Promise<void> {
    const { core, trail, tracker, executor } = this.parts;
    // The audit trail first: opened, then what it held told and interrupted exports (EngineAudit.start).
    await this.openTrail();
    await trail.start();
    // The signed chain read once now, so the first send after a restart reads only what is new.
    await core.signed.closedOnChain.warm().catch((error: unknown) => {
      this.options.log?.warn('the signed audit chain could not be read at start', { error: String(error) });
    });
    await core.repo.migrateLegacyOpenSet();
    await closeOtherEnvironments(core);
    await tracker.resume();
    await this.sweepRequests();
    // Reminders that fell due while no replica ran are sent now (only the latest point of each).
    await this.sendReminders();
    await trail.applyAuditRetention().catch((error: unknown) => {
      this.options.log?.warn('audit retention could not be applied', { error: String(error) });
    });
    const every = this.options.tickMs ?? 15_000;
    // Each process checks the audit trail daily, whichever replica takes the sweeps.
    const sweep = sweepInTurn(core, executor.instanceId, every, {
      daily: () => trail.daily(),
      sweep: () => this.tick(),
      busy: () => this.ticking,
    });
    this.timer = setInterval(() => this.background(sweep()), every);
    this.timer.unref();
  }

  /** Stop sweeping, drain background work (at most `drainMs`), end leases, archive (see shutdown.ts). */
  async stop(options: { drainMs?: number } = {}): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const { executor, trail } = this.parts;
    await shutDown(
      { idle: () => this.idle(), executor, trail, log: this.options.log },
      options.drainMs ?? STOP_DRAIN_MS,
    );
  }

  /** Resolves when background work started so far (executions, sweeps) has finished. */
  async idle(): Promise<void> {
    do {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await this.parts.core.freeze.idle(); // its listeners may start more background work
      await this.parts.executor.idle();
      await this.parts.trail.idle();
    } while (this.inFlight.size > 0);
  }

  /** Work the engine does not wait for, tracked so that idle() and stop() do; a failure is logged. */
  background(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      this.options.log?.warn('approval background work failed', { error: String(error) });
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }
}
