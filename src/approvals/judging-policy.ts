// Which settings judge this process's clicks, as each approval step names them: the fingerprint of the
// settings the start put on the record (EngineAudit.open, through the engine's openTrail), then those
// of each switch of the signing rule while the bot runs (signing-switch.ts). An engine given settings
// to record takes no approval before they are recorded: its step could not name the settings that
// judged it.
import { ApprovalErrorCode } from './error-codes.js';

/** An approval asked of an engine whose settings are not on the audit record yet. */
export class PolicyNotOpened extends Error {
  override name = 'PolicyNotOpened';
  readonly code = ApprovalErrorCode.PolicyNotOpened;

  constructor() {
    super(
      'An approval was refused: the settings this bot runs with are not on the audit record yet (the start records them before it takes a click), so its step could not name the settings that judged it.',
    );
  }
}

export class JudgingPolicy {
  #fingerprint: string | undefined;

  /** `toRecord`: the engine was given settings to record (policySnapshot), so steps must name them. */
  constructor(private readonly toRecord: boolean) {}

  /** The settings are on the record: each approval step names them from now on (openTrail, a switch). */
  opened(fingerprint: string): void {
    this.#fingerprint = fingerprint;
  }

  /** The settings this process judges by, once recorded; undefined before, or when it records none. */
  current(): string | undefined {
    return this.#fingerprint;
  }

  /**
   * The fingerprint an approval step names (undefined: the engine records no settings); throws
   * PolicyNotOpened while settings it was given are not recorded yet.
   */
  forStep(): string | undefined {
    if (this.toRecord && this.#fingerprint === undefined) throw new PolicyNotOpened();
    return this.#fingerprint;
  }
}
