// The people the bot meets, as Slack describes them (users.info): their name and e-mail for the
// record, and whether they are a guest or a bot, who may do nothing here. Answers are kept briefly so
// a burst of clicks asks Slack once per person.
import type { WebClient } from '@slack/web-api';

export interface Person {
  id: string;
  /** Display name, else real name, else the Slack handle. */
  name: string;
  /** Only with the users:read.email scope. */
  email?: string | undefined;
  /** A single- or multi-channel guest (is_restricted / is_ultra_restricted). */
  guest: boolean;
  bot: boolean;
  deleted: boolean;
}

export interface PeopleOptions {
  /** How long an answer is kept (default 5 minutes). */
  ttlMs?: number;
  now?: () => number;
}

const DEFAULT_TTL_MS = 5 * 60_000;

interface SlackUser {
  id?: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  profile?: { display_name?: string; real_name?: string; email?: string; bot_id?: string };
}

/** A Slack user object as the record needs it; USLACKBOT counts as a bot. */
export function personFrom(id: string, user: SlackUser): Person {
  const name = user.profile?.display_name || user.real_name || user.profile?.real_name || user.name || id;
  return {
    id,
    name,
    email: user.profile?.email || undefined,
    guest: user.is_restricted === true || user.is_ultra_restricted === true,
    bot: user.is_bot === true || Boolean(user.profile?.bot_id) || id === 'USLACKBOT',
    deleted: user.deleted === true,
  };
}

/** Why someone may do nothing here whatever the roles say (a bot, a guest, a deactivated account), or undefined. */
export function barred(person: Person): 'bot' | 'guest' | 'deleted' | undefined {
  if (person.bot) return 'bot';
  if (person.guest) return 'guest';
  if (person.deleted) return 'deleted';
  return undefined;
}

export class People {
  private readonly kept = new Map<string, { person: Promise<Person>; until: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: WebClient,
    options: PeopleOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The person behind `id`; a Slack error (user_not_found, a network failure) is thrown, not kept. */
  lookup(id: string): Promise<Person> {
    const now = this.now();
    const kept = this.kept.get(id);
    if (kept && kept.until > now) return kept.person;
    const person = this.client.users.info({ user: id }).then(({ user }) => personFrom(id, user ?? {}));
    this.kept.set(id, { person, until: now + this.ttlMs });
    person.catch(() => {
      if (this.kept.get(id)?.person === person) this.kept.delete(id);
    });
    return person;
  }

  /** Forget one person (a user_change event) or everyone. */
  forget(id?: string): void {
    if (id === undefined) this.kept.clear();
    else this.kept.delete(id);
  }
}
