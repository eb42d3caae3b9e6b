// Who may be a delegate, and who stays one: a full member of the workspace the bot is installed in (no
// guest, no bot, not deactivated, not a member of another workspace). Checked when a delegation is
// filed; when it takes effect (it may have waited for approval while someone changed); afterwards, when
// Slack says a delegate's or delegator's account changed (user_change, team_join) and on a periodic
// re-read. A delegation whose delegate or delegator may no longer act is ended at once, on the record,
// through the engine's own ending of delegations; one still waiting for approval is cancelled.
import type { ApprovalEngine } from '../../approvals/index.js';
import { escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';
import { type Barred, barred, type People, personFrom, type SlackUser } from '../runtime/people.js';

/** How often every live delegation's delegate and delegator are asked about again. */
const VET_EVERY_MS = 5 * 60_000;

export interface DelegateVettingOptions {
  engine: Pick<ApprovalEngine, 'liveDelegations' | 'openRequests' | 'endDelegationsOf' | 'onChange'>;
  /** The gate's directory (same cache, same home workspace). */
  people: People;
  log?: Pick<Logger, 'warn'> | undefined;
  everyMs?: number | undefined;
}

/** Why someone may not act here, completing "its delegate …" on the record. */
function recordReason(why: Barred | 'gone', workspace: string): string {
  switch (why) {
    case 'external':
      return `is not a member of ${workspace}`;
    case 'guest':
      return 'is a guest of the workspace';
    case 'bot':
      return 'is a bot';
    case 'deleted':
      return 'was deactivated';
    case 'gone':
      return 'is no longer in the workspace';
  }
}

const slackErrorOf = (error: unknown) => (error as { data?: { error?: string } } | undefined)?.data?.error;

export class DelegateVetting {
  private timer: NodeJS.Timeout | undefined;
  private readonly workspace: string;

  constructor(private readonly options: DelegateVettingOptions) {
    this.workspace = options.people.home?.team ?? 'this workspace';
  }

  /**
   * Why `user` cannot be a delegate, as the filing's answer says it (mrkdwn), or undefined. Throws when
   * Slack cannot say just now.
   */
  async problem(user: string): Promise<string | undefined> {
    const why = await this.barredOrGone(user);
    if (!why) return undefined;
    const who = mentionUser(user);
    const what =
      why === 'external'
        ? `is not a member of ${escapeMrkdwn(this.workspace)}`
        : why === 'guest'
          ? 'is a guest of the workspace'
          : why === 'bot'
            ? 'is a bot'
            : why === 'deleted'
              ? 'is deactivated'
              : `is not a member of ${escapeMrkdwn(this.workspace)}`;
    return `Person: ${who} ${what}; only a full member of ${escapeMrkdwn(this.workspace)} can be a delegate.`;
  }

  /**
   * Slack says `user`'s account changed (`account`: as the event has it): end (or cancel) their
   * delegations if they may no longer act. Most of these events are profile edits: the open requests
   * are read for a delegation waiting for approval only when the event's account says they may not.
   */
  async changed(user: string, account?: SlackUser): Promise<void> {
    const live = await this.options.engine.liveDelegations();
    if (live.some((d) => d.delegate === user || d.delegator === user)) return this.vet(user);
    if (account && !barred(personFrom(user, account, this.options.people.home))) return;
    if ((await this.waiting()).some((d) => d.delegate === user || d.delegator === user)) await this.vet(user);
  }

  /** Ask Slack again about everyone in a delegation, live or waiting; end those that may no longer stand. */
  async sweep(): Promise<void> {
    for (const user of await this.involved()) {
      this.options.people.forget(user);
      await this.vet(user).catch((error: unknown) => {
        this.options.log?.warn('could not vet a delegation', { user, error: String(error) });
      });
    }
  }

  /** Vets each delegation as it takes effect, and starts the periodic re-read. */
  start(): void {
    if (this.timer) return;
    this.options.engine.onChange(async (request) => {
      if (request.kind !== 'delegation' || request.history.at(-1)?.action !== 'completed') return;
      for (const user of [request.payload.delegate, request.payload.delegator]) {
        await this.vet(user).catch((error: unknown) => {
          this.options.log?.warn('could not vet a delegation', { user, error: String(error) });
        });
      }
    });
    const sweep = () =>
      this.sweep().catch((error: unknown) => {
        this.options.log?.warn('could not read the delegations to vet; the next sweep tries again', {
          error: String(error),
        });
      });
    this.timer = setInterval(() => void sweep(), this.options.everyMs ?? VET_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The delegates and delegators of the live delegations and of those waiting for approval. */
  private async involved(): Promise<Set<string>> {
    const live = await this.options.engine.liveDelegations();
    return new Set([...live, ...(await this.waiting())].flatMap((d) => [d.delegate, d.delegator]));
  }

  /** The delegations waiting for approval. */
  private async waiting(): Promise<Array<{ delegate: string; delegator: string }>> {
    return (await this.options.engine.openRequests()).flatMap((r) =>
      r.kind === 'delegation' && r.state === 'pending' ? [r.payload] : [],
    );
  }

  private async vet(user: string): Promise<void> {
    const why = await this.barredOrGone(user);
    if (why) await this.options.engine.endDelegationsOf(user, recordReason(why, this.workspace));
  }

  /** What bars `user` from acting here; 'gone' when Slack knows no such user. */
  private async barredOrGone(user: string): Promise<Barred | 'gone' | undefined> {
    try {
      return barred(await this.options.people.lookup(user));
    } catch (error) {
      if (slackErrorOf(error) === 'user_not_found') return 'gone';
      throw error;
    }
  }
}
