// Work that continues after the ack (service call, answer through response_url or views.update).
// It never starts on the tick of the ack: each piece waits for a turn of the event loop of its own,
// one per turn, so requests read in between are acked first (answers may queue, acks may not).
// Shutdown waits for it, so a SIGTERM between the ack and the answer does not leave a user with a
// "working…" message that never resolves.
export interface InFlight {
  /** Queues `work` to start on a later turn and remembers it until it settles; errors are the caller's. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves when everything queued or started so far has settled, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
  readonly size: number;
}

export function createInFlight(): InFlight {
  const running = new Set<Promise<unknown>>();
  const queued: Array<() => void> = [];
  let scheduled = false;
  // One start per turn: setImmediate runs after the poll phase, where new requests are read and acked.
  const startNext = () => {
    scheduled = false;
    queued.shift()?.();
    if (queued.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(startNext);
  };
  return {
    run(work) {
      const promise = new Promise<void>((resolve) => {
        queued.push(resolve);
        schedule();
      }).then(work);
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
