// The freeze the signed audit chain holds, beside the store's record (freeze.ts): where the bot holds
// the audit signing key, sends are frozen when the record says so or the verified chain does. A record
// saying lifted, or gone, never lifts a freeze the chain holds: a store writer cannot lift the
// emergency stop. See docs/decisions/freeze-on-the-signed-chain.md.
import type { ChainFreeze } from '../audit/index.js';
import type { EngineLog, Freeze } from './types.js';

/** Who froze, where the chain cannot be read back to its latest freeze entry. */
const CHAIN_UNREAD_ACTOR = 'the audit chain';

/** Whether `freeze` is the one held because the chain cannot be read back to its latest freeze entry. */
export const chainUnreadable = (freeze: Pick<Freeze, 'by'>): boolean => freeze.by === CHAIN_UNREAD_ACTOR;
/**
 * The freeze held when the chain cannot be read back to its latest freeze entry, named by when the entry
 * that made it so was written: alike on every replica, so an unfreeze filed on one lifts it on another,
 * and different for each episode, so an unfreeze filed for one never lifts the next.
 */
const chainUnread = (since: string): Freeze => ({
  by: CHAIN_UNREAD_ACTOR,
  reason:
    'the signed audit chain does not verify back to its latest freeze, so sends are held; an approved /cngn unfreeze lifts this',
  at: since,
});

/** The freeze the chain holds: its own, the fail-safe one when it cannot be read back, or none. */
function chainHeld(chain: ChainFreeze): Freeze | undefined {
  if (chain.state === 'frozen') return { ...chain.freeze };
  return chain.state === 'unknown' ? chainUnread(chain.since) : undefined;
}

/** How long a freeze waits for the chain's answer before it is written anyway. */
const FREEZE_READ_MS = 2_000;

export interface ChainHoldDeps {
  read: () => Promise<ChainFreeze>;
  log?: EngineLog | undefined;
  /**
   * Asked once per disagreement: the record says sends are not frozen, the chain holds `freeze`. True
   * when it was told; false (not confirmed, or nobody to tell yet) asks again at the next read.
   */
  disagrees: (freeze: Freeze) => Promise<boolean>;
}

/**
 * The chain's freeze, read again only when the store's record changed since the last read or was seen
 * frozen meanwhile (a Slack surface asks at each rendering; the record moves at every freeze and lift),
 * or when a send or the sweep asks (`fresh`): those always read the chain, cached by its head in
 * VerifiedFreeze.
 */
export class ChainHold {
  #last: { record: string; held: Freeze | undefined } | undefined;
  #told = '';

  constructor(private readonly deps: ChainHoldDeps) {}

  /** The freeze the chain holds while the store's record (`record`, as read) says sends are not frozen. */
  async held(record: unknown, fresh: boolean): Promise<Freeze | undefined> {
    const seen = JSON.stringify(record ?? null);
    const last = this.#last;
    if (!fresh && last?.record === seen) return last.held;
    const held = chainHeld(await this.deps.read());
    this.#last = { record: seen, held };
    if (held) this.disagreement(seen, held);
    return held;
  }

  /**
   * For a new freeze: the chain's freeze when its read answers within FREEZE_READ_MS, else none.
   * Freezing is the safe direction: a read that fails or is slow never stops a freeze being written.
   */
  async heldForFreeze(record: unknown): Promise<Freeze | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, FREEZE_READ_MS, undefined);
    });
    const read = this.held(record, true).catch((error: unknown) => {
      this.deps.log?.warn(
        'the signed audit chain could not be read for a freeze; the freeze is written anyway',
        {
          error: error instanceof Error ? error.message : String(error),
        },
      );
      return undefined;
    });
    try {
      return await Promise.race([read, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether the chain names the unfreeze `request` as a lift already made or given up: a request put
   * back as approved by a store writer lifts nothing a second time.
   */
  async spent(request: { id: string }): Promise<boolean> {
    return (await this.deps.read()).spent.has(request.id);
  }

  /** The record was seen frozen: whatever it says next is read against the chain again. */
  forget(): void {
    this.#last = undefined;
  }

  /** Whether the chain, read again, still holds the freeze made at `at`. */
  async stillHeld(at: string): Promise<boolean> {
    return chainHeld(await this.deps.read())?.at === at;
  }

  /** Asked once per record and freeze, until it is told. */
  private disagreement(seen: string, held: Freeze): void {
    const key = `${seen} ${held.at}`;
    if (this.#told === key) return;
    this.#told = key;
    void this.deps.disagrees(held).then((told) => {
      if (!told && this.#told === key) this.#told = '';
    });
  }
}
