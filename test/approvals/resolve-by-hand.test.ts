// A person resolves by hand only what the bot cannot settle itself: a delegation (or an unfreeze) takes
// effect in the bot's own store or not at all, and the sweep settles it from there, so no one's word
// may mark one "completed" that the store never recorded (it would be read by id at a send, and no
// revocation would reach it).
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { ADE, BOLA, CHIDI, DAY, DAYO, test } from './delegation-support.js';

describe('resolving by hand', () => {
  test('refuses a delegation of unknown outcome: the bot settles it from its store', async ({ fx }) => {
    const filed = await fx.engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + DAY));
    // Its write interrupted, as the store records it: of unknown outcome, never recorded in the book.
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(filed.id);
    if (!stored) throw new Error('not stored');
    expect(await repo.saveIf(stored, { ...stored, state: 'outcome-unknown' })).toBe(true);
    expect(await fx.engine.resolveByHand(filed.id, DAYO, 'completed', 'looks fine to me')).toMatchObject({
      ok: false,
      reason: 'settled-by-the-bot',
    });
    expect(await fx.engine.resolveByHand(filed.id, ADE, 'failed', 'not in effect')).toMatchObject({
      ok: false,
      reason: 'settled-by-the-bot',
    });
    expect((await fx.engine.get(filed.id))?.state).toBe('outcome-unknown');
    expect(await partsOf(fx.engine).core.delegations.all()).toEqual([]);
  });
});
