// What a freeze of sends does to an approved request on its way to the service; the executor asks
// before it claims and again just before its write-ahead mark (see freeze.ts for why that is enough).
// A held request stays approved, says so once per freeze, and expires instead of going out once its
// expiry has passed.

import type { CoreSections } from './core-sections.js';
import type { FreezeSwitch } from './freeze.js';
import { heldByFreeze } from './freeze.js';
import { endHandedBackClaim, handingBack } from './hand-back.js';
import type { ApprovalRepository } from './repository.js';
import { HELD_ACTION, hasNotice, transition } from './state-machine.js';
import type { ApprovalRequest, EngineLog } from './types.js';

/** Said on an approved request a freeze of sends holds back. */
const HELD_NOTE =
  'Approved, but held: sends are frozen. It goes out once the freeze is lifted (an approved /cngn unfreeze), unless it expires first; nothing was sent.';
const HELD_EXPIRED_NOTE = 'it was held by a freeze of sends past its expiry; nothing was sent';

export interface FreezeHoldDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  freeze: Pick<FreezeSwitch, 'current'>;
  now: () => Date;
  log?: EngineLog | undefined;
}

export class FreezeHold {
  constructor(private readonly deps: FreezeHoldDeps) {}

  /** Sends are frozen and this request would reach the service. */
  async applies(request: ApprovalRequest): Promise<boolean> {
    return heldByFreeze(request) && (await this.deps.freeze.current({ fresh: true })) !== undefined;
  }

  /**
   * Inside the request's lock: a claim met a freeze before its mark, so the call was certainly not
   * made. Back to approved, held, naming its claim, which is then ended (hand-back.ts), so it goes out
   * after the freeze is lifted. Undefined when the write raced another one (the section runs again).
   */
  async handBack(request: ApprovalRequest): Promise<{ frozen: ApprovalRequest } | undefined> {
    const now = this.deps.now();
    const back = transition(request, 'approved', { action: HELD_ACTION, note: HELD_NOTE, at: now });
    const { execution, outcome: _none, ...unsent } = back;
    const approved = unsent as ApprovalRequest;
    const held = execution ? handingBack(approved, execution.generation) : approved;
    if (!(await this.deps.repo.saveIf(request, held))) return undefined;
    await endHandedBackClaim(this.deps.repo, held, now, this.deps.log);
    return { frozen: held };
  }

  /**
   * Before a claim: an approved request a freeze holds is said to be held (once per freeze) and not
   * claimed; one held past its expiry expires instead of going out, frozen or no longer. Returns the
   * request when it is not to be sent now; undefined when sending may go on.
   */
  async beforeClaim(id: string): Promise<ApprovalRequest | undefined> {
    const { core, repo } = this.deps;
    const request = await repo.get(id);
    if (request?.state !== 'approved' || !heldByFreeze(request)) return undefined;
    const frozen = (await this.deps.freeze.current({ fresh: true })) !== undefined;
    if (this.heldTooLong(request, frozen)) {
      const expired = await core.locked(id, async (current) => {
        if (current?.state !== 'approved' || !this.heldTooLong(current, frozen)) return undefined;
        const at = this.deps.now();
        const next = transition(current, 'expired', { action: 'expired', note: HELD_EXPIRED_NOTE, at });
        await core.write(current, next);
        return next;
      });
      if (expired) await core.notify(expired);
      return expired ?? (await repo.get(id));
    }
    if (!frozen) return undefined;
    const noted = await core.notice(id, HELD_ACTION, HELD_NOTE, {
      again: true,
      when: (current) => current.state === 'approved' && current.history.at(-1)?.action !== HELD_ACTION,
    });
    return noted ?? request;
  }

  /** Held (frozen now, or held in this round) and past its expiry. */
  private heldTooLong(request: ApprovalRequest, frozen: boolean): boolean {
    const held = frozen || hasNotice(request, HELD_ACTION);
    return held && this.deps.now().getTime() >= Date.parse(request.expiresAt);
  }
}
