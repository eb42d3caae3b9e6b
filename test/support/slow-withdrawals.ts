// A service that makes a withdrawal at once and answers it late: the transaction is in its list while
// the bot's call is still in flight (the moment a lookup of another request can see it unrecorded).

import type { ApprovalEngine } from '../../src/approvals/index.js';
import type { CustodyGateway } from '../../src/approvals/ports.js';
import { custodyGateway } from '../../src/cngn/custody-gateway.js';
import type { Store } from '../../src/store/index.js';
import type { EngineFixture } from './engine.js';

export interface SlowWithdrawals {
  /** An engine on the fixture's store and sandbox whose withdrawals go through the slow service. */
  engine: ApprovalEngine;
  /** From now on each withdrawal's answer waits for `answer()`. */
  slow(): void;
  /** The reference of the first withdrawal made while slow, once the service has made it. */
  inList: Promise<string>;
  /** Let the withdrawals' answers through. */
  answer(): void;
}

/** `store`: the engine's own handle on the fixture's store (a test's wrapper of it), else the fixture's. */
export async function slowWithdrawals(
  fx: EngineFixture,
  slowFromStart = false,
  store?: Store,
): Promise<SlowWithdrawals> {
  const real = custodyGateway(fx.client);
  let slow = slowFromStart;
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let made!: (reference: string) => void;
  const inList = new Promise<string>((resolve) => {
    made = resolve;
  });
  const custody: CustodyGateway = {
    ...real,
    withdraw: async (order) => {
      const result = await real.withdraw(order);
      if (slow) {
        made(result.reference);
        await answered;
      }
      return result;
    },
  };
  const { engine } = await fx.another({ ...(store ? { store } : {}), engine: { custody } });
  return {
    engine,
    slow: () => {
      slow = true;
    },
    inList,
    answer,
  };
}
