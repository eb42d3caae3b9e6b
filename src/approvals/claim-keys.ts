// The claim keys of a request's one service call (`approval-exec:*`), one per round and generation.
// A claim goes through up to three marks, each a compare-and-set on its key: held, `sending` (written
// before the request's own sending mark) and `calling` (written after it, just before the call). Only
// a claim marked `calling` can have been followed by a call, and no hand-back ever names one: a
// takeover or a freeze hands back only a request not marked sending (hand-back.ts).
import type { Store } from '../store/index.js';

// Generation 0 keeps the key the claim always had; each takeover adds one.
const claimKey = (id: string, round: number, generation: number) =>
  generation === 0 ? `approval-exec:${id}:${round}` : `approval-exec:${id}:${round}:${generation}`;
const MAX_CLAIM_GENERATIONS = 50;

interface ExecutionClaim {
  owner: string;
  until: string;
  /** Set just before the call: the claim then never lapses into a next generation (see claim()). */
  sending?: true;
  /** Set once the request is marked sending, right before the call: the call may have gone out. */
  calling?: true;
  /** Ended by a takeover (endClaim): its holder's late mark is refused. */
  ended?: true;
}

type Held = ExecutionClaim | string | undefined;

/** Tries of endClaim's compare-and-set: each refusal is the holder's own mark landing, at most once. */
const END_CLAIM_ATTEMPTS = 5;

const isCalling = (held: Held): boolean => typeof held === 'object' && held?.calling === true;

export class ExecutionClaims {
  constructor(private readonly store: Store) {}

  /**
   * Claim the one call of this request's round, for `leaseMs`: set-if-absent lets one process at a
   * time hold it. A claim whose lease ran out while the request is still approved was orphaned (its
   * holder stopped before recording it), so the next generation is claimed. The claim only keeps
   * replicas from working on the same request at once; what decides who sends is the conditional
   * save of the request (saveIf), so a holder that was overtaken never sends too. `handedBack`: the
   * generation the request, as read, was handed back from (hand-back.ts), ended here if it is not yet,
   * unless it is marked calling: no hand-back names such a claim, so the record is not believed.
   * Returns the generation won, or undefined while someone holds a live claim.
   */
  async claim(
    id: string,
    round: number,
    owner: string,
    now: Date,
    leaseMs: number,
    handedBack?: number,
  ): Promise<number | undefined> {
    const until = new Date(now.getTime() + leaseMs).toISOString();
    for (let generation = 0; generation < MAX_CLAIM_GENERATIONS; generation++) {
      const key = claimKey(id, round, generation);
      if (await this.store.setIfAbsent<ExecutionClaim>(key, { owner, until })) return generation;
      const held = await this.store.get<ExecutionClaim | string>(key);
      if (!(await this.passes(id, round, generation, held, now, handedBack))) return undefined;
    }
    return undefined;
  }

  /** Whether claim() may go on past this generation's claim, held by someone. */
  private async passes(
    id: string,
    round: number,
    generation: number,
    held: Held,
    now: Date,
    handedBack: number | undefined,
  ): Promise<boolean> {
    if (generation === handedBack) {
      if (isCalling(held)) return false;
      if (typeof held === 'object' && held?.ended) return true;
      // Its holder's calling mark can land after the read above: endClaim refuses such a claim.
      return this.endClaim(id, round, generation, now);
    }
    // A claim written before claims had leases (a bare owner id) counts as run out.
    if (typeof held !== 'object' || !held) return true;
    if (Date.parse(held.until) > now.getTime()) return false;
    // A generation whose holder was about to call (or called) the service is never followed by
    // another, whatever a stale copy of the request says: only endClaim (a hand-back of a request
    // that was certainly not sent) opens the next one.
    return !held.sending;
  }

  /**
   * The generation of this round whose claim is marked sending and not ended, with its lease run out:
   * what keeps claim() from going on. Undefined when none (or only a live one) is found; the
   * `handedBack` generation never counts (claim() ends it).
   */
  async lapsedSendingClaim(
    id: string,
    round: number,
    now: Date,
    handedBack?: number,
  ): Promise<number | undefined> {
    for (let generation = 0; generation < MAX_CLAIM_GENERATIONS; generation++) {
      const held = await this.store.get<ExecutionClaim | string>(claimKey(id, round, generation));
      if (held === undefined) return undefined;
      if (generation === handedBack || typeof held !== 'object' || held.ended || !held.sending) continue;
      return Date.parse(held.until) <= now.getTime() ? generation : undefined;
    }
    return undefined;
  }

  /** Whether this claim is marked calling: its call may have gone out, whatever a hand-back says. */
  async isCalling(id: string, round: number, generation: number): Promise<boolean> {
    return isCalling(await this.store.get<ExecutionClaim | string>(claimKey(id, round, generation)));
  }

  /**
   * Record on the claim itself, before the call, that its holder is about to send: a compare-and-set
   * on the claim as read, refused (false: nothing may be sent) when the claim is no longer this
   * owner's or was ended by a takeover meanwhile (the holder stalled past its lease).
   */
  async markSending(
    id: string,
    round: number,
    generation: number,
    owner: string,
    until: Date,
  ): Promise<boolean> {
    const key = claimKey(id, round, generation);
    const held = await this.store.get<ExecutionClaim | string>(key);
    if (typeof held !== 'object' || !held || held.owner !== owner || held.ended) return false;
    return this.store.compareAndSet<ExecutionClaim>(key, held, {
      owner,
      until: until.toISOString(),
      sending: true,
    });
  }

  /**
   * The request is marked sending: record on the claim, right before the call, that it is going out.
   * A compare-and-set on this owner's claim as marked sending; false (nothing may be sent) when the
   * claim is not that any more.
   */
  async markCalling(id: string, round: number, generation: number, owner: string): Promise<boolean> {
    const key = claimKey(id, round, generation);
    const held = await this.store.get<ExecutionClaim | string>(key);
    if (typeof held !== 'object' || !held || held.owner !== owner || held.ended || !held.sending) {
      return false;
    }
    return this.store.compareAndSet<ExecutionClaim>(key, held, { ...held, calling: true });
  }

  /**
   * A claim whose request was handed back (approved again: its holder stopped before the write-ahead
   * mark, and the request, written first, names this claim) ends now, so the next generation can be
   * claimed at once. Its holder can do nothing with it: the request it claimed is no longer executing
   * under it, and its mark, if it comes late, is refused. A compare-and-set on the claim as read,
   * read again when the holder's mark landed in between (the holder's write of the request then
   * fails: it sends nothing). A claim marked calling is never ended (false): its call may have gone
   * out, so the hand-back naming it was not the bot's.
   */
  async endClaim(id: string, round: number, generation: number, now: Date): Promise<boolean> {
    const key = claimKey(id, round, generation);
    for (let attempt = 0; attempt < END_CLAIM_ATTEMPTS; attempt++) {
      const held = await this.store.get<ExecutionClaim | string>(key);
      if (isCalling(held)) return false;
      const owner = typeof held === 'object' && held ? held.owner : String(held ?? '');
      const ended: ExecutionClaim = { owner, until: now.toISOString(), ended: true };
      if (await this.store.compareAndSet<ExecutionClaim | string>(key, held, ended)) return true;
    }
    throw new Error(`claim ${key} kept changing: not ended`);
  }

  /**
   * A freeze of sends came: end every claim of the round not yet marked as sending, by a
   * compare-and-set on each, so its holder's mark (a compare-and-set on the same claim) is refused
   * and it sends nothing. True when a claim was marked before: that call may be under way. The
   * `handedBack` claim marked only sending is not: the request no longer executes under it. One
   * marked calling always is: no hand-back names such a claim.
   */
  async endUnmarkedClaims(id: string, round: number, now: Date, handedBack?: number): Promise<boolean> {
    let sending = false;
    for (let generation = 0; generation < MAX_CLAIM_GENERATIONS; generation++) {
      const found = await this.endUnmarkedClaim(claimKey(id, round, generation), now);
      if (found === 'none') return sending; // generations are claimed in order: no later one
      if (found === 'calling' || (found === 'sending' && generation !== handedBack)) sending = true;
    }
    return sending;
  }

  /** End one claim unless marked as sending, by compare-and-set, retried while it changes under us. */
  private async endUnmarkedClaim(key: string, now: Date): Promise<'none' | 'sending' | 'calling' | 'ended'> {
    for (let attempt = 0; ; attempt++) {
      const held = await this.store.get<ExecutionClaim | string>(key);
      if (held === undefined) return 'none';
      // A bare owner id (a claim from before leases) can never be marked.
      if (typeof held !== 'object' || held.ended) return 'ended';
      if (held.calling) return 'calling';
      if (held.sending) return 'sending';
      const ended: ExecutionClaim = { owner: held.owner, until: now.toISOString(), ended: true };
      if (await this.store.compareAndSet<ExecutionClaim>(key, held, ended)) return 'ended';
      if (attempt + 1 >= END_CLAIM_ATTEMPTS) throw new Error(`claim ${key} kept changing: not ended`);
    }
  }
}
