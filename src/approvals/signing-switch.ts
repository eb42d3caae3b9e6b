// The workbench's "Require passkeys" switches the running bot's signing rule (the sandbox only). The
// audit chain's newest settings are what the verifier judges signatures by, and each approval step
// names the settings that judged it, so the new rule is on the record before it takes effect, and
// takes effect as soon as it is: the post to #approvals comes after.
import type { SigningRule } from '../access/index.js';
import type { ApprovalCore } from './approval-core.js';
import type { EngineAudit } from './engine-audit.js';
import { type PolicySnapshot, signedApprovalsText, withSignedApprovals } from './policy-record.js';

const SWITCHED = 'signing rule switched';

export class SigningSwitch {
  /** The settings in force: those the start recorded, then each switch's. */
  #settings: PolicySnapshot | undefined;
  /** One switch at a time, so the rule in force is the one recorded last. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly core: ApprovalCore,
    private readonly trail: EngineAudit,
    settings: PolicySnapshot | undefined,
  ) {
    this.#settings = settings;
  }

  /** Switch to `rule`, recorded first; false, nothing changed, where the rule is not switchable. */
  switchTo(rule: SigningRule): Promise<boolean> {
    const next = this.#queue.then(() => this.#switch(rule));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #switch(rule: SigningRule): Promise<boolean> {
    const signing = this.core.signed.options;
    if (!signing?.switchable) return false;
    if (!this.#settings) return this.core.signed.setRule(rule);
    const settings = withSignedApprovals(this.#settings, signedApprovalsText(rule, signing.origin));
    const { fingerprint, written } = await this.trail.recordSwitch(settings, SWITCHED);
    // Applied at once after the record, with no wait between: a click judged in between would be
    // judged by the old rule while the chain already names the new one.
    this.#settings = settings;
    this.core.judging.opened(fingerprint);
    const switched = this.core.signed.setRule(rule);
    if (written) await this.trail.tellSwitch(written);
    return switched;
  }
}
