// The record of one scheduled report run in the store, and the lease a replica holds on it while it
// posts. Every change is a compareAndSet of the whole record, so taking the run, renewing the lease,
// recording a posted part and closing the run are atomic against one another on every store kind: a
// replica whose lease was taken over writes nothing more. Lease times are the replicas' clocks, which
// the schedule's due times already trust.
import type { Store } from '../store/index.js';

/** A closed run's record is kept well past the longest period (a week), then expires. */
const CLOSED_TTL_MS = 60 * 86_400_000;

export interface RunRecord {
  /** `posting` until every part is posted (`posted`) or the last attempt failed (`failed`). */
  state: 'posting' | 'posted' | 'failed';
  /** ISO time the run was due. */
  due: string;
  /** The replica that took it last. */
  owner: string;
  /** Epoch ms: until then only `owner` may work on the run (a failed attempt holds it until its retry). */
  leaseUntil: number;
  /** Attempts taken, and of those the ones that ended in an error (the others stopped midway). */
  attempts: number;
  failures: number;
  /** The parts Slack accepted, each recorded right after. */
  parts: string[];
}

export interface RunLeaseOptions {
  owner: string;
  /** Every part of a run: one whose parts were all posted is done, whatever its attempts. */
  parts: readonly string[];
  leaseMs: number;
  maxAttempts: number;
  now: () => Date;
}

/** What a replica found when it looked at a run. */
export type RunLook =
  /** Posted, or closed after its last attempt (a run recorded before leases were kept counts too). */
  | { kind: 'done'; record: unknown }
  /** Someone holds a live lease: look again after `until`. */
  | { kind: 'leased'; until: number }
  /** This replica holds it now; `previous` is the record as it found it. */
  | { kind: 'taken'; lease: RunLease; previous: RunRecord | undefined }
  /**
   * Its attempts were used up by replicas that stopped midway with parts still to post; this replica
   * closed it as failed (`record.parts` says which parts did come).
   */
  | { kind: 'exhausted'; record: RunRecord };

function isRunRecord(value: unknown): value is RunRecord {
  return typeof value === 'object' && value !== null && 'state' in value && 'leaseUntil' in value;
}

/** Take the run named `key` (due at `due`) when it is unfinished and no live lease is held on it. */
export async function takeRun(
  store: Store,
  key: string,
  due: Date,
  options: RunLeaseOptions,
): Promise<RunLook> {
  const found = await store.get<unknown>(key);
  if (found !== undefined && (!isRunRecord(found) || found.state !== 'posting')) {
    return { kind: 'done', record: found };
  }
  const previous = found;
  const now = options.now().getTime();
  if (previous && previous.leaseUntil > now) return { kind: 'leased', until: previous.leaseUntil };
  const attempts = previous?.attempts ?? 0;
  const parts = previous?.parts ?? [];
  const base = { due: due.toISOString(), owner: options.owner, failures: previous?.failures ?? 0 };
  // Every part was posted, by a holder that stopped before closing it: the run is done.
  const complete = options.parts.every((part) => parts.includes(part));
  if (complete || attempts >= options.maxAttempts) {
    const closed: RunRecord = {
      ...base,
      state: complete ? 'posted' : 'failed',
      leaseUntil: now,
      attempts,
      parts,
    };
    return closeRun(store, key, previous, closed, now);
  }
  const taken: RunRecord = {
    state: 'posting',
    ...base,
    leaseUntil: now + options.leaseMs,
    attempts: attempts + 1,
    parts,
  };
  if (!(await store.compareAndSet(key, previous, taken))) return lookedAgain(store, key, now);
  return { kind: 'taken', lease: new RunLease(store, key, taken, options), previous };
}

/** Closes the run as `closed` says (posted or failed) unless another changed it first. */
async function closeRun(
  store: Store,
  key: string,
  previous: RunRecord | undefined,
  closed: RunRecord,
  now: number,
): Promise<RunLook> {
  if (!(await store.compareAndSet(key, previous, closed))) return lookedAgain(store, key, now);
  await store.set(key, closed, CLOSED_TTL_MS);
  return closed.state === 'posted' ? { kind: 'done', record: closed } : { kind: 'exhausted', record: closed };
}

/**
 * Close the run named `key` as failed when it was left unfinished (posting, its lease run out), so
 * exactly one replica finds it so; the record as closed, or undefined when there was nothing to close.
 */
export async function closeAbandoned(
  store: Store,
  key: string,
  options: Pick<RunLeaseOptions, 'owner' | 'now'>,
): Promise<RunRecord | undefined> {
  const found = await store.get<unknown>(key);
  const now = options.now().getTime();
  if (!isRunRecord(found) || found.state !== 'posting' || found.leaseUntil > now) return undefined;
  const closed: RunRecord = { ...found, state: 'failed', owner: options.owner, leaseUntil: now };
  if (!(await store.compareAndSet(key, found, closed))) return undefined;
  await store.set(key, closed, CLOSED_TTL_MS);
  return closed;
}

/**
 * What a run's record under its former name (no environment in it) holds once taken over: the
 * environment that took it, and the record found there (none when there was none). An older replica
 * finds it no run record, so it takes it as done and posts nothing.
 */
interface TakenOver {
  takenOverFor: string;
  record?: unknown;
}

function isTakenOver(value: unknown): value is TakenOver {
  return typeof value === 'object' && value !== null && 'takenOverFor' in value;
}

/** Tries at the take-over when others keep changing the former record meanwhile; then look again. */
const TAKE_OVER_TRIES = 3;

/**
 * Take the run's former record (`formerKey`, written by older versions, which name no environment) over
 * for `environment`, the one this install runs in, once across replicas, before the run's own record
 * (`key`) is looked at: it is replaced by compare-and-set with a mark no older replica will post under,
 * whatever it held (nothing too), and what it held becomes the run's record under `key`, so a run an
 * older replica posted, or left half-posted, is never posted from the start again. A run an older
 * replica is still posting (its lease live) is left to it: undefined then, with when its lease ends;
 * `taken` once the run's own record may be worked on.
 */
export async function takeOverFormer(
  store: Store,
  keys: { key: string; formerKey: string },
  environment: string,
  now: number,
): Promise<{ taken: true } | { taken: false; until: number }> {
  for (let tries = 0; tries < TAKE_OVER_TRIES; tries++) {
    const found = await store.get<unknown>(keys.formerKey);
    if (isTakenOver(found)) {
      // Another environment took it: the run's own record is this environment's alone.
      if (found.takenOverFor === environment && found.record !== undefined) {
        await copyRecord(store, keys.key, found.record);
      }
      return { taken: true };
    }
    if (isRunRecord(found) && found.state === 'posting' && found.leaseUntil > now) {
      return { taken: false, until: found.leaseUntil };
    }
    const mark: TakenOver = { takenOverFor: environment, ...(found === undefined ? {} : { record: found }) };
    // Nothing writes it again once marked: it may expire as a closed run does.
    if (await store.compareAndSet(keys.formerKey, found, mark))
      await store.set(keys.formerKey, mark, CLOSED_TTL_MS);
  }
  return { taken: false, until: now };
}

/**
 * The former record as the run's own, unless the run's record was written already (by a replica that
 * copied it first, then maybe went on with it).
 */
async function copyRecord(store: Store, key: string, record: unknown): Promise<void> {
  if (!(await store.compareAndSet(key, undefined, record))) return;
  if (!isRunRecord(record) || record.state !== 'posting') await store.set(key, record, CLOSED_TTL_MS);
}

/** Another replica changed the record first: say what it holds now. */
async function lookedAgain(store: Store, key: string, now: number): Promise<RunLook> {
  const record = await store.get<unknown>(key);
  if (isRunRecord(record) && record.state === 'posting') {
    return { kind: 'leased', until: Math.max(record.leaseUntil, now) };
  }
  return { kind: 'done', record };
}

/** A replica's hold on a run it took; every write fails (and `lost` is set) once someone took it over. */
export class RunLease {
  /** Set when a write found the record changed by someone else: nothing more may be posted. */
  lost = false;
  private ended = false;
  private chain: Promise<unknown> = Promise.resolve();
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly key: string,
    private current: RunRecord,
    private readonly options: RunLeaseOptions,
  ) {}

  get record(): RunRecord {
    return this.current;
  }

  /** Extend the lease every `everyMs` until stopRenewing (a slow build keeps it). */
  renewEvery(everyMs: number, onError: (error: unknown) => void): void {
    this.renewal = setInterval(() => {
      this.renew().catch(onError);
    }, everyMs);
    this.renewal.unref();
  }

  stopRenewing(): void {
    clearInterval(this.renewal);
  }

  renew(): Promise<boolean> {
    return this.update((r) => ({ ...r, leaseUntil: this.leaseEnd() }));
  }

  /** Record a part Slack accepted (and extend the lease for the next one). */
  posted(part: string): Promise<boolean> {
    return this.update((r) => ({ ...r, parts: [...r.parts, part], leaseUntil: this.leaseEnd() }));
  }

  /** This attempt failed: the run stays leased until `retryAt`, when any replica may try again. */
  failed(retryAt: number): Promise<boolean> {
    return this.update((r) => ({ ...r, failures: r.failures + 1, leaseUntil: retryAt }), true);
  }

  /** Give the run back unworked (this replica is stopping): any replica may take it at once. */
  release(): Promise<boolean> {
    return this.update(
      (r) => ({ ...r, attempts: r.attempts - 1, leaseUntil: this.options.now().getTime() }),
      true,
    );
  }

  /**
   * Give the run back after working on it (this replica is stopping, no Slack call in flight): any
   * replica may take it at once. The attempt stands, neither taken back nor failed, so the next one says
   * truly that the bot posting it stopped before it was done.
   */
  giveBack(): Promise<boolean> {
    return this.update((r) => ({ ...r, leaseUntil: this.options.now().getTime() }), true);
  }

  /** Close the run for good: every part posted, or its last attempt failed. */
  async close(state: 'posted' | 'failed', failed = false): Promise<boolean> {
    const closed = await this.update(
      (r) => ({
        ...r,
        state,
        failures: r.failures + (failed ? 1 : 0),
        leaseUntil: this.options.now().getTime(),
      }),
      true,
    );
    // Closed, no replica writes it again: it may now expire.
    if (closed) await this.store.set(this.key, this.current, CLOSED_TTL_MS);
    return closed;
  }

  private leaseEnd(): number {
    return this.options.now().getTime() + this.options.leaseMs;
  }

  /**
   * Writes one at a time, each over the record as this replica last wrote it; after the `last` one
   * (the attempt ends) none is made.
   */
  private update(change: (record: RunRecord) => RunRecord, last = false): Promise<boolean> {
    if (last) this.stopRenewing();
    const write = this.chain.then(async () => {
      if (this.lost || this.ended) return false;
      if (last) this.ended = true;
      const next = change(this.current);
      if (!(await this.store.compareAndSet(this.key, this.current, next))) {
        this.lost = true;
        this.stopRenewing();
        return false;
      }
      this.current = next;
      return true;
    });
    this.chain = write.catch(() => undefined);
    return write;
  }
}
