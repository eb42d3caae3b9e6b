// A wait that ends as soon as a signal fires (a report's cut), for waits that take no signal themselves
// (a sleep on the test's clock, another read's promise).
/** `wait`, or the signal's reason as soon as it fires. */
export function untilAborted<T>(wait: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return wait;
  if (signal.aborted) {
    wait.catch(() => undefined); // left behind: its failure is nobody's news
    return Promise.reject(signal.reason);
  }
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([wait, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
