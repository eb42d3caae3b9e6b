// Where the bot holds the audit signing key, the chain is read for the request as it is claimed, under
// the claim's lock: a store writer who sets a closed request back to approved right after the bot's
// first read (the late lookup's, which saw it closed and so read no chain) never has it sent again. A
// chain read that fails there sends nothing and settles nothing: the request stays approved for the next
// sweep. Right before the call the chain is read once more, and a read error there sends nothing either.
import { describe, expect } from 'vitest';
import { CHAIN_UNREAD_AT_CALL, CLOSED_ON_CHAIN, SENT_ON_CHAIN } from '../../src/approvals/closed-on-chain.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine } from '../../src/approvals/index.js';
import type { LateLookup } from '../../src/approvals/late-lookup.js';
import type { ChainWord } from '../../src/audit/index.js';
import type { Store } from '../../src/store/index.js';
import {
  approvedAndCalled,
  approvedAndExecuted,
  execute,
  leftToAPerson,
  revive,
  test,
} from './closed-support.js';
import { withdrawal, withdrawCalls } from './delegation-support.js';

/**
 * A store writer revives `id` right after the late lookup's read (which found it closed, so it read no
 * chain); from then on the chain's head cannot be read while `unreadable()` holds.
 */
function reviveAfterFirstRead(
  engine: ApprovalEngine,
  store: Store,
  id: string,
  unreadable: () => boolean,
): void {
  const late = (partsOf(engine).executor as unknown as { lateLookup: LateLookup }).lateLookup;
  const beforeSending = late.beforeSending.bind(late);
  let first = true;
  late.beforeSending = async (requestId) => {
    const looked = await beforeSending(requestId);
    if (first && requestId === id) {
      first = false;
      await revive(store, id);
    }
    return looked;
  };
  const log = partsOf(engine).core.repo.auditLog;
  const head = log.head.bind(log);
  log.head = (environment) =>
    first || !unreadable() ? head(environment) : Promise.reject(new Error('unparsable head'));
}

describe('with the audit signing key, a request revived right after the bot first read it closed', () => {
  test('completed, the chain unreadable at the claim: nothing sent, left approved; the next run completes it as the chain says', async ({
    fx,
    engine,
    networkId,
  }) => {
    const { request } = await approvedAndCalled(fx, withdrawal(networkId, '1500'), { settled: true });
    expect((await engine.get(request.id))?.state).toBe('completed');

    let unreadable = true;
    reviveAfterFirstRead(engine, fx.store, request.id, () => unreadable);
    await expect(partsOf(engine).executor.execute(request.id)).rejects.toThrow('unparsable head');
    await engine.idle();
    expect((await engine.get(request.id))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(1);

    unreadable = false;
    const settled = await execute(engine, request.id);
    expect(settled?.state).toBe('completed');
    expect(settled?.history.at(-1)?.note).toContain(`${CLOSED_ON_CHAIN} (completed,`);
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('completed, the chain readable: not sent again, and completed as the chain records', async ({
    fx,
    engine,
    networkId,
  }) => {
    const { request } = await approvedAndCalled(fx, withdrawal(networkId, '1500'), { settled: true });

    reviveAfterFirstRead(engine, fx.store, request.id, () => false);
    const settled = await execute(engine, request.id);
    expect(settled?.state).toBe('completed');
    expect(settled?.outcome?.nothingSent).toBeUndefined();
    expect(settled?.history.at(-1)?.note).toContain(`${CLOSED_ON_CHAIN} (completed,`);
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('sent, its answer not yet in: not sent again, and left to a person as sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const { request } = await approvedAndCalled(fx, withdrawal(networkId, '1500'));
    expect((await engine.get(request.id))?.state).toBe('sent');

    reviveAfterFirstRead(engine, fx.store, request.id, () => false);
    const settled = await execute(engine, request.id);
    leftToAPerson(settled, `${SENT_ON_CHAIN} (sent,`);
    expect(settled?.outcome?.nothingSent).toBeUndefined();
    expect(withdrawCalls(fx)).toBe(1);
  });
});

describe('with the audit signing key, the chain read right before the call', () => {
  /** The chain's word as read right before the call (the request executing): `word`. */
  function wordAtTheCall(engine: ApprovalEngine, word: () => Promise<ChainWord>): void {
    const closings = (
      partsOf(engine).core.signed.closedOnChain as unknown as {
        closings: { wordOn(id: string): Promise<ChainWord> };
      }
    ).closings;
    const wordOn = closings.wordOn.bind(closings);
    closings.wordOn = async (id) => ((await engine.get(id))?.state === 'executing' ? word() : wordOn(id));
  }

  test('unreadable: nothing sent, and the request fails saying the bot could not read before sending', async ({
    fx,
    engine,
    networkId,
  }) => {
    wordAtTheCall(engine, () => Promise.reject(new Error('unparsable head')));
    const after = await approvedAndExecuted(engine, networkId);
    expect(after?.state).toBe('failed');
    expect(after?.outcome?.nothingSent).toBe(true);
    expect(after?.history.at(-1)?.note).toContain(CHAIN_UNREAD_AT_CALL);
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('records it sent: nothing sent, and it ends outcome unknown, never "nothing was sent"', async ({
    fx,
    engine,
    networkId,
  }) => {
    const at = new Date().toISOString();
    wordAtTheCall(engine, async () => ({ called: { state: 'sent', at } }));
    const after = await approvedAndExecuted(engine, networkId);
    expect(after?.state).toBe('outcome-unknown');
    expect(after?.outcome?.nothingSent).toBeUndefined();
    expect(after?.history.some((h) => h.note?.includes(`${SENT_ON_CHAIN} (sent,`))).toBe(true);
    expect(withdrawCalls(fx)).toBe(0);
  });
});
