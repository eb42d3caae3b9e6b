// The passkeys that count, kept in the shared store: every replica reads the same book, so a
// registration or a revocation holds at once everywhere and survives restarts. Also the one-time
// nonces a signing page asks the browser to sign with (approval-digest.ts), and the one-time links
// that open the pages. Who may register, and approving a registration, are the engine's (a
// registration is a request); this file only keeps the records.
import { createHash, randomBytes } from 'node:crypto';
import type { Passkey, SignatureRefusal } from '../access/index.js';
import type { Store } from '../store/index.js';
import {
  type ClickClosed,
  closedHolds,
  type PasskeySealer,
  sealClosed,
  sealHolds,
  sealPasskey,
} from './passkey-seal.js';
import type { ServiceEnvironment } from './ports.js';

/** How many times a change of the book is tried when others keep changing it under a lapsed lock. */
const CHANGE_RUNS = 5;

/** A one-time link or nonce works this long (the issue's 10 minutes). */
export const ONE_TIME_MS = 10 * 60_000;

/**
 * At most this many of a passkey's counted assertions are kept (the newest), however many counted
 * within a nonce's life: the book stays small. More than this by one passkey within ten minutes is no
 * person signing; the oldest is forgotten first, and a step of it run again is refused.
 */
export const COUNTED_MOST = 64;

/** A link's record is kept this long after it is issued, so an expired or used link still says whose it was. */
const LINK_KEPT_MS = 24 * 60 * 60_000;

/** What a one-time nonce was issued for: one approver signing one round of one request. */
export interface NonceFor {
  requestId: string;
  user: string;
  round: number;
}

/** What a one-time link opens: a registration, or the signing of one request, for one Slack user. */
export type LinkFor =
  | { page: 'register'; user: string; team: string }
  | { page: 'sign'; user: string; team: string; requestId: string; round: number };

/** A link as the book keeps it: what it opens, when it stops working, and when it was used. */
interface LinkRecord {
  link: LinkFor;
  issuedAt: string;
  expiresAt: string;
  usedAt?: string;
}

/** A link looked up: good, refused (expired or used, still saying whose it is), or never known here. */
export type LinkLookup =
  | { ok: true; link: LinkFor }
  | { ok: false; why: 'expired' | 'used'; link: LinkFor }
  | { ok: false; why: 'unknown' };

/**
 * Why a passkey page refused a link or a registration before any signature reached the engine: a link
 * the book found expired, used or unknown, or made by an install in another workspace, its person
 * one the access gate refuses (a guest, a bot, deactivated, not a member) or one Slack could not say
 * about, or a registration the engine did not file. The pages count each by this (cngn_passkey_page_refusals_total).
 */
export type PasskeyPageRefusal =
  | 'link-expired'
  | 'link-used'
  | 'link-unknown'
  | 'link-other-workspace'
  | 'person-barred'
  | 'person-unchecked'
  | 'registration-refused';

/**
 * A registration whose write went unanswered and was given up on, kept in the book beside the
 * passkeys: that request's passkey is never added (see barRegistration). No passkey: it has no seal,
 * so a book that seals never counts it, and `all()` leaves it out.
 */
interface BarredRegistration {
  credentialId: string;
  barred: { requestId: string; at: string };
}

/** What the book's one stored value holds: passkeys, and the registrations barred. */
type BookEntry = Passkey | BarredRegistration;

const isPasskey = (entry: BookEntry): entry is Passkey => !('barred' in entry);

/** Why a passkey's counter was not moved up: it did not go up, the passkey is revoked, or not in the book. */
type CounterRefusal = Extract<SignatureRefusal, 'counter-went-back' | 'revoked-passkey' | 'unknown-passkey'>;

/** What an assertion does to its passkey's record: counted already (nothing to write), counted now, or refused. */
type Counting = { again: true } | { next: Passkey } | { refusal: CounterRefusal };

/**
 * The assertion with `nonce` and `counter`, met at `at`, on `passkey` as the book holds it now. Its
 * counted assertions are kept for their nonces' life (ONE_TIME_MS from when each counted, which is
 * after its nonce was issued), at most COUNTED_MOST of them.
 */
function counting(passkey: Passkey, counter: number, nonce: string, at: Date): Counting {
  // Revoked while the assertion waited (its check read the book before): nothing it signs counts.
  if (passkey.revoked) return { refusal: 'revoked-passkey' };
  const since = at.getTime() - ONE_TIME_MS;
  // A kept one without a time it counted at is past its life.
  const counted = (passkey.counted ?? []).filter((c) => Date.parse(c.at) > since);
  if (counted.some((c) => c.nonce === nonce && c.counter === counter)) return { again: true };
  const stored = passkey.counter ?? 0;
  if ((counter > 0 || stored > 0) && counter <= stored) return { refusal: 'counter-went-back' };
  const entry = { nonce, counter, at: at.toISOString() };
  return {
    next: {
      ...passkey,
      counter,
      counted: [...counted, entry].slice(-COUNTED_MOST),
      lastUsedAt: at.toISOString(),
    },
  };
}

const token = () => randomBytes(24).toString('base64url');

export class PasskeyBook {
  constructor(
    private readonly store: Store,
    private readonly environment: ServiceEnvironment,
    /** Seals each record written (passkey-seal.ts); with it, a record without a holding seal never counts. */
    private readonly sealer?: PasskeySealer | undefined,
    /** The clock links are issued and checked by. */
    private readonly now: () => Date = () => new Date(),
    /**
     * Who counts towards the two holders that close the first-passkeys click (absent: the click is not
     * closed on a write). Asked before the book's lock, never under it; it should not wait on Slack.
     */
    private readonly countsTowardsTwo?: ((user: string) => Promise<boolean>) | undefined,
  ) {}

  private get key(): string {
    return `passkeys:${this.environment}`;
  }

  /** Every passkey ever registered here, revoked ones too (the audit and the verifier need them). */
  async all(): Promise<Passkey[]> {
    return ((await this.store.get<BookEntry[]>(this.key)) ?? []).filter(isPasskey);
  }

  /**
   * The records the bot wrote, revoked ones too: on a sealing book, only those whose seal holds (one
   * written or edited straight into the store counts as never registered).
   */
  async sealed(): Promise<Passkey[]> {
    return (await this.all()).filter((p) => this.holds(p));
  }

  private holds(passkey: Passkey): boolean {
    return !this.sealer || sealHolds(this.sealer.publicKey, this.environment, passkey);
  }

  /** `user`'s passkeys that count now. */
  async heldBy(user: string): Promise<Passkey[]> {
    return (await this.sealed()).filter((p) => p.user === user && !p.revoked);
  }

  /** The sealed record of a credential (undefined: none, or its seal does not hold). */
  async byCredential(credentialId: string): Promise<Passkey | undefined> {
    return (await this.sealed()).find((p) => p.credentialId === credentialId);
  }

  /** How many people hold a passkey that counts (a new install signs registrations once two do). */
  async holders(): Promise<number> {
    return new Set((await this.sealed()).filter((p) => !p.revoked).map((p) => p.user)).size;
  }

  /**
   * When the first-passkeys click closed for good here (two approvers had held passkeys), from its
   * sealed marker; undefined while it is open, or when the marker's seal does not hold.
   */
  async clickClosedAt(): Promise<Date | undefined> {
    const marker = await this.store.get<ClickClosed>(`${this.key}:click-closed`);
    if (!marker || !this.sealer || !closedHolds(this.sealer.publicKey, this.environment, marker))
      return undefined;
    return new Date(marker.at);
  }

  /** Close the first-passkeys click for good (a sealed marker; the first close is kept). */
  async closeClick(at: Date): Promise<void> {
    const { sealer } = this;
    if (!sealer || (await this.clickClosedAt())) return;
    await this.store.set(`${this.key}:click-closed`, sealClosed(sealer, this.environment, at.toISOString()));
  }

  private seal(passkey: Passkey): Passkey {
    return this.sealer ? sealPasskey(this.sealer, this.environment, passkey) : passkey;
  }

  /**
   * Read-change-write of the whole book under its lock, the write conditional on what was read: a
   * holder can stall past its lease on Redis or PostgreSQL while another replica takes the lock and
   * changes the book (see ApprovalCore.locked), and its late write must not undo that change (a
   * revocation, a counter moved). A refused write decides again on a fresh read, a few times at most.
   */
  private change(
    fn: (book: BookEntry[]) => BookEntry[] | undefined | Promise<BookEntry[] | undefined>,
  ): Promise<boolean> {
    return this.store.withLock(`${this.key}:write`, async () => {
      for (let run = 1; ; run++) {
        const read = await this.store.get<BookEntry[]>(this.key);
        const next = await fn(read ?? []);
        if (!next) return false;
        if (await this.store.compareAndSet(this.key, read, next)) return true;
        if (run >= CHANGE_RUNS)
          throw new Error(`the passkey book kept changing while ${run} writes were tried`);
      }
    });
  }

  /**
   * Add a registered passkey, sealed; false when its credential is already in the book, or its
   * registration request was barred. When it makes two approvers who have held a passkey here, the
   * first-passkeys click is closed first (its sealed marker, then the passkey): a stop between the two
   * writes leaves the click closed, never open with two holders whom a later change of who is an
   * approver would stop counting. Who counts is asked before the lock is taken, never under it: a slow
   * answer holds this write only, never a revocation or a counter moved.
   */
  async add(passkey: Passkey): Promise<boolean> {
    const { requestId } = passkey.registration;
    const counted = await this.countedBeforeAdd(passkey.user);
    return this.change(async (book) => {
      const taken = book.some(
        (p) => p.credentialId === passkey.credentialId || (!isPasskey(p) && p.barred.requestId === requestId),
      );
      if (taken) return undefined;
      if (counted && this.makesTwo(book, passkey.user, counted))
        await this.closeClick(new Date(passkey.addedAt));
      return [...book, this.seal(passkey)];
    });
  }

  /** Who of the book's holders and `user` count towards the two, asked before the lock; undefined: no need. */
  private async countedBeforeAdd(user: string): Promise<Map<string, boolean> | undefined> {
    const counts = this.countsTowardsTwo;
    if (!counts || (await this.clickClosedAt())) return undefined;
    const users = new Set((await this.sealed()).map((p) => p.user)).add(user);
    const counted = new Map<string, boolean>();
    // Who counts unknown (an error): taken as counting, so the click closes rather than stays open.
    for (const one of users) counted.set(one, await counts(one).catch(() => true));
    return counted;
  }

  /**
   * Will `user`'s passkey, added to `book`, make two who count (approvers) that have held one here,
   * revoked since or not? One not asked before the lock (added meanwhile) is taken as counting.
   */
  private makesTwo(book: BookEntry[], user: string, counted: Map<string, boolean>): boolean {
    const users = new Set(book.filter((p): p is Passkey => isPasskey(p) && this.holds(p)).map((p) => p.user));
    users.add(user);
    return [...users].filter((one) => counted.get(one) ?? true).length >= 2;
  }

  /**
   * A registration whose write went unanswered may still land (a store that timed out on the bot's
   * side, a holder that stalled past its lease). `written` when its passkey is in the book. Otherwise
   * the request is barred, in the book's one value: that value no longer equals what the late write
   * read, so its compare-and-set is refused whenever it arrives, and `add` refuses the request from
   * then on (a holder still running reads the bar when it tries again). Only then `barred`.
   */
  async barRegistration(requestId: string, credentialId: string, at: Date): Promise<'written' | 'barred'> {
    let found: 'written' | 'barred' = 'barred';
    await this.change((book) => {
      const written = book.some(
        (p) =>
          isPasskey(p) &&
          p.credentialId === credentialId &&
          p.registration.requestId === requestId &&
          this.holds(p),
      );
      found = written ? 'written' : 'barred';
      if (written || book.some((p) => !isPasskey(p) && p.barred.requestId === requestId)) return undefined;
      return [...book, { credentialId, barred: { requestId, at: at.toISOString() } }];
    });
    return found;
  }

  /** End a passkey at once (sealed again, revocation included); false when there is no such live passkey. */
  revoke(credentialId: string, by: string, at: Date, note?: string): Promise<boolean> {
    return this.change((book) => {
      // Only a sealed record is sealed again: revoking never makes a record written into the store count.
      const found = book.find(
        (p): p is Passkey => isPasskey(p) && p.credentialId === credentialId && !p.revoked && this.holds(p),
      );
      if (!found) return undefined;
      const revoked = { at: at.toISOString(), by, ...(note ? { note } : {}) };
      return book.map((p) => (p === found ? this.seal({ ...p, revoked }) : p));
    });
  }

  /**
   * After a verified assertion, before its approval is written: in one step under the book's lock,
   * its passkey's signature counter moved up to the assertion's, and its use noted (neither is
   * sealed). Refused when the counter does not go up (`counter-went-back`: a cloned authenticator, two
   * assertions with one counter must not both count, even signed for two requests at once), when the
   * passkey is revoked as the book stands at the write (`revoked-passkey`), or when it is not in the
   * book. A counter of 0 where 0 is kept is taken (an authenticator that keeps none). An assertion
   * already counted (its one-time nonce, with its counter), met again by a section that runs again
   * while its nonce's life lasts, is taken again: also after other assertions moved the counter since.
   */
  async advanceCounter(
    credentialId: string,
    counter: number,
    nonce: string,
    at: Date,
  ): Promise<true | CounterRefusal> {
    let outcome: true | CounterRefusal = 'unknown-passkey';
    await this.change((book) => {
      const found = book.find((p): p is Passkey => isPasskey(p) && p.credentialId === credentialId);
      const step = found ? counting(found, counter, nonce, at) : { refusal: 'unknown-passkey' as const };
      outcome = 'refusal' in step ? step.refusal : true;
      if (!('next' in step)) return undefined;
      return book.map((p) => (p === found ? step.next : p));
    });
    return outcome;
  }

  /** A one-time nonce for `what`, valid ONE_TIME_MS. */
  async issueNonce(what: NonceFor): Promise<string> {
    const nonce = token();
    await this.store.set(`passkey-nonce:${this.environment}:${nonce}`, what, ONE_TIME_MS);
    return nonce;
  }

  /** Take a nonce (once: a second take finds nothing). */
  takeNonce(nonce: string): Promise<NonceFor | undefined> {
    return this.take<NonceFor>(`passkey-nonce:${this.environment}:${nonce}`);
  }

  /** A one-time link token for `what`: it works ONE_TIME_MS, once; its record is kept LINK_KEPT_MS. */
  async issueLink(what: LinkFor): Promise<string> {
    const link = token();
    const at = this.now();
    const record: LinkRecord = {
      link: what,
      issuedAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + ONE_TIME_MS).toISOString(),
    };
    await this.store.set(this.linkKey(link), record, LINK_KEPT_MS);
    return link;
  }

  /** Read a link without using it (the page's first load). */
  async peekLink(link: string): Promise<LinkLookup> {
    return this.lookUp(await this.store.get<LinkRecord>(this.linkKey(link)));
  }

  /** Use a link: of callers using one good link at once, exactly one gets it; it is kept as used. */
  useLink(link: string): Promise<LinkLookup> {
    const key = this.linkKey(link);
    // Locked by the token's hash: a lock's name can reach an error message, and the token opens the page.
    const hash = createHash('sha256').update(link, 'utf8').digest('hex');
    return this.store.withLock(`passkey-link-use:${this.environment}:${hash}`, async () => {
      const record = await this.store.get<LinkRecord>(key);
      const found = this.lookUp(record);
      if (!found.ok || !record) return found;
      const at = this.now();
      const left = Date.parse(record.issuedAt) + LINK_KEPT_MS - at.getTime();
      await this.store.set(key, { ...record, usedAt: at.toISOString() }, Math.max(left, 1));
      return found;
    });
  }

  /**
   * True the first time `link` is refused for `reason` while its record is kept: the person is told,
   * and a request's record holds it, once; a page reloaded or a post repeated is only logged and counted.
   */
  firstRefusal(link: string, reason: string): Promise<boolean> {
    const hash = createHash('sha256').update(link, 'utf8').digest('hex');
    return this.store.setIfAbsent(
      `passkey-link-refused:${this.environment}:${hash}:${reason}`,
      true,
      LINK_KEPT_MS,
    );
  }

  private linkKey(link: string): string {
    return `passkey-link:${this.environment}:${link}`;
  }

  private lookUp(record: LinkRecord | undefined): LinkLookup {
    // A record without its times is none this book wrote: never known here.
    if (!record?.link || typeof record.expiresAt !== 'string') return { ok: false, why: 'unknown' };
    const { link } = record;
    if (record.usedAt) return { ok: false, why: 'used', link };
    if (this.now().getTime() >= Date.parse(record.expiresAt)) return { ok: false, why: 'expired', link };
    return { ok: true, link };
  }

  private async take<T>(key: string): Promise<T | undefined> {
    const value = await this.store.get<T>(key);
    if (value === undefined) return undefined;
    return (await this.store.delete(key)) ? value : undefined;
  }
}
