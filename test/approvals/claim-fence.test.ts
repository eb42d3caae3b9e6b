// A replica that stalls between claiming an approved request and recording the claim, or between
// recording it and writing its write-ahead "sending" mark, long enough for its lock, claim and lease
// to run out, never sends beside the replica that took over: exactly one withdrawal reaches the
// service, on Redis, PostgreSQL and the memory store alike.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CLAIM_LEASE_MS, EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import type { RequestDraft } from '../../src/approvals/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { Store } from '../../src/store/index.js';
import {
  APPROVER_A,
  type EngineFixture,
  engineTest,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

/** Test-controlled misfortunes of one replica's store. */
class Replica {
  /** The request whose executing write stalls, and whose lock this replica has lost. */
  id = '';
  private stall: { arrived: () => void; resume: Promise<void> } | undefined;
  private markStall: { arrived: () => void; resume: Promise<void>; fail: boolean } | undefined;
  private beforeTakeover: (() => Promise<void>) | undefined;
  private claimMarkStall: { arrived: () => void; resume: Promise<void> } | undefined;
  private beforeClaimAgain: (() => Promise<void>) | undefined;
  private lostLock = false;

  constructor(readonly raw: Store) {}

  /** The next write that moves the request to executing waits until `resume`; resolves when it waits. */
  stallExecutingWrite(resume: Promise<void>): Promise<void> {
    return new Promise((arrived) => {
      this.stall = { arrived, resume };
    });
  }

  /**
   * The next write of the request's "sending" mark waits until `resume`; resolves when it waits. With
   * `fail`, the write then throws instead of landing, as a store that erred.
   */
  stallMarkWrite(resume: Promise<void>, fail = false): Promise<void> {
    return new Promise((arrived) => {
      this.markStall = { arrived, resume, fail };
    });
  }

  /** The next write of "sending" on the first claim waits until `resume`; resolves when it waits. */
  stallClaimMark(resume: Promise<void>): Promise<void> {
    return new Promise((arrived) => {
      this.claimMarkStall = { arrived, resume };
    });
  }

  /** Run `fn` just before this replica tries the first claim again (after ending it on a takeover). */
  beforeClaimingAgain(fn: () => Promise<void>): void {
    this.beforeClaimAgain = fn;
  }

  /** Enter the request's lock without waiting for it, as if the holder's lock had run out. */
  loseLock(): void {
    this.lostLock = true;
  }

  /** Run `fn` just before this replica writes the claim that takes the request over. */
  beforeTakingOver(fn: () => Promise<void>): void {
    this.beforeTakeover = fn;
  }

  get store(): Store {
    return new Proxy(this.raw, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const [key, arg1, arg2] = args as [string, unknown, unknown];
          if (property === 'withLock' && this.lostLock && key === `approval:${this.id}`) {
            return (arg1 as () => Promise<unknown>)();
          }
          const written = property === 'compareAndSet' ? arg2 : property === 'set' ? arg1 : undefined;
          const executing = (written as { state?: string } | undefined)?.state === 'executing';
          if (this.stall && key === `approval:${this.id}` && executing) {
            const { arrived, resume } = this.stall;
            this.stall = undefined;
            arrived();
            await resume;
          }
          const phase = (written as { execution?: { phase?: string } } | undefined)?.execution?.phase;
          if (this.markStall && key === `approval:${this.id}` && phase === 'sending') {
            const { arrived, resume, fail } = this.markStall;
            this.markStall = undefined;
            arrived();
            await resume;
            if (fail) throw new Error('store write failed');
          }
          const firstClaim = `approval-exec:${this.id}:0`;
          const marking = (written as { sending?: boolean } | undefined)?.sending === true;
          if (this.claimMarkStall && key === firstClaim && marking) {
            const { arrived, resume } = this.claimMarkStall;
            this.claimMarkStall = undefined;
            arrived();
            await resume;
          }
          if (property === 'setIfAbsent' && this.beforeClaimAgain && key === firstClaim) {
            const fn = this.beforeClaimAgain;
            this.beforeClaimAgain = undefined;
            await fn();
          }
          if (property === 'setIfAbsent' && this.beforeTakeover && key === `approval-exec:${this.id}:0:1`) {
            const fn = this.beforeTakeover;
            this.beforeTakeover = undefined;
            await fn();
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
}

interface World {
  sandbox: Sandbox;
  a: EngineFixture;
  b: EngineFixture;
  replicaA: Replica;
  replicaB: Replica;
  request: { id: string };
}

/**
 * `world(name)`: two replicas of the test's store kind, each through a Replica the test controls, and
 * one withdrawal approved on them, nothing started yet.
 */
const test = engineTest.extend('world', async ({ sandbox, replicas, startEngine }) => {
  return async (name: string): Promise<World> => {
    const { a: rawA, b: rawB } = await replicas(name);
    const replicaA = new Replica(rawA);
    const replicaB = new Replica(rawB);
    const a = await startEngine({ store: replicaA.store });
    const b = await startEngine({ store: replicaB.store });
    const [networkId] = await twoNetworks(a.client);
    const draft: RequestDraft = withdrawalDraft(networkId, '777');
    const request = await fileDraft(a.engine, draft);
    await partsOf(a.engine).core.approve(request.id, APPROVER_A); // approved; nothing started yet
    replicaA.id = request.id;
    replicaB.id = request.id;
    return { sandbox, a, b, replicaA, replicaB, request };
  };
});

/** The memory store, and each shared store that answers here. */
const KINDS = STORE_KINDS.filter((kind) => kind.up && kind.name !== 'SQLite').map((kind) => kind.name);

describe.each(KINDS)('a stalled claim on the %s store', (kind) => {
  test.override('storeKind', kind);

  test('sends once when the stalled replica records its claim while the other is taking over', async ({
    world,
  }) => {
    const { sandbox, a, b, replicaA, replicaB, request } = await world('fence-interleaved');
    let resumeA!: () => void;
    const aStalled = replicaA.stallExecutingWrite(new Promise<void>((r) => (resumeA = r)));
    const aSending = sandbox.hold('POST', '/v1/api/withdraw');
    const runA = partsOf(a.engine).executor.execute(request.id);
    await aStalled; // A claimed, and stopped before recording it
    // Long enough later that A's lock and claim have both run out: B reads "approved" and takes over,
    // but A wakes up first, records its claim and goes on to send.
    replicaB.loseLock();
    b.clock.advance(CLAIM_LEASE_MS + 1_000);
    replicaB.beforeTakingOver(async () => {
      resumeA();
      await aSending.arrived;
    });
    const runB = partsOf(b.engine).executor.execute(request.id);
    await Promise.race([runB, aSending.arrived]);
    aSending.release();
    await Promise.all([runA, runB]);
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    expect((await a.engine.get(request.id))?.state).toBe('sent');
  });

  test('sends once, and keeps the answer, when the stalled replica wakes after the other has sent', async ({
    world,
  }) => {
    const { sandbox, a, b, replicaA, replicaB, request } = await world('fence-late');
    let resumeA!: () => void;
    const aStalled = replicaA.stallExecutingWrite(new Promise<void>((r) => (resumeA = r)));
    const runA = partsOf(a.engine).executor.execute(request.id);
    await aStalled;
    replicaB.loseLock();
    b.clock.advance(CLAIM_LEASE_MS + 1_000);
    const byB = await partsOf(b.engine).executor.execute(request.id);
    expect(byB?.state).toBe('sent');
    resumeA(); // A's late write must neither send nor undo what B recorded
    await runA;
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    const after = await a.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.outcome?.reference).toBe(byB?.outcome?.reference);
  });

  test('sends once when a replica stalled before its sending mark wakes after the other sent it', async ({
    world,
  }) => {
    const { sandbox, a, b, replicaA, replicaB, request } = await world('fence-unmarked');
    let resumeA!: () => void;
    const aStalled = replicaA.stallMarkWrite(new Promise<void>((r) => (resumeA = r)));
    const runA = partsOf(a.engine).executor.execute(request.id);
    await aStalled; // A claimed and recorded it, and is about to write its mark
    // Long enough later that A's lease ran out: B hands the unmarked claim back, claims it and sends.
    replicaB.loseLock();
    b.clock.advance(EXECUTION_LEASE_MS + 1_000);
    await b.engine.tick();
    await b.engine.idle();
    const byB = await b.engine.get(request.id);
    expect(byB?.state).toBe('sent');
    expect(byB?.history.map((h) => h.action)).toContain('released');
    resumeA(); // A's mark must not land, and A must send nothing
    await runA;
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    const after = await a.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.outcome?.reference).toBe(byB?.outcome?.reference);
  });

  test('sends once when a replica stalled writing the mark on its claim wakes after the claim was ended', async ({
    world,
  }) => {
    const { sandbox, a, b, replicaA, replicaB, request } = await world('fence-claim-mark');
    let resumeA!: () => void;
    const aStalled = replicaA.stallClaimMark(new Promise<void>((r) => (resumeA = r)));
    const runA = partsOf(a.engine).executor.execute(request.id);
    await aStalled; // A claimed, recorded it, and its "sending" mark on the claim hangs
    // Long enough later that A's lease ran out: B hands the request back and ends A's claim; only then
    // does A's mark reach the store, before B claims again.
    replicaB.loseLock();
    b.clock.advance(EXECUTION_LEASE_MS + 1_000);
    replicaB.beforeClaimingAgain(async () => {
      resumeA();
      await runA;
    });
    await b.engine.tick();
    await b.engine.idle();
    await runA;
    // A's late mark was refused and A sent nothing; the request was not left approved and unsent.
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    const after = await a.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.history.map((h) => h.action)).toContain('released');
  });

  test("keeps the other replica's send when a replica whose mark failed records its failure late", async ({
    world,
  }) => {
    const { sandbox, a, b, replicaA, replicaB, request } = await world('fence-mark-failed');
    let resumeA!: () => void;
    const aStalled = replicaA.stallMarkWrite(new Promise<void>((r) => (resumeA = r)), true);
    const runA = partsOf(a.engine).executor.execute(request.id);
    await aStalled; // A claimed; its mark write hangs and will fail
    // A's lease ran out: B hands the unmarked claim back, claims it, marks it and is mid-POST…
    replicaB.loseLock();
    b.clock.advance(EXECUTION_LEASE_MS + 1_000);
    const bSending = sandbox.hold('POST', '/v1/api/withdraw');
    const sweepB = b.engine.tick();
    await bSending.arrived;
    // …when A's store answers with an error and A records "failed: nothing was sent".
    resumeA();
    await runA;
    expect((await a.engine.get(request.id))?.state).toBe('executing');
    bSending.release();
    await sweepB;
    await b.engine.idle();
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    const after = await a.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.outcome?.reference).toMatch(/\S/);
    expect((await b.engine.findByReference(after?.outcome?.reference ?? ''))?.id).toBe(request.id);
  });
});
