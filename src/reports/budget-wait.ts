// Background reads never take the slots kept for money and people: when the budget is spent they are
// refused at once (RateBudgetError). A report can afford to wait, so it tries again once the budget
// frees, until its deadline; past it the refusal stands. The report's signal ends the wait at once.
import { untilAborted } from '../cngn/abort.js';
import { CngnErrorCode, cngnCallError } from '../cngn/errors.js';

export interface Patience {
  /** Epoch ms after which no more waiting is done. */
  deadline: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Fired (the report's cut): no further call, and the wait ends with its reason. */
  signal?: AbortSignal | undefined;
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The call's answer; its RateBudgetError when the budget stays spent past the deadline. */
export async function whenBudgetAllows<T>(call: () => Promise<T>, patience: Patience): Promise<T> {
  for (;;) {
    patience.signal?.throwIfAborted();
    try {
      return await call();
    } catch (error) {
      const refused = cngnCallError(error);
      if (refused?.code !== CngnErrorCode.RateBudget) throw error;
      const waitMs = refused.retryInSeconds * 1000;
      if (patience.now() + waitMs > patience.deadline) throw error;
      await untilAborted(patience.sleep(waitMs), patience.signal);
    }
  }
}
