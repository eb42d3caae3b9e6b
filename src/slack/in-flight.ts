// Work that continues after the ack (service call, answer through response_url or views.update).
// Shutdown waits for it, so a SIGTERM between the ack and the answer does not leave a user with a
// "working…" message that never resolves.
export interface InFlight {
  /** Runs `work` and remembers it until it settles; errors are the caller's to handle. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves when everything started so far has settled, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
  readonly size: number;
}

export function createInFlight(): InFlight {
  const running = new Set<Promise<unknown>>();
  return {
    run(work) {
      const promise = work();
      const settled = promise.then(
        () => undefined,
        () => undefined,
      );
      running.add(settled);
      void settled.then(() => running.delete(settled));
      return promise;
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      await Promise.race([Promise.allSettled([...running]).then(() => undefined), deadline]);
      clearTimeout(timer);
    },
    get size() {
      return running.size;
    },
  };
}
