// What the tests of the transaction-list lookups share (late-lookup.test.ts, reconcile.test.ts): a
// withdrawal made outside the bot, and an engine that reads the list only one short page back.

import { Money } from '../../src/format/money.js';
import type { EngineFixture } from '../support/engine.js';
import { DEST } from '../support/engine.js';

/**
 * A withdrawal made outside the bot, or once already by a process that is gone (or a lost timeline):
 * the service's answer.
 */
export const withdrawDirectly = (fx: EngineFixture, networkId: string, amount: string, address = DEST) =>
  fx.client.withdraw({ amount: Money.parseDecimal(amount), address, networkId });

/** Options for an engine that reads the transaction list one page of two back, no further. */
export const ONE_SHORT_PAGE = { engine: { reconcilePageSize: 2, reconcilePages: 1 } };
