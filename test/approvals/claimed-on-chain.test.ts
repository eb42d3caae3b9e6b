// Where the bot holds the audit signing key, a request whose last step on the signed chain is its claim
// (`executing`), with no hand-back after it, may have been called: the bot can stop after the call and
// before its `sent` entry, and the write-ahead mark is not on the chain. A store writer who sets it back
// to approved and takes its claim key away never has it sent again: it ends outcome unknown and a
// person is asked. The bot's own hand-backs of a claim that sent nothing (the tracker releasing a lapsed
// claim, a freeze holding one) are on the chain, so those requests still go out, once; a call made is on
// the chain too (its entry right before the call), so no hand-back a store writer provokes after it counts.
import { describe, expect } from 'vitest';
import {
  CHAIN_UNREAD_AFTER_CALL_ENTRY,
  CLAIMED_ON_CHAIN,
  type ClosingsReader,
  SENT_ON_CHAIN,
} from '../../src/approvals/closed-on-chain.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import {
  type ApprovalEngine,
  type ApprovalRequest,
  HELD_ACTION,
  needsAPerson,
} from '../../src/approvals/index.js';
import { CALL_ACTION, CLAIM_HAND_BACKS } from '../../src/audit/verified-closings.js';
import type { EngineFixture } from '../support/engine.js';
import { liftFreeze } from '../support/unfreeze.js';
import {
  approvedAndExecuted,
  approvedWithdrawal,
  execute,
  forgeLapsedClaim,
  leftToAPerson,
  revive,
  test,
} from './closed-support.js';
import { ADE, DAYO, withdrawCalls } from './delegation-support.js';

type Appender = (...args: unknown[]) => Promise<unknown>;

/**
 * `id` executed by `engine` while, at its call's entry (just `before` or `after` it is appended), a
 * store writer makes its claim look lapsed and another replica's tracker runs (forgeLapsedClaim).
 */
async function forgeLapseAtCallEntry(
  fx: EngineFixture,
  engine: ApprovalEngine,
  id: string,
  when: 'before' | 'after',
): Promise<void> {
  const log = (partsOf(engine).executor as unknown as { repo: { auditLog: { append: Appender } } }).repo
    .auditLog;
  const append = log.append.bind(log);
  let forged = false;
  const forge = async () => {
    forged = true;
    await forgeLapsedClaim(fx, engine, id);
  };
  log.append = async (...args) => {
    const calling = (args[1] as { action?: string }).action === CALL_ACTION && !forged;
    if (calling && when === 'before') await forge();
    const entry = await append(...args);
    if (calling && when === 'after') await forge();
    return entry;
  };
  try {
    await partsOf(engine).executor.execute(id);
  } finally {
    log.append = append;
  }
  await engine.idle();
  expect(forged).toBe(true);
}

/**
 * A withdrawal approved and sent by `engine`, which is stopped right after the call: its answer, and
 * the answer's entry, never land. The request as filed.
 */
async function calledThenStopped(
  fx: EngineFixture,
  engine: ApprovalEngine,
  networkId: string,
): Promise<ApprovalRequest> {
  const request = await approvedWithdrawal(engine, networkId);
  const answers = (partsOf(engine).executor as unknown as { answers: { keep: () => Promise<never> } })
    .answers;
  const keep = answers.keep;
  answers.keep = () => Promise.reject(new Error('stopped after the call'));
  try {
    await expect(partsOf(engine).executor.execute(request.id)).rejects.toThrow('stopped after the call');
  } finally {
    answers.keep = keep;
  }
  expect(withdrawCalls(fx)).toBe(1);
  return request;
}

/** A withdrawal approved, then claimed by `engine`, which stops there (nothing marked, nothing sent). */
async function claimedThenStopped(engine: ApprovalEngine, networkId: string): Promise<ApprovalRequest> {
  const request = await approvedWithdrawal(engine, networkId);
  const claimed = await partsOf(engine).executor.claimExecution(request.id);
  expect(claimed).toBeDefined();
  if (!claimed) throw new Error('not claimed');
  return claimed;
}

describe('with the audit signing key, a request claimed on the chain', () => {
  test('called, the bot stopped before recording it, then set back to approved: not sent again, left to a person', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await calledThenStopped(fx, engine, networkId);

    await revive(fx.store, request.id);
    const after = await execute(engine, request.id);
    leftToAPerson(after, SENT_ON_CHAIN);
    expect(after?.outcome?.nothingSent).toBeUndefined();
    expect(after?.history.at(-1)?.action).toBe('needs-manual-check');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('claimed, the bot stopped, then set back to approved: the chain cannot show it unsent, so a person is asked', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await claimedThenStopped(engine, networkId);
    await revive(fx.store, request.id);
    const after = await execute(engine, request.id);
    leftToAPerson(after, CLAIMED_ON_CHAIN);
    expect(after?.outcome?.nothingSent).toBeUndefined();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('called, the bot stopped, then made to look claimed but unmarked for the tracker to release: not sent again', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await calledThenStopped(fx, engine, networkId);

    fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
    await forgeLapsedClaim(fx, engine, request.id); // the claim that follows the release is refused
    const after = await engine.get(request.id);
    expect(after?.history.map((h) => h.action)).toContain('released');
    leftToAPerson(after);
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('released by the tracker after its claim lapsed unmarked: sent once', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await claimedThenStopped(engine, networkId);
    fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
    await engine.tick(); // released, then claimed again and sent
    await engine.idle();
    await engine.tick();
    await engine.idle();
    const after = await engine.get(request.id);
    expect(after?.history.map((h) => h.action)).toContain('released');
    expect(after?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('held by a freeze before its mark: sent once after the unfreeze', async ({
    fx,
    engine,
    networkId,
  }) => {
    const claimed = await claimedThenStopped(engine, networkId);
    await engine.freezeSends(ADE, 'stop everything');
    expect(await partsOf(engine).executor.markSending(claimed)).toBeUndefined();
    expect((await engine.get(claimed.id))?.history.at(-1)?.action).toBe(HELD_ACTION);
    await liftFreeze(engine, ADE, DAYO);
    expect((await engine.get(claimed.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  // Before: the other replica's call entry lies between this one's claim and its call entry, so this
  // one sends nothing. After: this one's call entry is on the chain before the other's claim: refused.
  // Each case: when the store writer acts, what follows, and the note a person is asked with (none: sent).
  test.for([
    ['before', 'another replica sends it, this one does not', undefined],
    ['after', 'the other replica is refused, a person asked', `${SENT_ON_CHAIN} (its call begun,`],
  ] as const)(
    'a store writer makes its claim look lapsed %s its call entry: %s',
    async ([when, _outcome, personAsked], { fx, engine, networkId }) => {
      const request = await approvedWithdrawal(engine, networkId);
      await forgeLapseAtCallEntry(fx, engine, request.id, when);
      expect(withdrawCalls(fx)).toBe(1);
      const after = await engine.get(request.id);
      if (personAsked === undefined) expect(after?.state).toBe('sent');
      else leftToAPerson(after, personAsked);
    },
  );

  test('the chain unreadable after its call entry: nothing sent, left to a person with words that say so', async ({
    fx,
    engine,
    networkId,
  }) => {
    const closings = (
      partsOf(engine).executor as unknown as { signed: { closedOnChain: { closings: ClosingsReader } } }
    ).signed.closedOnChain.closings;
    const holds = closings.ownClaimHolds.bind(closings);
    closings.ownClaimHolds = async (id, own, call) => {
      if (call) throw new Error('the store timed out');
      return holds(id, own);
    };
    const after = await approvedAndExecuted(engine, networkId);
    expect(withdrawCalls(fx)).toBe(0);
    expect(after?.state).toBe('outcome-unknown');
    const note = after?.history.find((h) => h.note?.includes(CHAIN_UNREAD_AFTER_CALL_ENTRY))?.note ?? '';
    expect(note).toContain(CHAIN_UNREAD_AFTER_CALL_ENTRY);
    expect(needsAPerson(note)).toBe(true);
  });

  test("the chain's reader knows the bot's hand-backs by their steps' actions", () => {
    expect([...CLAIM_HAND_BACKS].sort()).toEqual(['released', HELD_ACTION].sort());
  });
});
