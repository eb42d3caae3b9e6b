// Work that continues after the ack (service call, answer through response_url or views.update).
// It never starts on the tick of the ack: each piece waits for a turn of the event loop of its own,
// one per turn, so requests read in between are acked first. While Slack requests keep arriving
// (a burst), queued pieces wait for a quiet moment, up to `maxWaitMs`: answers may queue, acks may not.
// Shutdown waits for it, so a SIGTERM between the ack and the answer does not leave a user with a
// "working…" message that never resolves.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../log.js';

export interface InFlight {
  /** Queues `work` to start on a later turn and remembers it until it settles; errors are the caller's. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Resolves on a later turn of its own, as a queued start would (acks first, quiet moments waited
   * for): work that many pieces may reach at once awaits it before its next step (an answer's post).
   */
  turn(): Promise<void>;
  /**
   * Resolves on a later turn of its own, one per turn, without waiting for a quiet moment: for work
   * that may run before its own request's ack (an open request counts as traffic until answered).
   */
  stagger(): Promise<void>;
  /** Resolves when everything queued or started so far has settled, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
  readonly size: number;
}

/** Slack requests as they come and go, so answers can make way for acks. */
export interface SlackTraffic {
  /** A Slack request began to arrive. */
  arrived(): void;
  /**
   * A Slack request was read and is being acked; call what this returns once it has been answered
   * (or dropped). A request still sending its body is not counted: it needs nothing from us yet.
   */
  acking(): () => void;
  /** True while a request is being acked, or one arrived or was answered within the last `quietMs`. */
  busy(): boolean;
}

/** How long without a new Slack request counts as a quiet moment, in ms. */
const QUIET_MS = 1;
/** The longest a queued answer waits for a quiet moment before it starts anyway, in ms. */
const MAX_WAIT_MS = 2_000;

export function createSlackTraffic(
  quietMs = QUIET_MS,
  now: () => number = performance.now.bind(performance),
): SlackTraffic {
  let open = 0;
  let last = Number.NEGATIVE_INFINITY;
  return {
    arrived() {
      last = now();
    },
    acking() {
      open++;
      last = now();
      let answered = false;
      return () => {
        if (answered) return;
        answered = true;
        open--;
        last = now();
      };
    },
    busy: () => open > 0 || now() - last < quietMs,
  };
}

export interface InFlightOptions {
  /** Queued work waits while Slack requests are arriving (none given: one start per turn, no waiting). */
  traffic?: SlackTraffic;
  /** The longest a piece waits for a quiet moment, in ms. */
  maxWaitMs?: number;
  /** How often a waiting piece looks again, in ms. */
  recheckMs?: number;
  now?: () => number;
}

export function createInFlight(options: InFlightOptions = {}): InFlight {
  const { traffic, maxWaitMs = MAX_WAIT_MS, recheckMs = QUIET_MS } = options;
  const now = options.now ?? performance.now.bind(performance);
  const running = new Set<Promise<unknown>>();
  const queued: Array<{ start: () => void; at: number }> = [];
  let scheduled = false;
  // One start per turn: setImmediate runs after the poll phase, where new requests are read and acked.
  const startNext = () => {
    scheduled = false;
    const head = queued[0];
    if (!head) return;
    if (traffic?.busy() && now() - head.at < maxWaitMs) {
      // Acks are being made: look again once the burst may have passed.
      scheduled = true;
      setTimeout(startNext, recheckMs);
      return;
    }
    queued.shift();
    head.start();
    if (queued.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(startNext);
  };
  const turn = () =>
    new Promise<void>((resolve) => {
      queued.push({ start: resolve, at: now() });
      schedule();
    });
  return {
    turn,
    stagger: staggered(),
    run(work) {
      const promise = turn().then(work);
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

/** One resolved per turn of the event loop (after the poll phase's reads), in the order asked. */
function staggered(): () => Promise<void> {
  const waiting: Array<() => void> = [];
  const next = () => {
    waiting.shift()?.();
    if (waiting.length > 0) setImmediate(next);
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length === 1) setImmediate(next);
    });
}

/**
 * Queues `work` after the ack without the listener waiting for it: Bolt keeps a request's whole
 * context alive until its listener returns, and with answers waiting behind a burst of acks that was
 * every request of the burst. The work answers its own failures to the user; one it lets through (the
 * answer itself could not be delivered) is logged as `what`'s, with Slack's id of the request.
 */
export function afterAck(
  inFlight: InFlight | undefined,
  work: () => Promise<void>,
  logger: Logger,
  what: string,
  slackId?: string,
): void {
  (inFlight ? inFlight.run(work) : work()).catch((error: unknown) => {
    (slackId ? logger.child({ slackRequestId: slackId }) : logger).error(
      'an answer after the ack could not be delivered',
      { what, error },
    );
  });
}
