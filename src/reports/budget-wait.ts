// Background reads never take the slots kept for money and people: when the budget is spent they are
// refused at once (RateBudgetError). A report can afford to wait, so it tries again once the budget
// frees, until its deadline; past it the refusal stands.
import { CngnErrorCode, cngnCallError } from '../cngn/errors.js';

export interface Patience {
  /** Epoch ms after which no more waiting is done. */
  deadline: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The call's answer; its RateBudgetError when the budget stays spent past the deadline. */
export async function whenBudgetAllows<T>(call: () => Promise<T>, patience: Patience): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const refused = cngnCallError(error);
      if (refused?.code !== CngnErrorCode.RateBudget) throw error;
      const waitMs = refused.retryInSeconds * 1000;
      if (patience.now() + waitMs > patience.deadline) throw error;
      await patience.sleep(waitMs);
    }
  }
}
